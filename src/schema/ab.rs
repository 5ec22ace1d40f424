//! `ab.json`: what an A/B session did — both builds with their SHA-256 and reports, the blocks
//! in the order they ran (which arm, which runs, where the discarded warm-up is), how far the
//! runs were escalated, both verdicts, and what the device was left with.

use serde::{Deserialize, Serialize};

use crate::audit::InstalledHap;
use crate::gate::Verdict;
use crate::words::words;

use super::{AuditReport, Comparison, Regression};

words! {
    /// One side of an A/B session.
    pub enum Arm {
        /// The last release.
        Baseline = "baseline",
        /// The build under test.
        Candidate = "candidate",
    }
}

/// One block of runs on one build.
#[derive(schemars::JsonSchema, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Block {
    /// The arm installed.
    pub arm: Arm,
    /// The arm's runs measured, first and last.
    pub runs: [u32; 2],
    /// The warm-up run's evidence (not read), relative to the record.
    pub warm_up: String,
}

/// What the device was left with.
#[derive(schemars::JsonSchema, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "state", content = "reason", rename_all = "kebab-case")]
pub enum Restored {
    /// Nothing was installed: the device is as it was.
    Untouched,
    /// The candidate build.
    Candidate,
    /// The candidate could not be put back, and why.
    Failed(String),
}

impl std::fmt::Display for Restored {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Restored::Untouched => f.write_str("nothing was installed"),
            Restored::Candidate => f.write_str("the candidate is installed"),
            Restored::Failed(why) => write!(f, "the candidate could not be put back: {why}"),
        }
    }
}

/// A build's version, as its HAP's `module.json` names it, or why it could not be read.
#[derive(schemars::JsonSchema, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "kebab-case")]
pub enum BuildVersion {
    /// `versionName` and `versionCode`.
    Read {
        /// `versionName`.
        name: String,
        /// `versionCode`.
        code: u64,
    },
    /// Why not.
    Unread {
        /// What made it unreadable.
        reason: String,
    },
}

impl std::fmt::Display for BuildVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BuildVersion::Read { name, code } => write!(f, "version {name} (code {code})"),
            BuildVersion::Unread { reason } => write!(f, "version not read: {reason}"),
        }
    }
}

/// One arm in the record.
#[derive(schemars::JsonSchema, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct ArmRecord {
    /// The HAP: its file name (records before this dwpipe: the path as given).
    pub hap: String,
    /// Its SHA-256.
    pub sha256: String,
    /// Its audit, relative to the record.
    pub report: String,
    /// The runs measured (warm-ups not counted).
    pub runs: u32,
    /// Its audit's absolute verdict.
    pub verdict: Verdict,
    /// Its version, as the HAP names it (absent in records made before dwpipe read it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<BuildVersion>,
}

/// `ab.json`.
#[derive(schemars::JsonSchema, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct AbRecord {
    /// 1.
    pub format_version: u32,
    /// The dwpipe that ran the session.
    pub dwpipe_version: String,
    /// The device.
    pub serial: String,
    /// Runs per arm asked for, and the most allowed.
    pub runs: [u32; 2],
    /// The last release.
    pub baseline: ArmRecord,
    /// The candidate.
    pub candidate: ArmRecord,
    /// The blocks, in the order they ran.
    pub blocks: Vec<Block>,
    /// The comparison, relative to the record.
    pub comparison: String,
    /// The regression verdict.
    pub regression: Regression,
    /// The candidate's absolute verdict.
    pub absolute: Verdict,
    /// What the device was left with.
    pub left_installed: Restored,
    /// What of the session the history could not record, and why: the session stands, its
    /// history entries do not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unrecorded: Option<String>,
}

impl AbRecord {
    /// The record of a finished session: both builds (baseline, candidate), the runs per arm
    /// asked for and allowed, the blocks as they ran, both arms' reports and the comparison
    /// (whose report names are the arms' files).
    pub(crate) fn new(
        builds: [(&InstalledHap, &BuildVersion); 2],
        runs: [u32; 2],
        blocks: Vec<Block>,
        (baseline, candidate): (&AuditReport, &AuditReport),
        comparison: &Comparison,
    ) -> AbRecord {
        let arm = |arm: Arm, report: &AuditReport, name: &str| {
            let (build, version) = builds[usize::from(arm == Arm::Candidate)];
            ArmRecord {
                hap: build.path.clone(),
                sha256: build.sha256.clone(),
                report: name.to_owned(),
                runs: blocks
                    .iter()
                    .filter(|b| b.arm == arm)
                    .map(|b| b.runs[1] + 1 - b.runs[0])
                    .sum(),
                verdict: report.verdict,
                version: Some(version.clone()),
            }
        };
        AbRecord {
            format_version: crate::format::AB,
            dwpipe_version: env!("CARGO_PKG_VERSION").to_owned(),
            serial: candidate
                .device
                .as_ref()
                .map_or_else(String::new, |d| d.serial.clone()),
            runs,
            baseline: arm(Arm::Baseline, baseline, &comparison.baseline.report),
            candidate: arm(Arm::Candidate, candidate, &comparison.candidate.report),
            blocks,
            comparison: super::files::COMPARISON.to_owned(),
            regression: comparison.verdict,
            absolute: candidate.verdict,
            left_installed: Restored::Untouched,
            unrecorded: None,
        }
    }

    /// Whether the session passes: the candidate meets the pack and did not regress (an
    /// inconclusive comparison is not shown to pass).
    pub(crate) fn passed(&self) -> bool {
        self.absolute == Verdict::Pass
            && matches!(self.regression, Regression::Same | Regression::Improved)
    }
}
