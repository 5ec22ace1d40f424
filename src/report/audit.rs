//! `audit-<n>.json`: the contract CI jobs read. Top level `format-version`, `pack-sha256`,
//! `verdict`, `diagnostics[]`, `checks[]`; CI fails a build on `"verdict": "fail"` without
//! parsing Markdown.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::audit::{Audited, DeviceTime, Figures, Inputs, MeasurementRecord, Workspace, folded};
use crate::device::{DeviceInfo, Source};
use crate::diagnostic::{Diagnostic, Severity};
use crate::gate::{AssertionVerdict, CheckOutcome, CheckResult, GateOutcome, Verdict};
use crate::output::{PublishError, publish_numbered, write_atomic};
use crate::pack::Pack;
use crate::template::render;

/// An audit report.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct AuditReport {
    /// Schema version.
    pub(crate) format_version: u32,
    /// The dwpipe that recomputed the verdicts.
    pub(crate) dwpipe_version: String,
    /// The hash of the lock the audit was held against.
    pub(crate) pack_sha256: String,
    /// `pass` or `fail`.
    pub(crate) verdict: Verdict,
    /// Counts, for the summary line.
    pub(crate) summary: Summary,
    /// When the audit started on its device (UTC, ISO 8601; since format 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) started: Option<String>,
    /// When it ended (since format 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) ended: Option<String>,
    /// How long the audit held its device: every visit's time on the device's clock, sleeps
    /// included (since format 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) device_time: Option<DeviceTime>,
    /// The workspace whose build was measured, when a delivery knows it (since format 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) workspace: Option<Workspace>,
    /// The device measured (`null` for an outside auditor's report).
    pub(crate) device: Option<DeviceInfo>,
    /// Where the readings came from: the device, or the capture replayed (since format 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) source: Option<Source>,
    /// What the audit was measured with, kept as evidence (since format 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) inputs: Option<Inputs>,
    /// The lock, relative to this report's folder, so the verdicts can be recomputed.
    pub(crate) lock: Option<String>,
    /// Every finding.
    pub(crate) diagnostics: Vec<Diagnostic>,
    /// One entry per criterion, in pack order.
    pub(crate) checks: Vec<ReportCheck>,
}

/// A check with dwpipe's own measurements behind it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct ReportCheck {
    /// The gate's verdict.
    #[serde(flatten)]
    pub(crate) check: CheckOutcome,
    /// dwpipe's measurements of the criterion: value, unit, runs, evidence files and hashes.
    pub(crate) measurements: Vec<MeasurementRecord>,
}

/// Counts over the checks and diagnostics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Summary {
    /// Criteria in the pack.
    pub(crate) criteria: usize,
    /// Checks that say pass.
    pub(crate) pass: usize,
    /// Checks that say fail.
    pub(crate) fail: usize,
    /// Criteria unverified or without a check.
    pub(crate) unverified: usize,
    /// Assertions that recomputed to fail.
    pub(crate) assertion_failures: usize,
    /// Error diagnostics.
    pub(crate) errors: usize,
    /// Warning diagnostics.
    pub(crate) warnings: usize,
}

/// What `audit-<n>.md` is rendered from: the report, and each measurement's runs with those
/// that say the same thing named once.
#[derive(Serialize)]
struct MarkdownView<'a> {
    #[serde(flatten)]
    report: &'a AuditReport,
    /// By criterion: which runs read what.
    readings: BTreeMap<&'a str, Vec<Reading<'a>>>,
    /// How long the device was held, in words.
    device_time: Option<String>,
}

/// Runs (`runs 1–3`) and what they were read from.
#[derive(Serialize)]
struct Reading<'a> {
    runs: String,
    detail: &'a str,
}

impl<'a> MarkdownView<'a> {
    fn of(report: &'a AuditReport) -> Self {
        let readings = report
            .checks
            .iter()
            .flat_map(|c| &c.measurements)
            .map(|m| {
                let runs = folded(&m.runs)
                    .into_iter()
                    .map(|(runs, detail)| Reading { runs, detail })
                    .collect();
                (m.criterion_id.as_str(), runs)
            })
            .collect();
        MarkdownView {
            report,
            readings,
            device_time: report.device_time.as_ref().map(DeviceTime::summary),
        }
    }
}

impl AuditReport {
    /// The report of an outside auditor's checks, gated.
    pub fn of_gate(pack_sha256: &str, outcome: GateOutcome) -> AuditReport {
        AuditReport::measured(pack_sha256, outcome, None, None, &[])
    }

