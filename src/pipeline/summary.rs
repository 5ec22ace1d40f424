//! How a delivery ended, and `deliver.json`, the file CI reads at the end of a run.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::audit::InstalledHap;

use crate::agent::Claim;
use crate::device::Source;
use crate::output::{WriteError, write_atomic};

use super::reason::TerminalReason;

/// How the delivery ended.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct Summary {
    /// Why it ended.
    pub(crate) terminal_reason: TerminalReason,
    /// The run directory.
    pub(crate) run_dir: PathBuf,
    /// Repair rounds sent.
    pub(crate) repairs: u32,
    /// The last audit's result per criterion (`criterionId`, result in words), if an audit
    /// ran; over a lab, who did what (`fail on LAB02`).
    pub(crate) criteria: Vec<(String, String)>,
    /// What is still failing when it stopped: criterion ids or verification command names.
    pub(crate) unresolved: Vec<String>,
    /// Reports written (relative to the run directory when inside it).
    pub(crate) reports: Vec<String>,
    /// What went wrong, when a tool or the machine failed.
    pub(crate) detail: Option<String>,
    /// The agent's last claim (never the verdict).
    pub(crate) agent_claim: Option<Claim>,
    /// How DevEco Code's last run ended, by dwpipe's reading of its stream
    /// (`finished`, or `incomplete (why)`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) agent_ending: Option<String>,
    /// What the last audit measured on: each device, or the capture replayed.
    pub(crate) sources: Vec<Source>,
    /// The verified HAPs installed before the last audit, with their SHA-256.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) installed: Vec<InstalledHap>,
    /// Why nothing was installed before the last audit (the app measured is not this run's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) not_installed: Option<String>,
    /// The agent changed nothing in the first round: the workspace was verified and audited
    /// as it stood.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) agent_changed_nothing: bool,
}

impl Summary {
    pub(super) fn new(run_dir: &Path) -> Summary {
        Summary {
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
        }
    }

    /// Whether the last audit measured a recorded capture, not a device.
    pub(crate) fn replayed(&self) -> bool {
        !self.sources.is_empty() && self.sources.iter().all(Source::is_replay)
    }
}

/// `deliver.json`: the summary plus what it was about.
#[derive(Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct DeliverReport {
    /// Schema version.
    pub(crate) format_version: u32,
    /// The lock delivered.
    pub(crate) pack_sha256: String,
    /// How it ended.
    #[serde(flatten)]
    pub(crate) summary: Summary,
}

impl DeliverReport {
    /// Writes `deliver.json` into the run directory.
    pub(super) fn write(&self, run_dir: &Path) -> Result<(), WriteError> {
        let text = serde_json::to_string_pretty(self).expect("a summary serializes") + "\n";
        write_atomic(&run_dir.join("deliver.json"), text.as_bytes())
    }
}

/// The page a delivery's reports (as `deliver.json` lists them, relative to the run folder)
/// offer to open: the last audit's HTML (its lab's, in a lab), else the delivery's record.
pub(crate) fn page_to_open(reports: &[String]) -> &str {
    reports
        .iter()
        .rev()
        .find(|r| r.ends_with(".html"))
        .map_or("deliver.json", String::as_str)
}
