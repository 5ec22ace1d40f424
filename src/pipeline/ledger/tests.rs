//! Ledger lines, typed and read back.

use super::*;
use crate::agent::AgentEnd;
use crate::review::ReviewVerdict;
use crate::schema::TerminalReason;

#[test]
fn every_outcome_reads_back_from_its_word_on_its_stage() {
    let rows: &[(Stage, Outcome)] = &[
        (Stage::Review, Outcome::Review(ReviewVerdict::Incomplete)),
        (Stage::Review, Outcome::WaiverRefused),
        (Stage::Brief, Outcome::Written),
        (Stage::Agent, Outcome::Agent(AgentEnd::Exited(0))),
        (Stage::Agent, Outcome::Interrupted),
        (Stage::Verify, Outcome::Pass),
        (Stage::Audit, Outcome::Fail),
        (Stage::Audit, Outcome::EnvironmentError),
        (Stage::Deliver, Outcome::Resumed),
        (Stage::Deliver, Outcome::Ended(TerminalReason::Interrupted)),
        (
            Stage::Deliver,
            Outcome::Ended(TerminalReason::EnvironmentError),
        ),
    ];
    for (stage, outcome) in rows {
        assert_eq!(
            Outcome::parse(*stage, &outcome.word()),
            Some(*outcome),
            "{stage} {}",
            outcome.word()
        );
    }
    // One spelling written; the first release's other one still read.
    assert_eq!(Outcome::EnvironmentError.word(), "environment_error");
    assert_eq!(
        Outcome::parse(Stage::Verify, "environment-error"),
        Some(Outcome::EnvironmentError)
    );
    // A word is read against its stage: `pass` is a review verdict on a review line.
    assert_eq!(
        Outcome::parse(Stage::Review, "pass"),
        Some(Outcome::Review(ReviewVerdict::Pass))
    );
    for (stage, word) in [
        (Stage::Brief, "pass"),
        (Stage::Verify, "written"),
        (Stage::Deliver, "pass"),
        (Stage::Agent, "exited zero"),
    ] {
        assert_eq!(Outcome::parse(stage, word), None, "{stage} {word}");
    }
    let line = r#"{"stage":"verify","round":0,"outcome":"bogus"}"#;
    let error = serde_json::from_str::<Entry>(line).unwrap_err().to_string();
    assert!(
        error.contains("a `verify` line has no outcome `bogus`"),
        "{error}"
    );
}
