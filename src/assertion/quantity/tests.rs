//! Tests of `crate::assertion::quantity`.

use super::*;

fn read(text: &str) -> Option<(String, Option<String>)> {
    first_quantity(text)
        .unwrap()
        .map(|q| (q.value.to_string(), q.unit.map(|u| u.to_string())))
}

#[test]
fn reads_the_first_number_and_its_unit() {
    let rows: &[(&str, &str, Option<&str>)] = &[
        ("12vp", "12", Some("vp")),
        ("41.5°C", "41.5", Some("°C")),
        ("39 ℃", "39", Some("°C")),
        ("279MHz", "279", Some("MHz")),
        ("720ms", "720", Some("ms")),
        ("4.9:1", "4.9", Some(":1")),
        ("4.9 : 1", "4.9", Some(":1")),
        ("-3.5 dB", "-3.5", Some("dB")),
        ("1,200 ms", "1200", Some("ms")),
        ("1,234,567KB", "1234567", Some("KB")),
        ("+5 fps", "5", Some("fps")),
        ("5.2 ms/s jank", "5.2", Some("ms/s")),
        ("80%", "80", Some("%")),
        ("1.2s", "1.2", Some("s")),
        ("median 742 ms over 3 runs", "742", Some("ms")),
        ("3 runs: 700/720/760ms", "3", Some("runs")),
        ("P-01 took 700", "1", Some("took")),
        ("700/720/760", "700", None),
        ("1,2 ms", "1", None),
        ("12345,678 vp", "12345", None),
        ("10:2", "10", None),
        ("36px.", "36", Some("px")),
        ("12vp2", "12", None),
        ("7.", "7", None),
        ("0.75", "0.75", None),
        ("2.5e3ms", "2500", Some("ms")),
        ("1e999 ms", "1e999", Some("ms")),
        ("3em", "3", Some("em")),
    ];
    for (text, value, unit) in rows {
        assert_eq!(
            read(text),
            Some(((*value).to_owned(), unit.map(str::to_owned))),
            "{text}"
        );
    }
}

#[test]
fn texts_without_numbers_have_no_quantity() {
    for text in ["", "pass", "NaN ms", "inf", "-", "∞"] {
        assert_eq!(read(text), None, "{text}");
    }
}

#[test]
fn oversized_numbers_are_errors() {
    assert!(first_quantity(&format!("{}ms", "9".repeat(60))).is_err());
    assert!(first_quantity("1e9999999ms").is_err());
}
