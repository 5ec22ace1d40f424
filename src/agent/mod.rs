//! Agent adapters: dispatch a brief to DevEco Code in Goal mode (`deveco run --agent goal
//! --format json --dir <workspace> "<brief>"`) or to any command (`{brief}`, `{workspace}`,
//! `{round}` placeholders), through the process runner (own process group, timeout, bounded
//! output). The event stream is stored in `agent-<n>.log`; the agent's `PASS`/`FAIL`/
//! `INCOMPLETE` is extracted as a claim only: verification and the audit decide. For DevEco
//! Code dwpipe also derives how the run ended ([`deveco`]), stops it when it stalls (no event
//! and no change in the workspace for `agent.idle-timeout`), and keeps `deveco export` of its
//! session as evidence of what it did.

mod acp;
mod deveco;
mod dispatch;
mod exit;
pub(crate) mod permissions;
mod policy;

pub(crate) use crate::schema::Claim;

pub(crate) use deveco::Ending;

mod argv;
mod ended;
mod supervise;
#[cfg(test)]
mod tests;
use argv::CLAIM;
pub(crate) use argv::argv;
pub(crate) use dispatch::dispatch;
pub(crate) use ended::{AgentError, AgentRun};
pub(crate) use exit::AgentEnd;
pub(crate) use supervise::last_claim;
use supervise::{MAX_TOOLS, spec, stalled, supervise};
