//! Playbooks: how each probe is measured on a device. A probe playbook names the session
//! that gathers its evidence, the extractor that reads it, the default number of runs, the
//! spread tolerated between runs and the resolution of a reading. A session is a list of
//! device steps (`shell`, `pull`, `sleep`, `ready`, `screenshot`); probes that share a session share its evidence,
//! so one layout dump and one screenshot serve every layout and accessibility criterion of
//! a run.
//!
//! The playbooks in `playbooks/` are embedded in the binary; `--playbooks DIR` overrides any
//! of them by file name. Both are validated like a pack: unknown keys are errors.

mod embedded;
mod parse;
mod values;

mod model;
mod release;
mod set;
#[cfg(test)]
mod tests;
pub(crate) use model::{ProbePlaybook, Session, Step, follow_trace, smartperf_samples};
pub(crate) use parse::{FAILED_STEP, READY};
pub(crate) use release::{ProbeOnRelease, Readable, probe_on};
pub use set::Playbooks;
pub(crate) use values::Values;
