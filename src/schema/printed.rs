//! What commands print with `--json` besides the documents they keep: the freeze's result,
//! the probe catalog, the run folders, the history's points and shifts, an import's counts,
//! an A/B session with its comparison. Each has its own `format-version`.

use serde::{Deserialize, Serialize};

use crate::diagnostic::Diagnostic;
use crate::pack::ProbeRef;

use super::{AbRecord, Comparison};

/// `dwpipe freeze --json`: what the command did (the lock itself is the document kept).
#[derive(schemars::JsonSchema, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct FreezeOutput<'a> {
    /// `format::FREEZE`.
    pub(crate) format_version: u32,
    /// The lock's hash.
    pub(crate) sha256: &'a str,
    /// Criteria in the pack.
    pub(crate) criteria: usize,
    /// Where the lock was written.
    pub(crate) lock: String,
    /// Where `spec.md` was written.
    pub(crate) spec: String,
    /// The warnings sealed with the pack.
    pub(crate) diagnostics: &'a [Diagnostic],
}

/// What a refused command prints under `--json`: every diagnostic, each with its code,
/// location and fix.
#[derive(schemars::JsonSchema, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct DiagnosticsOutput<'a> {
    /// `format::DIAGNOSTICS`.
    pub(crate) format_version: u32,
    /// The findings.
    pub(crate) diagnostics: &'a [Diagnostic],
}

/// `dwpipe probes --json`.
#[derive(schemars::JsonSchema, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct ProbesOutput {
    /// `format::PROBES`.
    pub(crate) format_version: u32,
    /// The release the probes were held against (`--api-level`): `OpenHarmony 4.1 (API 11)`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) release: Option<String>,
    /// The catalog.
    pub(crate) probes: Vec<ProbeOnReleaseDoc>,
}

/// One probe of `dwpipe probes --json`, and how it fares on the release asked about.
#[derive(schemars::JsonSchema, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct ProbeOnReleaseDoc {
    /// The probe.
    #[serde(flatten)]
    pub(crate) probe: ProbeRef,
    /// What the release lets the shell read of it (with `--api-level`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) release: Option<crate::playbook::ProbeOnRelease>,
}

/// `dwpipe runs --json`.
#[derive(schemars::JsonSchema, Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct RunsOutput {
    /// `format::RUNS`.
    pub format_version: u32,
    /// The run folders, newest first.
    pub runs: Vec<RunListing>,
}

/// One run folder.
#[derive(schemars::JsonSchema, Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct RunListing {
    /// The folder's name: what `deliver --resume` takes.
    pub id: String,
    /// When it started (UTC), from the id.
    pub started: Option<String>,
    /// The pack's hash, from `run.json`.
    pub pack_sha256: Option<String>,
    /// How it ended (`deliver.json`); absent while it runs or after it was cut off.
    pub terminal_reason: Option<String>,
    /// The report to open, relative to the run folder.
    pub report: Option<String>,
}

/// One audit's reading of a criterion, as the history gives it back.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Point {
    /// The audit's row.
    pub run: i64,
    /// When it was recorded (UTC, ISO 8601).
    pub recorded_at: String,
    /// The report, as recorded.
    pub report: String,
    /// The app.
    pub app: String,
    /// Its version, when known.
    pub app_version: Option<String>,
    /// The workspace's commit, when known.
    pub commit: Option<String>,
    /// The lock.
    pub pack_sha256: String,
    /// The device.
    pub serial: String,
    /// Its model.
    pub model: Option<String>,
    /// Its software version.
    pub software_version: Option<String>,
    /// Its refresh rate, when recorded.
    pub refresh_rate: Option<f64>,
    /// Whether the audit replayed a capture.
    pub replay: bool,
    /// The criterion.
    pub criterion: String,
    /// Its unit.
    pub unit: Option<String>,
    /// The aggregate of its runs.
    pub value: Option<f64>,
    /// Its check's result (`pass`, `fail`, `unverified`).
    pub verdict: String,
    /// Every run's value.
    pub runs: Vec<f64>,
    /// The A/B session's arm the audit was (`baseline`, `candidate`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arm: Option<String>,
}

/// `dwpipe history --json`: the points, oldest first.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct SeriesOutput {
    /// `format::HISTORY`.
    pub format_version: u32,
    /// The points.
    pub points: Vec<Point>,
}

/// Where a criterion's series shifted on a device model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Shift {
    /// The criterion.
    pub criterion: String,
    /// The device model of the series.
    pub device_model: Option<String>,
    /// The first audit after the change.
    pub run: i64,
    /// When that audit was recorded.
    pub recorded_at: String,
    /// Its report.
    pub report: String,
    /// The series' mean before the change, in the unit.
    pub before: f64,
    /// And after it.
    pub after: f64,
    /// The unit.
    pub unit: Option<String>,
    /// The permutation test's p.
    pub p: f64,
}

/// `dwpipe history --changes --json`.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct ShiftsOutput {
    /// `format::HISTORY`.
    pub format_version: u32,
    /// The shifts.
    pub changes: Vec<Shift>,
    /// The latest audits of each series searched at most (`null`: every audit).
    pub window: Option<usize>,
    /// What was searched of each series.
    pub series: Vec<Searched>,
}

/// What `history --changes` searched of one series.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Searched {
    /// The criterion.
    pub criterion: String,
    /// The device model of the series.
    pub device_model: Option<String>,
    /// Its audits in the history (within the query's filters).
    pub audits: usize,
    /// The latest of them searched.
    pub searched: usize,
    /// When the first audit searched was recorded.
    pub since: Option<String>,
}

/// What `dwpipe history import` recorded (its `--json`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Imported {
    /// Audits recorded.
    pub audits: usize,
    /// Comparisons recorded.
    pub comparisons: usize,
    /// Reports the history already had (the same report, however copied or re-serialized).
    pub known: usize,
    /// Audits among `audits` recorded without their evidence: their verdicts re-gated from
    /// their own readings agree, but nothing rebuilt them (never a baseline).
    pub unverified: usize,
    /// Files that could not be recorded, and why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refused: Vec<Refused>,
}

/// A file an import could not record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Refused {
    /// The file.
    pub file: String,
    /// Why.
    pub reason: String,
}

impl Imported {
    /// Notes a file that could not be recorded.
    pub(crate) fn refuse(&mut self, file: &std::path::Path, reason: String) {
        self.refused.push(Refused {
            file: file.display().to_string(),
            reason,
        });
    }
}

/// `dwpipe audit --baseline-hap … --json` on one device: the session's record and its
/// comparison, side by side (each keeps its own `format-version`).
#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct AbOutput<'a> {
    /// `ab.json`.
    pub(crate) session: &'a AbRecord,
    /// `compare.json`.
    pub(crate) compared: &'a Comparison,
}
