//! How a turn over ACP ended, as a pure function of what the conversation showed: finished
//! only on `end_turn` with nothing denied or withheld; every other ending named.

use std::fmt::Write;
use std::time::Duration;

use super::super::deveco::Ending;
use super::super::{AgentEnd, stalled};

/// How the conversation's one turn ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Turn {
    /// The prompt was answered with this stop reason.
    Ended(String),
    /// The agent answered a request with an error.
    Refused { method: &'static str, error: String },
    /// No answer within the limit.
    Silent {
        method: &'static str,
        after: Duration,
    },
    /// The process ended before it answered.
    Gone { method: &'static str },
}

/// What the conversation showed besides its turn, for the ending.
#[derive(Clone, Debug, Default)]
pub(super) struct Shown {
    /// Subagent tasks still running (their titles).
    pub(super) tasks: Vec<String>,
    /// What dwpipe's policy denied.
    pub(super) denied: Vec<String>,
    /// Tools the agent's own configuration withheld or rejected.
    pub(super) rejected: Vec<String>,
    /// Windows of message lines too long to read whole (the agent is stopped at the first).
    pub(super) unreadable: usize,
    /// The bytes of dwpipe's replies the agent had left unread when it was stopped for it.
    pub(super) unread: Option<usize>,
}

/// How an ACP run ended: finished only when the prompt was answered `end_turn`, the agent
/// exited cleanly (or was closed by dwpipe after the turn), nothing it asked was denied and no
/// tool was rejected. `stalled` is the idle limit when the watchdog stopped it.
pub(super) fn ending(
    turn: &Turn,
    end: AgentEnd,
    closed: bool,
    stalled_after: Option<Duration>,
    shown: &Shown,
) -> Ending {
    let incomplete = Ending::Incomplete;
    if shown.unreadable > 0 {
        return incomplete(format!(
            "the agent sent a message line longer than {} MiB, which cannot be read whole: it was stopped there",
            super::super::supervise::AGENT_LINE / (1024 * 1024)
        ));
    }
    if let Some(unread) = shown.unread {
        return incomplete(format!(
            "stalled: the agent stopped reading dwpipe's replies ({} MiB of them unread, the most dwpipe holds): it was stopped",
            unread / (1024 * 1024)
        ));
    }
    if let Some(idle) = stalled_after {
        let mut why = stalled(idle);
        if let Some(task) = shown.tasks.first() {
            let _ = write!(
                why,
                "; the subagent task `{task}` was still running (an ACP client never sees a \
                 subagent's permission requests: allow what subagents need in the agent's own \
                 configuration)"
            );
        }
        return incomplete(why);
    }
    match turn {
        Turn::Ended(reason) if reason == "end_turn" => {}
        Turn::Ended(reason) => {
            return incomplete(format!("the turn ended on `{reason}`, not `end_turn`"));
        }
        Turn::Refused {
            method: "session/prompt",
            error,
        } => return incomplete(format!("session error: {error}")),
        Turn::Refused { method, error } => {
            return incomplete(format!("the agent refused `{method}`: {error}"));
        }
        Turn::Silent { method, after } => {
            return incomplete(format!("no answer to `{method}` within {after:?}"));
        }
        Turn::Gone { method } => {
            return incomplete(match end {
                AgentEnd::TimedOut(after) => format!("stopped at its time limit ({after:?})"),
                end => format!("the agent {end} before answering `{method}`"),
            });
        }
    }
    if !end.is_clean() && !closed {
        return incomplete(format!("the agent {end} after its turn ended"));
    }
    if !shown.denied.is_empty() {
        return incomplete(format!(
            "dwpipe's policy denied {} (the run went on without it)",
            shown.denied.join("; ")
        ));
    }
    if !shown.rejected.is_empty() {
        return incomplete(format!(
            "permission rejected for {} (the run went on without it)",
            shown.rejected.join(", ")
        ));
    }
    Ending::Finished
}

#[cfg(test)]
mod tests;
