//! Tests of `crate::assertion::unit`.

use super::*;

fn d(text: &str) -> Decimal {
    Decimal::parse(text).unwrap()
}

fn scale(
    actual: &str,
    actual_unit: &str,
    expected_unit: &str,
    density: Option<&str>,
) -> Result<(Decimal, Decimal), UnitError> {
    common_scale(
        d(actual),
        Some(&Unit::parse(actual_unit)),
        Some(&Unit::parse(expected_unit)),
        density.map(d),
    )
}

#[test]
fn converts_within_a_family_exactly() {
    // (actual, its unit, expected unit, density, actual scaled, factor for expected)
    let rows = [
        ("1.2", "s", "ms", None, "1200000000", "1000000"),
        ("720", "ms", "ms", None, "720000000", "1000000"),
        ("500", "us", "ms", None, "500000", "1000000"),
        ("1.5", "GB", "MB", None, "1572864", "1024"),
        ("512", "kB", "MB", None, "512", "1024"),
        ("36", "px", "vp", Some("3"), "36", "3"),
        ("12", "vp", "px", Some("3.25"), "39", "1"),
        ("12", "vp", "vp", None, "12", "1"),
        ("4.9", ":1", "ratio", None, "4.9", "1"),
        ("5", "ms/s", "ms/s", None, "5", "1"),
        ("3", "dB", "dB", None, "3", "1"),
    ];
    for (actual, au, eu, density, scaled, factor) in rows {
        assert_eq!(
            scale(actual, au, eu, density),
            Ok((d(scaled), d(factor))),
            "{actual}{au} vs {eu}"
        );
    }
}

#[test]
fn refuses_what_does_not_convert() {
    for (au, eu) in [
        ("ms", "fps"),
        ("ms", "ms/s"),
        ("fp", "vp"),
        ("runs", "ms"),
        ("%", "ratio"),
        ("dB", "dBm"),
    ] {
        assert!(
            matches!(
                scale("1", au, eu, None),
                Err(UnitError::Incompatible { .. })
            ),
            "{au} vs {eu}"
        );
    }
    assert!(matches!(
        scale("36", "px", "vp", None),
        Err(UnitError::NeedsDensity { .. })
    ));
}

#[test]
fn missing_units_compare_plain_numbers() {
    assert_eq!(
        common_scale(d("7"), None, Some(&Unit::parse("ms")), None),
        Ok((d("7"), d("1")))
    );
}
