//! Tests of `crate::pipeline::ledger::file`.

use std::time::Duration;

use super::*;
use crate::agent::AgentEnd;
use crate::review::ReviewVerdict;

use super::super::{Input, Outcome, Stage};

#[test]
fn entries_read_back_in_order_and_a_torn_last_line_is_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = Ledger::start(dir.path(), None);
    let mut entry = Entry::new(Stage::Verify, Outcome::Fail, Duration::from_millis(5));
    entry.round = Some(1);
    entry.inputs.insert(Input::Failure, "ab".repeat(32));
    ledger.append(&entry).unwrap();
    ledger
        .append(&Entry::new(
            Stage::Agent,
            Outcome::Agent(AgentEnd::Exited(0)),
            Duration::ZERO,
        ))
        .unwrap();
    let path = ledger_path(dir.path());
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("{\"stage\":\"aud");
    std::fs::write(&path, &text).unwrap();
    let (again, back) = Ledger::open(dir.path(), None).unwrap();
    assert_eq!(back.len(), 2);
    assert_eq!(
        (
            back[0].stage.as_str(),
            back[0].round,
            back[0].outcome.word()
        ),
        ("verify", Some(1), "fail".to_owned())
    );
    assert_eq!(back[0].inputs[&Input::Failure], "ab".repeat(32));
    assert_eq!(back[1].round, None);
    // The torn line is cut, so the next one starts clean.
    again
        .append(&Entry::new(
            Stage::Deliver,
            Outcome::Resumed,
            Duration::ZERO,
        ))
        .unwrap();
    assert_eq!(Ledger::open(dir.path(), None).unwrap().1.len(), 3);
    assert_eq!(again.check(), None);

    std::fs::write(&path, "{\"stage\":\"agent\"}\nnot json\n").unwrap();
    let error = Ledger::open(dir.path(), None).unwrap_err().to_string();
    assert!(
        error.ends_with(
            "ledger.jsonl:1: not a ledger entry: missing field `outcome` at line 1 column 17"
        ),
        "{error}"
    );
    assert_eq!(
        again.check().as_deref(),
        Some("ledger.jsonl lost or changed lines it held")
    );
}

#[test]
fn each_line_follows_from_the_one_before_and_the_first_from_its_anchor() {
    let dir = tempfile::tempdir().unwrap();
    let anchor = Some("a".repeat(64));
    let ledger = Ledger::start(dir.path(), anchor.clone());
    for stage in [Stage::Review, Stage::Brief, Stage::Agent] {
        let outcome = match stage {
            Stage::Review => Outcome::Review(ReviewVerdict::Pass),
            Stage::Brief => Outcome::Written,
            _ => Outcome::Interrupted,
        };
        ledger
            .append(&Entry::new(stage, outcome, Duration::ZERO))
            .unwrap();
    }
    assert_eq!(Ledger::open(dir.path(), anchor.clone()).unwrap().1.len(), 3);
    let path = ledger_path(dir.path());
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let rows = [
        (
            "a line removed",
            format!("{}\n{}\n", lines[0], lines[2]),
            anchor.clone(),
            2,
        ),
        (
            "lines swapped",
            format!("{}\n{}\n{}\n", lines[1], lines[0], lines[2]),
            anchor.clone(),
            1,
        ),
        ("another anchor", text.clone(), Some("b".repeat(64)), 1),
        ("no anchor", text.clone(), None, 1),
    ];
    for (name, text, anchor, line) in rows {
        std::fs::write(&path, text).unwrap();
        match Ledger::open(dir.path(), anchor) {
            Err(LedgerError::Chain { line: at, .. }) => assert_eq!(at, line, "{name}"),
            other => panic!("{name}: {other:?}"),
        }
    }
    // The first release's lines have no links: read as they are.
    std::fs::write(&path, "{\"stage\":\"review\",\"outcome\":\"pass\"}\n").unwrap();
    assert_eq!(Ledger::open(dir.path(), anchor).unwrap().1.len(), 1);
}
