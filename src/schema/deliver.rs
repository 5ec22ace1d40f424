//! `deliver.json`, the file CI reads at the end of a run: why the delivery ended (one terminal
//! reason, docs/design.md §6), what the last audit found, what the agent claimed (never the verdict).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::audit::InstalledHap;
use crate::device::Source;
use crate::words::words;

words! {
    /// Why a delivery ended.
    pub enum TerminalReason {
        /// Every verification command passed after a change, and the audit passed.
        Verified = "verified",
        /// The agent changed nothing.
        NoChanges = "no_changes",
        /// Verification failed and no repair is left.
        VerificationFailed = "verification_failed",
        /// The audit failed and no repair is left.
        AuditFailed = "audit_failed",
        /// The same failure came back more often than allowed.
        RepeatedFailure = "repeated_failure",
        /// The repair rounds ran out.
        BudgetExhausted = "budget_exhausted",
        /// The pre-review blocked dispatch.
        ReviewBlocked = "review_blocked",
        /// A signal (SIGINT, SIGTERM) stopped it.
        Interrupted = "interrupted",
        /// A tool, a device or the machine failed.
        EnvironmentError = "environment_error",
        /// The run's own records (its lock, spec, `run.json`, ledger) changed under it while
        /// the agent or a verification command ran: nothing it would say can be trusted.
        RecordsTampered = "records_tampered",
        /// DevEco Code's run did not finish (killed, stalled, ended on `tool-calls`, a
        /// permission rejected, a session error) and it changed nothing.
        AgentIncomplete = "agent_incomplete",
    }
}

words! {
    /// What the agent said about its own work.
    pub enum Claim {
        /// It says it is done.
        Pass = "pass",
        /// It says it failed.
        Fail = "fail",
        /// It says it could not finish.
        Incomplete = "incomplete",
        /// It said nothing recognizable.
        None = "none",
    }
}

/// `deliver.json`: how the delivery ended, and what it was about.
#[derive(schemars::JsonSchema, Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct DeliverReport {
    /// Schema version.
    pub format_version: u32,
    /// The lock delivered.
    pub pack_sha256: String,
    /// Why it ended.
    pub terminal_reason: TerminalReason,
    /// The run directory.
    pub run_dir: PathBuf,
    /// Repair rounds sent.
    pub repairs: u32,
    /// The last audit's result per criterion (`criterionId`, result in words), if an audit
    /// ran; over a lab, who did what (`fail on LAB02`).
    pub criteria: Vec<(String, String)>,
    /// What is still failing when it stopped: criterion ids or verification command names.
    pub unresolved: Vec<String>,
    /// Reports written (relative to the run directory when inside it).
    pub reports: Vec<String>,
    /// What went wrong, when a tool or the machine failed.
    pub detail: Option<String>,
    /// The agent's last claim (never the verdict).
    pub agent_claim: Option<Claim>,
    /// How DevEco Code's last run ended, by dwpipe's reading of its stream
    /// (`finished`, or `incomplete (why)`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_ending: Option<String>,
    /// What the last audit measured on: each device, or the capture replayed.
    pub sources: Vec<Source>,
    /// The verified HAPs installed before the last audit, with their SHA-256.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub installed: Vec<InstalledHap>,
    /// Why nothing was installed before the last audit (the app measured is not this run's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_installed: Option<String>,
    /// The agent changed nothing in the first round: the workspace was verified and audited
    /// as it stood.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub agent_changed_nothing: bool,
    /// The round (1-based) whose audit `criteria` are (optional, no format change).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audit_round: Option<u32>,
}

impl DeliverReport {
    /// A delivery of the lock `pack_sha256` in `run_dir` that has not ended yet.
    pub(crate) fn new(run_dir: &Path, pack_sha256: &str) -> DeliverReport {
        DeliverReport {
            format_version: crate::format::DELIVER,
            pack_sha256: pack_sha256.to_owned(),
            terminal_reason: TerminalReason::EnvironmentError,
            run_dir: run_dir.to_owned(),
            repairs: 0,
            criteria: Vec::new(),
            unresolved: Vec::new(),
            reports: Vec::new(),
            detail: None,
            agent_claim: None,
            agent_ending: None,
            sources: Vec::new(),
            installed: Vec::new(),
            not_installed: None,
            agent_changed_nothing: false,
            audit_round: None,
        }
    }

    /// `without a repair round`, `after 1 repair round`, `after 3 repair rounds`.
    pub(crate) fn repairs_said(&self) -> String {
        match self.repairs {
            0 => "without a repair round".to_owned(),
            1 => "after 1 repair round".to_owned(),
            n => format!("after {n} repair rounds"),
        }
    }

    /// The attestations of the last audit (`--sign-key`, `attest:`), as `reports` lists them.
    pub(crate) fn attestations(&self) -> impl Iterator<Item = &str> {
        self.reports
            .iter()
            .map(String::as_str)
            .filter(|r| r.ends_with(crate::schema::files::ATTESTATION_SUFFIX))
    }

    /// Whether the last audit measured a recorded capture, not a device.
    pub(crate) fn replayed(&self) -> bool {
        !self.sources.is_empty() && self.sources.iter().all(Source::is_replay)
    }
}

/// The page a delivery offers to open, relative to its run folder: its own page, which names
/// where it measured and links every round's verification and audit.
pub(crate) fn page_to_open() -> &'static str {
    super::files::DELIVER_HTML
}

#[cfg(test)]
mod tests;
