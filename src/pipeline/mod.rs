//! `dwpipe deliver`: freeze → review → brief → agent → verify → audit, looping agent → verify
//! → audit through the repair guard, in one run directory `.dwpipe/runs/<time>-<pack8>/` with
//! every artifact and `ledger.jsonl`. The engine emits [`Event`]s; only reporters print.

mod resume;
mod stages;

pub use resume::{Resume, ResumeError, StartAt, decide};

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;

use crate::audit::AuditEvent;
use crate::config::Config;
use crate::device::AnyDevice;
use crate::diagnostic::Diagnostic;
use crate::lab::{LabEvent, LabPlan, Member};
use crate::pack::Frozen;
use crate::playbook::Playbooks;
use crate::verify::TerminalReason;

/// What the delivery is doing, for reporters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A stage began.
    Stage {
        /// `review`, `brief`, `agent`, `verify`, `audit`.
        stage: &'static str,
        /// The round (0 = the first dispatch).
        round: u32,
    },
    /// The audit stage's own progress on the device.
    Audit(AuditEvent),
    /// The audit stage's progress over a lab of devices.
    Lab(LabEvent),
    /// A stage ended.
    Done {
        /// The stage.
        stage: &'static str,
        /// Its outcome in a word.
        outcome: String,
        /// How long it took.
        millis: u128,
        /// The file holding what the stage's tool printed (the agent's log, the verification
        /// report), for reporters that unfold it.
        output: Option<PathBuf>,
    },
}

/// Where a delivery audits.
pub enum Target<'a> {
    /// One device (or a recorded capture).
    One(&'a AnyDevice),
    /// Many devices, in parallel.
    Lab {
        /// How the lab runs.
        plan: LabPlan<'a>,
        /// Its devices.
        members: Vec<Member>,
    },
}

/// How the delivery ended.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct Summary {
    /// Why it ended.
    pub terminal_reason: TerminalReason,
    /// The run directory.
    pub run_dir: PathBuf,
    /// Repair rounds sent.
    pub repairs: u32,
    /// The last audit's verdict per criterion (`criterionId` → result), if an audit ran.
    pub criteria: Vec<(String, String)>,
    /// What is still failing when it stopped: criterion ids or verification command names.
    pub unresolved: Vec<String>,
    /// Reports written (relative to the run directory when inside it).
    pub reports: Vec<String>,
    /// What went wrong, when a tool or the machine failed.
    pub detail: Option<String>,
    /// The agent's last claim (never the verdict).
    pub agent_claim: Option<String>,
}

/// Everything a delivery needs, already validated.
pub struct Delivery<'a> {
    /// The frozen pack (already written into the run directory).
    pub frozen: &'a Frozen,
    /// The project config.
    pub config: &'a Config,
    /// The playbooks.
    pub playbooks: &'a Playbooks,
    /// The run directory.
    pub run_dir: &'a Path,
    /// Where review reports and their receipts live across runs.
    pub reviews: &'a Path,
    /// Continue the run in `run_dir` from its ledger instead of starting one.
    pub resume: bool,
    /// Waive the outside reviewer.
    pub waive_review: bool,
    /// Where progress goes.
    pub events: &'a dyn Fn(Event),
}

impl Summary {
    fn new(run_dir: &Path) -> Summary {
        Summary {
            terminal_reason: TerminalReason::EnvironmentError,
            run_dir: run_dir.to_owned(),
            repairs: 0,
            criteria: Vec::new(),
            unresolved: Vec::new(),
            reports: Vec::new(),
            detail: None,
            agent_claim: None,
        }
    }
}

/// Why a delivery stopped without a terminal reason of its own.
#[derive(Debug, thiserror::Error)]
pub enum DeliveryError {
    /// A local file could not be written.
    #[error("{0}")]
    Local(String),
    /// The run cannot be resumed.
    #[error("{0}")]
    Resume(String),
}

/// Creates a fresh run directory for a pack, `.dwpipe/runs/<unix-seconds>-<pack8>/` under
/// `base`; a run started in the same second gets `-2`, `-3`, … (each run owns its folder, so
/// two runs never write into each other's).
pub fn create_run_dir(base: &Path, sha256: &str) -> std::io::Result<PathBuf> {
    let runs = base.join(".dwpipe").join("runs");
    std::fs::create_dir_all(&runs)?;
    let seconds = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let stem = format!("{seconds}-{}", &sha256[..8]);
    for n in 1u32.. {
        let dir = if n == 1 {
            runs.join(&stem)
        } else {
            runs.join(format!("{stem}-{n}"))
        };
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    unreachable!("u32 run numbers within one second")
}

/// A serde enum's word (`pass`, `no_changes`, …).
pub(crate) fn word(value: impl Serialize) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// A diagnostic for a delivery that cannot start (no verification command, no agent).
pub fn preflight(config: &Config) -> Vec<Diagnostic> {
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
    if config.agent.is_none() {
        found.push(
            Diagnostic::error("E_DELIVER_NO_AGENT", "dwpipe.yaml configures no agent")
                .fix("add `agent: { kind: deveco }` or a command agent"),
        );
    }
    found
}
