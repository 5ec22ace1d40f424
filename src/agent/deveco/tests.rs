//! Tests of `crate::agent::deveco`.

use super::*;

fn stream(lines: &[&str]) -> Stream {
    let mut stream = Stream::default();
    for line in lines {
        stream.event(&serde_json::from_str(line).unwrap());
    }
    stream
}

const START: &str =
    r#"{"type":"step_start","timestamp":1,"sessionID":"ses_1","part":{"type":"step-start"}}"#;
const TEXT: &str = r#"{"type":"text","timestamp":2,"sessionID":"ses_1","part":{"type":"text","text":"Result: PASS"}}"#;
const STOP: &str = r#"{"type":"step_finish","timestamp":3,"sessionID":"ses_1","part":{"type":"step-finish","reason":"stop"}}"#;
const TOOL_CALLS: &str = r#"{"type":"step_finish","timestamp":3,"sessionID":"ses_1","part":{"type":"step-finish","reason":"tool-calls"}}"#;
const REJECTED: &str = r#"{"type":"tool_use","timestamp":2,"sessionID":"ses_1","part":{"type":"tool","tool":"external_directory","state":{"status":"error","error":"The user rejected permission to use this specific tool call."}}}"#;
const ERROR: &str = r#"{"type":"error","timestamp":2,"sessionID":"ses_1","error":{"name":"APIError","data":{"message":"rate limited"}}}"#;
/// OpenCode 1.18.33's event when the model called a tool its permission config withheld.
const UNAVAILABLE: &str = r#"{"type":"tool_use","timestamp":2,"sessionID":"ses_1","part":{"type":"tool","tool":"invalid","callID":"call_1","state":{"status":"completed","input":{"tool":"edit","error":"Model tried to call unavailable tool 'edit'."},"output":"The arguments provided to the tool are invalid"}}}"#;

#[test]
fn only_a_clean_stop_is_finished() {
    let clean = stream(&[START, TEXT, STOP]);
    assert_eq!(clean.ending(AgentEnd::Exited(0)), Ending::Finished);
    assert_eq!(clean.session.as_deref(), Some("ses_1"));
    let cases = [
        (
            stream(&[START, TEXT]),
            AgentEnd::Signalled(9),
            "killed mid-stream",
        ),
        (
            stream(&[START, TEXT]),
            AgentEnd::Exited(0),
            "no step finished",
        ),
        (
            stream(&[START, TOOL_CALLS]),
            AgentEnd::Exited(0),
            "ended on `tool-calls`",
        ),
        (
            stream(&[START, REJECTED, TEXT, STOP]),
            AgentEnd::Exited(0),
            "permission rejected for external_directory",
        ),
        (
            stream(&[START, ERROR, STOP]),
            AgentEnd::Exited(0),
            "session error: rate limited",
        ),
        (
            stream(&[START, STOP, TEXT]),
            AgentEnd::Exited(0),
            "went on after",
        ),
        (
            stream(&[START, TEXT, STOP]),
            AgentEnd::Exited(1),
            "the agent exited 1",
        ),
        (
            stream(&[START, ERROR]),
            AgentEnd::Exited(1),
            "the agent exited 1; session error: rate limited",
        ),
        (
            stream(&[START, UNAVAILABLE, TOOL_CALLS, START, TEXT, STOP]),
            AgentEnd::Exited(0),
            "permission rejected for edit (not available to the agent)",
        ),
    ];
    for (stream, end, why) in cases {
        match stream.ending(end) {
            Ending::Incomplete(reason) => assert!(reason.contains(why), "{reason} / {why}"),
            Ending::Finished => panic!("{why}: finished"),
        }
    }
}
