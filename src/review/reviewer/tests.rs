//! Tests of `crate::review::reviewer`.

use super::*;

#[test]
fn answers_are_strict() {
    assert_eq!(
        parse_answer(r#"{"verdict": "pass", "findings": []}"#),
        ReviewerAnswer::Pass
    );
    assert_eq!(
        parse_answer(
            "Here you go:\n```json\n{\"verdict\": \"revise\", \"findings\": [\"P-01 threshold is loose\"]}\n```\n"
        ),
        ReviewerAnswer::Revise(vec!["P-01 threshold is loose".to_owned()])
    );
    for bad in [
        "",
        "PASS",
        "{\"verdict\": \"ok\"}",
        "{\"verdict\": \"pass\", \"findings\": [\"but\"]}",
        "{\"verdict\": \"revise\"}",
        "[1,2]",
        "{\"findings\": []}",
    ] {
        assert!(
            matches!(parse_answer(bad), ReviewerAnswer::Failure(_)),
            "{bad:?}"
        );
    }
}
