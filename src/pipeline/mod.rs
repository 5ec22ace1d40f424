//! `dwpipe deliver`: freeze → review → brief → agent → verify → audit, looping agent → verify
//! → audit through the repair guard, in one run directory `.dwpipe/runs/<time>-<pack8>/` with
//! every artifact, `ledger.jsonl` and `deliver.json`. The engine emits [`Event`]s; only
//! reporters print.

mod claim;
mod gate;
mod guard;
pub(crate) mod ledger;
mod record;
mod records;
mod resume;
mod run;
mod run_dir;
mod runs;
mod stages;

use std::path::PathBuf;

use crate::agent::AgentEnd;
use crate::config::Config;
use crate::diagnostic::Diagnostic;
use crate::pack::Frozen;
use crate::playbook::Playbooks;
use crate::schema::{Claim, TerminalReason};

pub(crate) use claim::{ClaimError, claim};
pub(crate) use gate::Gated;
pub(crate) use guard::{Next, RepairGuard};
pub(crate) use ledger::{Outcome, Stage};
pub(crate) use records::{RUN_FILE, RunTarget};
pub(crate) use resume::Ended;
pub(crate) use run_dir::{RunDir, RunDirError};
pub(crate) use runs::list as list_runs;

/// Where a project's run folders live, below the folder that holds `dwpipe.yaml`.
pub(crate) const RUNS_FOLDER: &str = ".dwpipe/runs";

/// What a finished stage says besides its outcome, for reporters to show.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Note {
    /// Nothing: the outcome says it.
    None,
    /// Why the stage ended the delivery.
    Detail(String),
    /// The report it wrote or reused (a review receipt).
    Report(String),
    /// A review that asks for changes or blocks: its report, and each finding in one line
    /// (code, criterion, message), for people to read where they look.
    Findings(String, Vec<String>),
    /// The file it wrote (a brief).
    File(String),
    /// How the agent ended and what it claimed.
    Claim(AgentEnd, Claim),
}

/// What the delivery is doing, for reporters.
#[derive(Debug)]
pub(crate) enum Event<'a> {
    /// A stage began.
    Stage {
        /// The stage.
        stage: Stage,
        /// The round (0 = the first dispatch).
        round: u32,
    },
    /// The audit stage's session (on the device, or over a lab of devices).
    Session(crate::session::Event<'a>),
    /// A stage ended.
    Done {
        /// The stage.
        stage: Stage,
        /// What it decided.
        outcome: Outcome,
        /// What else to show.
        note: Note,
        /// How long it took.
        millis: u128,
        /// The file holding what the stage's tool printed (the agent's log, the verification
        /// report), for reporters that unfold it.
        output: Option<PathBuf>,
    },
}

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

/// The config of a delivery: loaded, refused when it cannot deliver (no verification command,
/// no agent), and with its workspace made absolute (the agent and the verification commands
/// run inside it).
pub(crate) fn delivery_config(path: &std::path::Path) -> Result<Config, Vec<Diagnostic>> {
    ready(Config::load(path).map_err(|d| vec![d])?, true)
}

/// A loaded config made ready for a stop hook's gate: as a delivery's, but its agent runs
/// outside dwpipe (in the harness whose hook runs it), so none is needed and a configured one
/// is not run.
pub(crate) fn gate_config(config: Config) -> Result<Config, Vec<Diagnostic>> {
    let mut config = ready(config, false)?;
    config.agent = None;
    Ok(config)
}

/// A loaded config refused when it cannot deliver, with its workspace made absolute.
fn ready(mut config: Config, needs_agent: bool) -> Result<Config, Vec<Diagnostic>> {
    let missing = preflight(&config, needs_agent);
    if !missing.is_empty() {
        return Err(missing);
    }
    config.workspace = std::fs::canonicalize(&config.workspace).map_err(|e| {
        vec![
            Diagnostic::error(
                "E_DELIVER_WORKSPACE",
                format!("workspace `{}`: {e}", config.workspace.display()),
            )
            .fix("set `workspace:` in dwpipe.yaml to the app's source tree"),
        ]
    })?;
    Ok(config)
}

/// A diagnostic for a delivery that cannot start (no verification command, no agent).
fn preflight(config: &Config, needs_agent: bool) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    if config.verify.is_empty() {
        found.push(
            Diagnostic::error(
                "E_DELIVER_NO_VERIFY",
                "dwpipe.yaml declares no verification command",
            )
            .fix("add at least one `verify:` command (the build, the unit tests)"),
        );
    }
    if needs_agent && config.agent.is_none() {
        found.push(
            Diagnostic::error("E_DELIVER_NO_AGENT", "dwpipe.yaml configures no agent")
                .fix("add `agent: { kind: deveco }` or a command agent"),
        );
    }
    found
}