    /// The report of an audit dwpipe measured and gated; `lock` names the lock (relative to
    /// the report's folder) for `verify-evidence`.
    pub fn of_audit(pack_sha256: &str, audited: &Audited, lock: Option<String>) -> AuditReport {
        let mut report = AuditReport::measured(
            pack_sha256,
            audited.gate.clone(),
            Some(audited.device.clone()),
            lock,
            &audited.measurements,
        );
        report.source = Some(audited.source.clone());
        report.inputs = audited.inputs.clone();
        if let Some(times) = &audited.times {
            report.started = Some(times.started.clone());
            report.ended = Some(times.ended.clone());
            report.device_time = Some(times.device.clone());
        }
        report
    }

    fn measured(
        pack_sha256: &str,
        outcome: GateOutcome,
        device: Option<DeviceInfo>,
        lock: Option<String>,
        measurements: &[MeasurementRecord],
    ) -> AuditReport {
        let count = |result| outcome.checks.iter().filter(|c| c.result == result).count();
        let summary = Summary {
            criteria: outcome.checks.len(),
            pass: count(CheckResult::Pass),
            fail: count(CheckResult::Fail),
            unverified: count(CheckResult::Unverified),
            assertion_failures: outcome
                .checks
                .iter()
                .filter(|c| c.assertion_verdict == AssertionVerdict::Fail)
                .count(),
            errors: outcome.diagnostics.iter().filter(|d| d.is_error()).count(),
            warnings: outcome
                .diagnostics
                .iter()
                .filter(|d| d.severity == Severity::Warning)
                .count(),
        };
        AuditReport {
            format_version: crate::format::AUDIT,
            dwpipe_version: env!("CARGO_PKG_VERSION").to_owned(),
            pack_sha256: pack_sha256.to_owned(),
            verdict: outcome.verdict,
            summary,
            started: None,
            ended: None,
            device_time: None,
            workspace: None,
            device,
            source: None,
            inputs: None,
            lock,
            diagnostics: outcome.diagnostics,
            checks: {
                let mut by_criterion: HashMap<&str, Vec<MeasurementRecord>> = HashMap::new();
                for m in measurements {
                    by_criterion
                        .entry(m.criterion_id.as_str())
                        .or_default()
                        .push(m.clone());
                }
                outcome
                    .checks
                    .into_iter()
                    .map(|check| ReportCheck {
                        measurements: by_criterion
                            .remove(check.criterion_id.as_str())
                            .unwrap_or_default(),
                        check,
                    })
                    .collect()
            },
        }
    }

    /// Writes `audit-<n>.json` and `audit-<n>.md` into `out` (n the next free number);
    /// returns their paths.
    pub(crate) fn publish_numbered(&self, out: &Path) -> Result<Vec<PathBuf>, PublishError> {
        let json = self.to_json();
        let markdown = self.markdown()?;
        let (_, paths) = publish_numbered(
            out,
            "audit",
            &[("json", json.as_bytes()), ("md", markdown.as_bytes())],
        )?;
        Ok(paths)
    }

    /// Writes every form of the report into `out`: `audit-<n>.json` and `audit-<n>.md`,
    /// `junit.xml` and `report.html` (drawn from the audit's `figures`); returns their paths.
    pub(crate) fn publish(
        &self,
        pack: &Pack,
        figures: &Figures,
        out: &Path,
    ) -> Result<Vec<PathBuf>, PublishError> {
        let mut paths = self.publish_numbered(out)?;
        for (name, text) in [
            ("junit.xml", super::junit(self)),
            ("report.html", super::html(self, figures, pack)),
        ] {
            let path = out.join(name);
            write_atomic(&path, text.as_bytes())?;
            paths.push(path);
        }
        Ok(paths)
    }

    /// Refuses a report of a format newer than this dwpipe reads, as the error `code` of the
    /// command reading `path`.
    pub(crate) fn readable(&self, path: &Path, code: &str) -> Result<(), Diagnostic> {
        if self.format_version <= crate::format::AUDIT {
            return Ok(());
        }
        Err(Diagnostic::error(
            code,
            format!(
                "`{}` is an audit report of format-version {}, written by dwpipe {}; this dwpipe \
                 {} reads format-version 1 to {}",
                path.display(),
                self.format_version,
                self.dwpipe_version,
                env!("CARGO_PKG_VERSION"),
                crate::format::AUDIT
            ),
        )
        .fix(format!(
            "read it with dwpipe {} or newer",
            self.dwpipe_version
        )))
    }

    /// The Markdown text of the report (`audit-<n>.md`).
    pub fn markdown(&self) -> Result<String, crate::template::RenderError> {
        render("audit.md", &MarkdownView::of(self))
    }

    /// The JSON text of the report (pretty, stable field order).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("the report always serializes") + "\n"
    }
}
