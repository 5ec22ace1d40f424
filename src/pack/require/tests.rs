//! Tests of `crate::pack::require`.

use super::*;

#[test]
fn conditions_read_as_a_lab_writes_them() {
    for (text, shown) in [
        ("battery >= 80%", "battery >= 80%"),
        ("battery>=80", "battery >= 80%"),
        ("battery-temperature <= 40", "battery-temperature <= 40"),
        ("battery-temperature <= 40°C", "battery-temperature <= 40"),
        ("charging: false", "charging: off"),
        ("screen-lock: off", "screen-lock: off"),
        ("screen-lock = on", "screen-lock: on"),
        ("refresh-rate = 120Hz", "refresh-rate = 120"),
        ("hottest-zone < 45000", "hottest-zone < 45000"),
        ("fold: expanded", "fold: expanded"),
        ("fold = half-folded", "fold: half-folded"),
    ] {
        let condition = Condition::parse(text).unwrap();
        assert_eq!(condition.to_string(), shown, "{text}");
        assert_eq!(Condition::parse(shown).unwrap(), condition, "{shown}");
    }
    for (text, said) in [
        ("thermal <= normal", "`thermal` is not a reading"),
        ("battery", "is not a condition"),
        ("battery ~ 3", "compare with"),
        ("battery >= lots", "is not a number"),
        (
            "fold: open",
            "`fold` is one of folded, half-folded, expanded",
        ),
        ("fold >= folded", "`fold` is a state"),
        ("charging >= 1", "on or off"),
        ("screen-lock: maybe", "on or off"),
    ] {
        let error = Condition::parse(text).unwrap_err();
        assert!(error.contains(said), "{text}: {error}");
    }
}
