//! Tests of `crate::hook::state`.

use super::*;

fn round(said: Said) -> Round {
    Round {
        run: Some("r".into()),
        continuing: false,
        verdict: "audit_failed".into(),
        failure: Some("f".into()),
        said,
        claim: None,
        pack: None,
    }
}

#[test]
fn a_loop_begins_after_the_agent_was_let_stop_and_the_record_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = Session::path(dir.path(), Harness::ClaudeCode, "s1");
    let mut session = Session::load(&path, Harness::ClaudeCode, "s1").unwrap();
    assert!(session.this_loop().is_empty());
    session.rounds = vec![
        round(Said::Repair),
        round(Said::Verified),
        round(Said::Repair),
        round(Said::Warned),
    ];
    assert_eq!(session.this_loop().len(), 2);
    session.save(&path).unwrap();
    let again = Session::load(&path, Harness::ClaudeCode, "s1").unwrap();
    assert_eq!(again.rounds, session.rounds);
    // Another session's record, a newer one and garbage are refused with a fix.
    assert!(matches!(
        Session::load(&path, Harness::Codex, "s1"),
        Err(StateError::Malformed { .. })
    ));
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        text.replace("\"format-version\": 1", "\"format-version\": 9"),
    )
    .unwrap();
    let newer = Session::load(&path, Harness::ClaudeCode, "s1").unwrap_err();
    assert!(newer.to_string().contains("upgrade dwpipe"), "{newer}");
    std::fs::write(&path, "{").unwrap();
    let garbage = Session::load(&path, Harness::ClaudeCode, "s1").unwrap_err();
    assert!(garbage.to_string().contains("delete it"), "{garbage}");
}
