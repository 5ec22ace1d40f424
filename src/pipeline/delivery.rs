//! A delivery ready to run (built once, by [`super::start`], from its plan), and why one can
//! stop without a terminal reason of its own.

use crate::config::Config;
use crate::pack::Frozen;
use crate::playbook::Playbooks;
use crate::schema::TerminalReason;

use super::events::Event;
use super::ledger;
use super::resume::Ended;
use super::run_dir::RunDir;

/// Everything a delivery needs, already validated.
pub(crate) struct Delivery<'a> {
    /// The frozen pack (already written into the run directory).
    pub(crate) frozen: &'a Frozen,
    /// The project config.
    pub(crate) config: &'a Config,
    /// The playbooks.
    pub(crate) playbooks: &'a Playbooks,
    /// The run directory.
    pub(crate) run_dir: &'a RunDir,
    /// Where the audits measure (opened by preflight; each round's plan names it).
    pub(crate) target: &'a crate::target::Target,
    /// Where every audit of the delivery is recorded.
    pub(crate) history: &'a crate::history::Store,
    /// Continue the run in `run_dir` from its ledger instead of starting one.
    pub(crate) resume: bool,
    /// Waive the outside reviewer.
    pub(crate) waive_review: bool,
    /// A replay that leaves recorded exchanges unserved fails the audit.
    pub(crate) strict: bool,
    /// Where progress goes.
    pub(crate) events: &'a dyn Fn(Event<'_>),
}

/// Why a delivery stopped without a terminal reason of its own.
#[derive(Debug, thiserror::Error)]
pub(crate) enum DeliveryError {
    /// The run cannot be resumed.
    #[error("the run cannot be resumed")]
    Resume(#[source] ResumeRefused),
    /// The ledger could not be appended to.
    #[error(transparent)]
    Ledger(#[from] ledger::AppendError),
    /// A file of the run could not be written.
    #[error(transparent)]
    Write(#[from] crate::output::WriteError),
    /// A template did not render (dwpipe's bug).
    #[error(transparent)]
    Render(#[from] crate::template::RenderError),
    /// A report could not be written.
    #[error(transparent)]
    Publish(#[from] crate::output::PublishError),
    /// The workspace could not be fingerprinted.
    #[error("the workspace cannot be fingerprinted")]
    Fingerprint(#[source] crate::verify::FingerprintError),
    /// The run ended, but its last ledger line or `deliver.json` could not be written.
    #[error(
        "run {run} ended {reason}{} but its record could not be written: {}; fix the cause and resume it with --resume",
        detail.as_ref().map(|d| format!(" ({d})")).unwrap_or_default(),
        unwritten.join("; ")
    )]
    Unrecorded {
        /// The run's id.
        run: String,
        /// How it ended.
        reason: TerminalReason,
        /// Why, when the machine failed.
        detail: Option<String>,
        /// What could not be written, and why.
        unwritten: Vec<String>,
    },
}

/// Why a run directory cannot be picked up again.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ResumeRefused {
    /// It already ended with a verdict of its own.
    #[error(transparent)]
    Ended(#[from] Ended),
    /// The brief of the round to continue is gone.
    #[error("the brief of round {round} cannot be read")]
    Brief {
        /// The round.
        round: u32,
        /// The cause.
        #[source]
        source: crate::input::ReadError,
    },
}
