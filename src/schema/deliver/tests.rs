//! Tests of `crate::schema::deliver`.

use super::*;

#[test]
fn reasons_are_the_words_deliver_json_has_always_said() {
    assert_eq!(
        serde_json::to_string(&TerminalReason::RepeatedFailure).unwrap(),
        "\"repeated_failure\""
    );
    assert_eq!(
        TerminalReason::WORDS,
        [
            "verified",
            "no_changes",
            "verification_failed",
            "audit_failed",
            "repeated_failure",
            "budget_exhausted",
            "review_blocked",
            "interrupted",
            "environment_error",
            "records_tampered",
            "agent_incomplete"
        ]
    );
}
