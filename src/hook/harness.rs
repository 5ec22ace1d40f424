//! Each harness's contract, as its documentation gives it (research/agents.md §3): what its
//! stop hook receives on stdin, and what it reads back on stdout.
//!
//! | harness | session field | "already continuing" | block | let stop |
//! |---|---|---|---|---|
//! | Claude Code, Codex | `session_id` | `stop_hook_active` | `{"decision":"block","reason":…}` | `{}` (unverified: `{"systemMessage":…}`) |
//! | Cursor | `conversation_id` | `loop_count` > 0 | `{"followup_message":…}` | `{}` |
//! | OpenCode (dwpipe's plugin) | `session_id` | `stop_hook_active` | as Claude Code | `{}` |
//!
//! Cursor also says how the agent's loop ended (`status`): one that was `aborted` or ended in
//! `error` is not gated (the user stopped it, or the harness did); any other status, or none,
//! is gated as a finished loop is — a word dwpipe does not know never opens the gate.

use serde_json::{Value, json};

use super::decide::{Answer, Decision};
use super::words::Harness;
use crate::agent::last_claim;
use crate::schema::Claim;

/// A stop, as the harness described it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Stop {
    /// The agent session (a plain id: it names the hook's state file).
    pub(crate) session: String,
    /// The agent is already continuing because of a stop hook.
    pub(crate) continuing: bool,
    /// The agent's loop ended otherwise than by finishing (Cursor's `aborted`, `error`).
    pub(crate) not_finished: Option<String>,
    /// What the agent's last message claimed (`Result: PASS`), when the harness passes that
    /// message (Codex's `last_assistant_message`): a claim, never the verdict.
    pub(crate) claim: Option<Claim>,
}

/// The hook's input cannot be read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum HookInputError {
    /// Not a JSON object.
    #[error("the hook's input is not a JSON object: {0}")]
    NotJson(String),
    /// No session field.
    #[error("the hook's input has no `{field}` (the {harness} stop hook always sends it)")]
    NoSession {
        /// The field.
        field: &'static str,
        /// The harness.
        harness: Harness,
    },
    /// A session id that is not a plain id.
    #[error("the hook's session id {0:?} is not a plain id (letters, digits, `-`, `_`, `.`)")]
    BadSession(String),
}

/// Reads the harness's stdin.
pub(crate) fn read_stop(harness: Harness, input: &[u8]) -> Result<Stop, HookInputError> {
    // Some harnesses start the payload with a UTF-8 byte-order mark, which JSON does not allow.
    let input = input.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(input);
    let value: Value =
        serde_json::from_slice(input).map_err(|e| HookInputError::NotJson(e.to_string()))?;
    if !value.is_object() {
        return Err(HookInputError::NotJson("not an object".to_owned()));
    }
    let field = match harness {
        Harness::Cursor => "conversation_id",
        Harness::ClaudeCode | Harness::Codex | Harness::Opencode => "session_id",
    };
    let session = value[field]
        .as_str()
        .ok_or(HookInputError::NoSession { field, harness })?;
    let plain = !session.is_empty()
        && session.len() <= 128
        && !session.starts_with('.')
        && session
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b));
    if !plain {
        return Err(HookInputError::BadSession(session.to_owned()));
    }
    let (continuing, not_finished) = match harness {
        Harness::Cursor => (
            value["loop_count"].as_u64().is_some_and(|n| n > 0),
            value["status"]
                .as_str()
                .filter(|status| matches!(*status, "aborted" | "error"))
                .map(str::to_owned),
        ),
        Harness::ClaudeCode | Harness::Codex | Harness::Opencode => {
            (value["stop_hook_active"].as_bool().unwrap_or(false), None)
        }
    };
    Ok(Stop {
        session: session.to_owned(),
        continuing,
        not_finished,
        claim: value["last_assistant_message"]
            .as_str()
            .map(|message| last_claim(message).unwrap_or(Claim::None)),
    })
}

/// The decision in the harness's words: one JSON object, the whole of stdout.
pub(crate) fn render(harness: Harness, decision: &Decision) -> String {
    let value = match (&decision.answer, harness) {
        (Answer::Block(reason), Harness::Cursor) => json!({"followup_message": reason}),
        (Answer::Block(reason), _) => json!({"decision": "block", "reason": reason}),
        // Claude Code and Codex show a `systemMessage` to the user (Codex's stop output schema
        // has it): an unverified stop is said there, never answered as a pass is.
        (Answer::Allow, Harness::ClaudeCode | Harness::Codex | Harness::Opencode) => {
            match &decision.note {
                Some(note) => json!({"systemMessage": note}),
                None => json!({}),
            }
        }
        // Cursor's stop hook reads only `followup_message`: the note goes to stderr.
        (Answer::Allow, Harness::Cursor) => json!({}),
    };
    value.to_string()
}

#[cfg(test)]
mod tests;
