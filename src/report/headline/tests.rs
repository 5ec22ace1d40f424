//! Tests of `crate::report::headline`.

use super::*;

#[test]
fn only_a_pass_is_green_and_what_is_neither_is_amber() {
    for (regression, tone) in [
        (Regression::Regressed, Tone::Fail),
        (Regression::Inconclusive, Tone::Amber),
        (Regression::Same, Tone::Pass),
        (Regression::Improved, Tone::Pass),
    ] {
        assert_eq!(tone_of_regression(regression), tone, "{regression:?}");
    }
    for (verdict, tone) in [
        (LabVerdict::Pass, Tone::Pass),
        (LabVerdict::Fail, Tone::Fail),
        (LabVerdict::Incomplete, Tone::Amber),
    ] {
        assert_eq!(lab_tone(verdict), tone, "{verdict:?}");
    }
    assert_eq!(tone_of(Verdict::Fail).class(), "fail");
    for (absolute, regression, tone) in [
        (Verdict::Fail, Regression::Improved, Tone::Fail),
        (Verdict::Pass, Regression::Inconclusive, Tone::Amber),
        (Verdict::Pass, Regression::Regressed, Tone::Fail),
        (Verdict::Pass, Regression::Same, Tone::Pass),
    ] {
        assert_eq!(
            ab_tone(absolute, regression),
            tone,
            "{absolute:?} {regression:?}"
        );
    }
}
