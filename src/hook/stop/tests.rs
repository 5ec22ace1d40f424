//! Tests of [`super::stop`]: the engine's answers with the gate stood in by a closure, the
//! session's record kept on disk between stops.

use std::cell::Cell;

use super::*;

fn request(dir: &Path, harness: Harness, input: &str) -> StopRequest {
    StopRequest {
        harness,
        input: Ok(input.as_bytes().to_vec()),
        // No config: the defaults (warn, three rounds).
        config: dir.join("dwpipe.yaml"),
        base: dir.to_owned(),
        wait: Duration::from_secs(1),
    }
}

const CLAUDE: &str = r#"{"session_id":"s-1","stop_hook_active":false}"#;

#[test]
fn an_unreadable_stop_is_let_go_unverified_without_running_the_gate() {
    let dir = tempfile::tempdir().unwrap();
    let mut req = request(dir.path(), Harness::ClaudeCode, "");
    req.input = Err("stdin is a terminal".to_owned());
    let ran = Cell::new(false);
    let stopped = stop(req, |_| {
        ran.set(true);
        Err("never".to_owned())
    });
    assert!(!ran.get());
    assert_eq!(stopped.decision.answer, Answer::Allow);
    assert_eq!(stopped.decision.said, Said::NotGated);
    assert!(stopped.notes[0].starts_with("E_HOOK_INPUT: stdin is a terminal"));
    assert!(
        !dir.path().join(".dwpipe/hooks").exists(),
        "no session, no record"
    );
}

#[test]
fn an_undecided_gate_warns_once_then_lets_stop_and_the_record_counts_it() {
    let dir = tempfile::tempdir().unwrap();
    let rounds = Cell::new(Vec::new());
    let gate = |round| {
        let mut seen = rounds.take();
        seen.push(round);
        rounds.set(seen);
        Err("no device".to_owned())
    };
    let first = stop(request(dir.path(), Harness::ClaudeCode, CLAUDE), gate);
    assert!(matches!(first.decision.answer, Answer::Block(_)));
    assert_eq!(first.decision.said, Said::Warned);
    let second = stop(request(dir.path(), Harness::ClaudeCode, CLAUDE), gate);
    assert_eq!(second.decision.answer, Answer::Allow);
    assert_eq!(second.decision.said, Said::AllowedUnverified);
    assert_eq!(rounds.take(), [0, 0], "an undecided round sends no repair");
    let record = Session::path(dir.path(), Harness::ClaudeCode, "s-1");
    let kept = Session::load(&record, Harness::ClaudeCode, "s-1").unwrap();
    let verdicts: Vec<_> = kept.rounds.iter().map(|r| r.verdict.as_str()).collect();
    assert_eq!(verdicts, ["undecided", "undecided"]);
    assert!(
        second
            .notes
            .iter()
            .any(|n| n.starts_with("hook: claude-code session s-1, round 0: undecided")),
        "{:?}",
        second.notes
    );
}

#[test]
fn a_loop_cursor_aborted_is_not_gated() {
    let dir = tempfile::tempdir().unwrap();
    let input = r#"{"conversation_id":"c-9","status":"aborted","loop_count":0}"#;
    let stopped = stop(request(dir.path(), Harness::Cursor, input), |_| {
        panic!("an aborted loop is not gated")
    });
    assert_eq!(stopped.decision.said, Said::NotGated);
    let record = Session::path(dir.path(), Harness::Cursor, "c-9");
    let kept = Session::load(&record, Harness::Cursor, "c-9").unwrap();
    assert_eq!(kept.rounds[0].verdict, "not gated: aborted");
}

#[test]
fn verdicts_are_spelled_as_the_record_always_spelled_them() {
    assert_eq!(RoundEnd::Undecided.to_string(), "undecided");
    assert_eq!(
        RoundEnd::NotGated("error".to_owned()).to_string(),
        "not gated: error"
    );
    assert_eq!(
        RoundEnd::Ended(TerminalReason::AuditFailed).to_string(),
        TerminalReason::AuditFailed.to_string()
    );
}
