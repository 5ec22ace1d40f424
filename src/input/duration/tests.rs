//! Tests of `crate::input::duration`.

use super::*;

#[test]
fn durations_read_like_people_write_them() {
    assert_eq!(parse_duration("40ms"), Ok(Duration::from_millis(40)));
    assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
    assert_eq!(parse_duration("10m"), Ok(Duration::from_secs(600)));
    assert!(parse_duration("soon").is_err());
    assert!(parse_duration("5 parsecs").is_err());
}
