//! How the agent's process ended (exited with a code, or killed by a signal not dwpipe's).

use std::time::Duration;

/// How the agent's process ended (a signal from dwpipe itself is a cancellation, never this).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AgentEnd {
    /// It exited with this code.
    Exited(i32),
    /// A signal from elsewhere ended it.
    Signalled(i32),
    /// It ran past its time limit and was stopped.
    TimedOut(Duration),
}

impl AgentEnd {
    /// The stable code of an end that is not a finished run.
    pub(crate) fn code(self) -> &'static str {
        match self {
            AgentEnd::Exited(_) => "E_AGENT_EXIT",
            AgentEnd::Signalled(_) => "E_AGENT_SIGNALLED",
            AgentEnd::TimedOut(_) => "E_AGENT_TIMEOUT",
        }
    }

    /// Only an exit 0 within the time limit is a finished run, whatever the agent claims.
    pub(crate) fn is_clean(self) -> bool {
        self == AgentEnd::Exited(0)
    }
}

impl std::fmt::Display for AgentEnd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AgentEnd::Exited(code) => write!(f, "exited {code}"),
            AgentEnd::Signalled(signal) => write!(f, "killed by signal {signal}"),
            AgentEnd::TimedOut(after) => write!(f, "timed out after {after:?}"),
        }
    }
}

impl std::str::FromStr for AgentEnd {
    type Err = ();

    /// Reads what [`Display`](std::fmt::Display) wrote (the ledger's agent outcomes).
    fn from_str(text: &str) -> Result<AgentEnd, ()> {
        if let Some(code) = text.strip_prefix("exited ") {
            return code.parse().map(AgentEnd::Exited).map_err(drop);
        }
        if let Some(signal) = text.strip_prefix("killed by signal ") {
            return signal.parse().map(AgentEnd::Signalled).map_err(drop);
        }
        text.strip_prefix("timed out after ")
            .and_then(|after| crate::input::parse_duration(after).ok())
            .map(AgentEnd::TimedOut)
            .ok_or(())
    }
}
