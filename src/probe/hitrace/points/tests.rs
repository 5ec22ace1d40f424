//! Tests of `crate::probe::hitrace::points`.

use super::arg;

#[test]
fn an_argument_is_a_finite_decimal_number_or_none() {
    let args = b"area=1228800, format=rgba,ratio=-0.5,big=1e400,nan=NaN,empty=,area2=7";
    let rows: [(&str, Option<f64>); 7] = [
        ("area", Some(1_228_800.0)),
        ("ratio", Some(-0.5)),
        ("format", None),
        ("big", None),
        ("nan", None),
        ("empty", None),
        ("missing", None),
    ];
    for (key, expected) in rows {
        assert_eq!(arg(args, key), expected, "{key}");
    }
    // A key is matched whole, not as the start of another.
    assert_eq!(arg(b"area2=7", "area"), None);
}
