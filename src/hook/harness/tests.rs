//! Tests of `crate::hook::harness`.

use super::super::words::Said;
use super::*;

#[test]
fn each_harness_input_is_read_as_documented() {
    let rows = [
        (
            Harness::ClaudeCode,
            r#"{"session_id":"abc-123","transcript_path":"/t.jsonl","hook_event_name":"Stop","stop_hook_active":true}"#,
            Ok(("abc-123", true, None)),
        ),
        (
            Harness::Codex,
            r#"{"session_id":"019a.x","hook_event_name":"Stop","stop_hook_active":false,"cwd":"/w","last_assistant_message":"Done.\nResult: PASS"}"#,
            Ok(("019a.x", false, None)),
        ),
        (
            Harness::Cursor,
            r#"{"conversation_id":"c1","generation_id":"g","status":"completed","loop_count":0,"hook_event_name":"stop"}"#,
            Ok(("c1", false, None)),
        ),
        (
            Harness::Cursor,
            r#"{"conversation_id":"c1","status":"aborted","loop_count":2}"#,
            Ok(("c1", true, Some("aborted"))),
        ),
        (
            Harness::Cursor,
            r#"{"conversation_id":"c1","status":"error"}"#,
            Ok(("c1", false, Some("error"))),
        ),
        // Only Cursor's own words for a loop that did not finish leave it ungated.
        (
            Harness::Cursor,
            r#"{"conversation_id":"c1","status":"Aborted"}"#,
            Ok(("c1", false, None)),
        ),
        (
            Harness::Cursor,
            r#"{"conversation_id":"c1","status":"done"}"#,
            Ok(("c1", false, None)),
        ),
        (
            Harness::Cursor,
            r#"{"conversation_id":"c1","status":7}"#,
            Ok(("c1", false, None)),
        ),
        (
            Harness::Opencode,
            r#"{"session_id":"ses_1"}"#,
            Ok(("ses_1", false, None)),
        ),
        (Harness::ClaudeCode, "not json", Err("not a JSON object")),
        (Harness::ClaudeCode, "[1]", Err("not a JSON object")),
        (
            Harness::Cursor,
            r#"{"session_id":"s"}"#,
            Err("no `conversation_id`"),
        ),
        (
            Harness::Codex,
            r#"{"session_id":"../../etc"}"#,
            Err("not a plain id"),
        ),
        (
            Harness::Codex,
            r#"{"session_id":".."}"#,
            Err("not a plain id"),
        ),
    ];
    for (harness, input, expected) in rows {
        let read = read_stop(harness, input.as_bytes());
        match (read, expected) {
            (Ok(stop), Ok((session, continuing, not_finished))) => {
                let claimed = input.contains("Result: PASS").then_some(Claim::Pass);
                assert_eq!(stop.claim, claimed, "{input}");
                assert_eq!(stop.session, session, "{input}");
                assert_eq!(stop.continuing, continuing, "{input}");
                assert_eq!(stop.not_finished.as_deref(), not_finished, "{input}");
            }
            (Err(e), Err(said)) => assert!(e.to_string().contains(said), "{input}: {e}"),
            (read, _) => panic!("{input}: {read:?}"),
        }
    }
}

#[test]
fn each_harness_reads_the_decision_in_its_own_words() {
    let block = Decision {
        answer: Answer::Block("fix P-01".into()),
        said: Said::Repair,
        note: None,
    };
    let allow = Decision {
        answer: Answer::Allow,
        said: Said::AllowedUnverified,
        note: Some("unverified".into()),
    };
    let rows = [
        (
            Harness::ClaudeCode,
            &block,
            r#"{"decision":"block","reason":"fix P-01"}"#,
        ),
        (
            Harness::Codex,
            &block,
            r#"{"decision":"block","reason":"fix P-01"}"#,
        ),
        (
            Harness::Opencode,
            &block,
            r#"{"decision":"block","reason":"fix P-01"}"#,
        ),
        (
            Harness::Cursor,
            &block,
            r#"{"followup_message":"fix P-01"}"#,
        ),
        (
            Harness::ClaudeCode,
            &allow,
            r#"{"systemMessage":"unverified"}"#,
        ),
        (Harness::Codex, &allow, r#"{"systemMessage":"unverified"}"#),
        (Harness::Cursor, &allow, "{}"),
    ];
    for (harness, decision, expected) in rows {
        assert_eq!(render(harness, decision), expected, "{harness}");
    }
}
