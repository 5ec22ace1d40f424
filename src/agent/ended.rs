//! How an agent's run ended, what it claimed, and why it has no run.

use crate::agent::Claim;
use crate::agent::Ending;
use crate::output::WriteError;
use crate::process::SpawnError;

use super::AgentEnd;

/// One dispatch's record.
#[derive(Clone, Debug)]
pub(crate) struct AgentRun {
    /// The claim (never the verdict).
    pub(crate) claim: Claim,
    /// How the process ended.
    pub(crate) end: AgentEnd,
    /// JSON event lines read.
    pub(crate) events: usize,
    /// Lines that looked like JSON events but did not parse.
    pub(crate) unparsed_lines: usize,
    /// `error` events' messages.
    pub(crate) errors: Vec<String>,
    /// Tools the agent used (`tool_use` events), in order.
    pub(crate) tools: Vec<String>,
    /// It left processes running when it exited (they were stopped).
    pub(crate) leaked: bool,
    /// For DevEco Code: how the run ended, by its stream (`None` for a command agent).
    pub(crate) ending: Option<Ending>,
    /// For DevEco Code: what became of `deveco export <session>`.
    pub(crate) export: Option<Result<(), String>>,
    /// Over ACP: the stop reason the agent answered the prompt with, if it answered.
    pub(crate) stop_reason: Option<String>,
    /// Over ACP: the answers dwpipe gave the agent's requests (how many, how many denied),
    /// recorded beside the log.
    pub(crate) answers: Option<(usize, usize)>,
}

/// The agent could not be run at all.
#[derive(Debug, thiserror::Error)]
pub(crate) enum AgentError {
    /// Its program is not installed.
    #[error("agent `{0}` not found")]
    NotFound(String),
    /// The configuration gives no program to run.
    #[error("the agent has no argv")]
    NoArgv,
    /// The OS refused to start it.
    #[error(transparent)]
    Spawn(SpawnError),
    /// Its log could not be written.
    #[error("cannot store the agent's output")]
    Log(#[source] WriteError),
    /// A signal stopped it.
    #[error("interrupted")]
    Cancelled,
}

impl AgentError {
    /// The stable code of the failure.
    pub(crate) fn code(&self) -> &'static str {
        match self {
            AgentError::NotFound(_) => "E_AGENT_NOT_FOUND",
            AgentError::NoArgv => "E_AGENT_NO_ARGV",
            AgentError::Spawn(_) => "E_AGENT_SPAWN",
            AgentError::Log(_) => "E_AGENT_LOG",
            AgentError::Cancelled => "E_INTERRUPTED",
        }
    }
}
