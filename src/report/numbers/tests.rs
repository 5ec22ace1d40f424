//! Tests of `crate::report::numbers`.

use super::*;

#[test]
fn numbers_read_the_same_everywhere() {
    for (value, shown) in [
        (Some(32.397_999_999_999_996), "32.398"),
        (Some(700.0), "700"),
        (Some(0.5), "0.5"),
        (Some(-0.0001), "0"),
        (None, "—"),
    ] {
        assert_eq!(num(value), shown);
    }
    assert_eq!(quantity(Some(61.5), Some("ms")), "61.5 ms");
    assert_eq!(delta(Some(61.5), Some(8.8), Some("ms")), "+61.5 ms (+8.8%)");
    assert_eq!(delta(Some(-3.0), None, None), "-3");
    for (p, shown) in [
        (Some(0.000_010_8), "1.1e-5"),
        (Some(0.000_2), "0.0002"),
        (Some(0.0198), "0.0198"),
        (Some(0.4), "0.4000"),
        (None, "—"),
    ] {
        assert_eq!(p_value(p), shown);
    }
}
