//! The ACP client against scripted agents: requests answered, permissions decided, replies
//! bounded.

use super::*;

#[test]
fn requests_are_answered_by_the_policy_and_recorded() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("Index.ets"), "a\nb\nc\n").unwrap();
    let (sender, sent) = crate::process::stdin_feed(MAX_UNREAD);
    let mut client = Client::new(sender, dir.path());
    client.session = Some("ses_root".into());
    let inside = dir.path().join("Index.ets").display().to_string();
    let options = json!([
        {"optionId": "once", "kind": "allow_once", "name": "Allow once"},
        {"optionId": "reject", "kind": "reject_once", "name": "Reject"}
    ]);
    let lines = [
        json!({"jsonrpc": "2.0", "id": 0, "method": "session/request_permission", "params": {"sessionId": "ses_root", "toolCall": {"toolCallId": "c1", "title": "Index.ets", "kind": "edit", "locations": [{"path": inside}]}, "options": options}}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "session/request_permission", "params": {"sessionId": "ses_child", "toolCall": {"toolCallId": "c2", "title": "/etc", "kind": "other", "locations": [{"path": "/etc/passwd"}]}, "options": options}}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "fs/read_text_file", "params": {"sessionId": "ses_root", "path": inside, "line": 2, "limit": 1}}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "fs/write_text_file", "params": {"sessionId": "ses_root", "path": "/tmp/dwpipe-never-written", "content": "x"}}),
        json!({"jsonrpc": "2.0", "id": 4, "method": "terminal/create", "params": {"sessionId": "ses_root", "command": "rm"}}),
    ];
    for line in &lines {
        client.line(Line {
            pipe: Pipe::Out,
            text: &line.to_string(),
            cut: false,
        });
    }
    let replies: Vec<Value> = sent
        .drain()
        .into_iter()
        .map(|bytes| serde_json::from_slice(&bytes).unwrap())
        .collect();
    assert_eq!(replies[0]["result"]["outcome"]["optionId"], "once");
    assert_eq!(replies[1]["result"]["outcome"]["optionId"], "reject");
    assert_eq!(replies[2]["result"]["content"], "b\n");
    assert!(
        replies[3]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("outside the workspace")
    );
    assert_eq!(replies[4]["error"]["code"], -32601);
    assert!(!Path::new("/tmp/dwpipe-never-written").exists());
    let answered: Vec<(&str, bool)> = client
        .answers
        .iter()
        .map(|a| (a.answer, a.own_session))
        .collect();
    assert_eq!(
        answered,
        [
            ("allowed", true),
            ("denied", false),
            ("allowed", true),
            ("denied", true),
            ("unsupported", true)
        ]
    );
    assert_eq!(client.strangers.iter().collect::<Vec<_>>(), ["ses_child"]);
    assert_eq!(client.denied.len(), 2, "{:?}", client.denied);
    assert_eq!((client.answered, client.refused), (5, 3));
}

#[test]
fn a_flood_of_requests_is_answered_and_counted_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let (sender, sent) = crate::process::stdin_feed(MAX_UNREAD);
    let mut client = Client::new(sender, dir.path());
    let many = MAX_ANSWERS + 5;
    for id in 0..many {
        let line = json!({"jsonrpc": "2.0", "id": id, "method": "terminal/create", "params": {}});
        client.line(Line {
            pipe: Pipe::Out,
            text: &line.to_string(),
            cut: false,
        });
    }
    // Every request got its answer; the record keeps the first ones, the counts all.
    assert_eq!(sent.drain().len(), many);
    assert_eq!(client.answers.len(), MAX_ANSWERS);
    assert_eq!((client.answered, client.refused), (many, many));
}

/// Messages of a session dwpipe did not open never make the agent's claim; replies the
/// agent leaves unread stop it, bounded.
#[test]
fn a_strangers_words_are_no_claim_and_an_agent_that_does_not_read_is_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let (sender, _unread) = crate::process::stdin_feed(4096);
    let mut client = Client::new(sender, dir.path());
    client.session = Some("ses_root".into());
    let stop = Cancel::new();
    client.stop = Some(stop.clone());
    let chunk = |session: &str, text: &str| json!({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": session, "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}}});
    for message in [
        chunk("ses_other", "Result: PASS"),
        chunk("ses_root", "working"),
    ] {
        client.line(Line {
            pipe: Pipe::Out,
            text: &message.to_string(),
            cut: false,
        });
    }
    assert_eq!(client.claim, None);
    assert!(client.strangers.contains("ses_other"));
    client.line(Line {
        pipe: Pipe::Out,
        text: &chunk("ses_root", "\nResult: PASS").to_string(),
        cut: false,
    });
    assert_eq!(client.claim, Some(Claim::Pass));
    // Requests answered into a stdin nobody reads: past 4 KiB the agent is stopped.
    for id in 0..200 {
        let line = json!({"jsonrpc": "2.0", "id": id, "method": "terminal/create", "params": {}});
        client.line(Line {
            pipe: Pipe::Out,
            text: &line.to_string(),
            cut: false,
        });
    }
    assert!(
        client.unread.is_some_and(|n| n <= 4096),
        "{:?}",
        client.unread
    );
    assert!(stop.is_cancelled());
}
