//! `compare.json`: a candidate audit held against a baseline, criterion by criterion — both
//! arms' runs, the delta with its interval, p, the floor, and the three-way outcome turned
//! into regressed, improved, same or inconclusive.

use serde::{Deserialize, Serialize};

use crate::device::DeviceInfo;
use crate::diagnostic::Diagnostic;
use crate::pack::Weight;
use crate::words::words;

words! {
    /// What the statistics say of a criterion.
    pub enum Outcome {
        /// Significant and at least the floor.
        Different = "different",
        /// Shown to be within the floor.
        Same = "same",
        /// Neither.
        Unknown = "unknown",
    }
}

words! {
    /// What a comparison concludes, for a criterion or overall.
    pub enum Regression {
        /// Worse by at least the floor (or pass → fail).
        Regressed = "regressed",
        /// Better by at least the floor (or fail → pass).
        Improved = "improved",
        /// No worse than the floor.
        Same = "same",
        /// Not shown either way.
        Inconclusive = "inconclusive",
    }
}

/// One arm's runs of a criterion.
#[derive(schemars::JsonSchema, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct ArmStats {
    /// Runs with a reading.
    pub n: usize,
    /// Their median.
    pub median: Option<f64>,
    /// Every run's reading.
    pub runs: Vec<f64>,
    /// The verdict the arm's audit recomputed.
    pub verdict: String,
}

/// One criterion compared.
#[derive(schemars::JsonSchema, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Compared {
    /// The criterion.
    pub criterion_id: String,
    /// must or should.
    pub weight: Weight,
    /// The probe.
    pub probe: String,
    /// Its unit.
    pub unit: Option<String>,
    /// The baseline's runs.
    pub baseline: ArmStats,
    /// The candidate's runs.
    pub candidate: ArmStats,
    /// Candidate median minus baseline median.
    pub delta: Option<f64>,
    /// The delta as a percentage of the baseline median.
    pub delta_pct: Option<f64>,
    /// 95 % percentile-bootstrap interval of the median delta.
    pub ci95: Option<[f64; 2]>,
    /// `min(Mann–Whitney U, Kolmogorov–Smirnov)`, two-sided.
    pub p: Option<f64>,
    /// The smallest move that counts, in the unit.
    pub floor: Option<f64>,
    /// What the statistics say (absent for criteria compared by their verdicts).
    pub outcome: Option<Outcome>,
    /// The conclusion.
    pub verdict: Regression,
    /// Why, in words.
    pub reason: String,
    /// The criterion's statement (optional, no format change).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub statement: Option<String>,
    /// The device time both arms' runs of it took, in seconds (optional, no format change).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_seconds: Option<f64>,
}

/// Both audits' identities, as compared.
#[derive(schemars::JsonSchema, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Side {
    /// The report compared.
    pub report: String,
    /// SHA-256 of the report's file, as compared (since format 2: the comparison is bound to
    /// the reports it compared).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report_sha256: Option<String>,
    /// The lock it was held against.
    pub pack_sha256: String,
    /// The device.
    pub device: Option<DeviceInfo>,
    /// Where its readings came from (a replay says which capture), when the report says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<crate::device::Source>,
    /// The builds installed before it was audited, when a delivery or an A/B installed them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub installed: Vec<crate::audit::InstalledHap>,
}

/// `compare.json`.
#[derive(schemars::JsonSchema, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Comparison {
    /// `format::COMPARE` (2: bound by hash to its lock and both reports; 1 named them by path).
    pub format_version: u32,
    /// The dwpipe that compared.
    pub dwpipe_version: String,
    /// The overall conclusion.
    pub verdict: Regression,
    /// The lock whose criteria gave directions and floors, relative to this file's folder.
    pub lock: String,
    /// Its SHA-256 (since format 2): what the comparison was judged by.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lock_sha256: Option<String>,
    /// The baseline.
    pub baseline: Side,
    /// The candidate.
    pub candidate: Side,
    /// Every criterion measured in both by the same probe, in the pack's order.
    pub criteria: Vec<Compared>,
    /// What the comparison could not hold to its rules.
    pub diagnostics: Vec<Diagnostic>,
}
