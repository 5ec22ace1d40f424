//! Tests of `crate::time`.

use super::{iso8601, parse_iso8601};

#[test]
fn the_calendar_reads_back() {
    for secs in [0_u64, 951_782_400, 1_798_761_599, 1_796_142_962] {
        assert_eq!(parse_iso8601(&iso8601(secs)), Some(secs as i64));
    }
    for bad in [
        "",
        "2026-13-01T00:00:00Z",
        "2026-11-01 10:00:00Z",
        "2026-11-01T10:00:00",
    ] {
        assert_eq!(parse_iso8601(bad), None, "{bad}");
    }
}

#[test]
fn days_become_the_calendar() {
    // Reference values from `date -u -d @N +%Y-%m-%dT%H:%M:%SZ`.
    assert_eq!(iso8601(0), "1970-01-01T00:00:00Z");
    assert_eq!(iso8601(951_782_400), "2000-02-29T00:00:00Z");
    assert_eq!(iso8601(1_798_761_599), "2026-12-31T23:59:59Z");
    assert_eq!(iso8601(1_796_142_962), "2026-12-01T16:36:02Z");
}
