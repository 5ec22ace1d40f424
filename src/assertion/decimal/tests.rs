//! Tests of `crate::assertion::decimal`.

use super::*;

fn d(text: &str) -> Decimal {
    Decimal::parse(text).unwrap()
}

#[test]
fn parses_and_prints_round_trip() {
    for (input, shown) in [
        ("800", "800"),
        ("11.5", "11.5"),
        ("-3.5", "-3.5"),
        ("+4.90", "4.9"),
        ("0.0008", "0.0008"),
        ("1e3", "1000"),
        ("1.5E-2", "0.015"),
        ("0", "0"),
        ("-0.0", "0"),
        ("1e300", "1e300"),
    ] {
        assert_eq!(d(input).to_string(), shown, "{input}");
    }
}

#[test]
fn rejects_what_is_not_a_plain_number() {
    for bad in [
        "", "-", ".", "1.2.3", "1e", "NaN", "inf", "0x10", "1 000", "1e+",
    ] {
        assert!(
            matches!(Decimal::parse(bad), Err(DecimalError::Syntax(_))),
            "{bad}"
        );
    }
    for huge in ["1e9999999", &"9".repeat(39)] {
        assert!(
            matches!(Decimal::parse(huge), Err(DecimalError::OutOfRange(_))),
            "{huge}"
        );
    }
}

#[test]
fn compares_exactly_across_scales() {
    assert!(d("800") > d("799.999999999"));
    assert_eq!(d("0.8").checked_mul(d("1000")), Some(d("800")));
    assert!(d("-3.5") < d("-3.4"));
    assert!(d("1e300") > d("99999999999999999999999999999999999999"));
    assert!(d("0.000001") > d("-1e300"));
    assert_eq!(d("12.50").cmp(&d("12.5")), Ordering::Equal);
}

#[test]
fn subtracts_and_overflows_honestly() {
    assert_eq!(d("742").checked_sub(d("741.5")), Some(d("0.5")));
    assert_eq!(d("1e300").checked_sub(d("1e-300")), None);
    assert_eq!(d("1e30").checked_mul(d("1e30")), Some(d("1e60")));
    let big = d(&"9".repeat(38));
    assert_eq!(big.checked_mul(big), None);
}
