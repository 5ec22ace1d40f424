//! `audit-<n>.json`: the contract CI jobs read. Top level `format-version`, `pack-sha256`,
//! `verdict`, `diagnostics[]`, `checks[]`; CI fails a build on `"verdict": "fail"` without
//! parsing Markdown.

use std::collections::HashMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::audit::{Audited, DeviceStates, DeviceTime, Inputs, MeasurementRecord, Workspace};
use crate::device::{DeviceInfo, Source};
use crate::diagnostic::{Diagnostic, Severity};
use crate::gate::{AssertionVerdict, CheckOutcome, CheckResult, GateOutcome, Verdict};

/// An audit report.
#[derive(schemars::JsonSchema, Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct AuditReport {
    /// Schema version.
    pub format_version: u32,
    /// The dwpipe that recomputed the verdicts.
    pub dwpipe_version: String,
    /// The hash of the lock the audit was held against.
    pub pack_sha256: String,
    /// `pass` or `fail`.
    pub verdict: Verdict,
    /// Counts, for the summary line.
    pub summary: Summary,
    /// When the audit started on its device (UTC, ISO 8601; since format 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started: Option<String>,
    /// When it ended (since format 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended: Option<String>,
    /// The run's own name, made when it began (optional: audits that kept `times.json`):
    /// a copy of the audit under other times is still this run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// How long the audit held its device: every visit's time on the device's clock, sleeps
    /// included (since format 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_time: Option<DeviceTime>,
    /// The device's lease: the store, how long the audit waited for it, held from/to (a live
    /// device's; optional, no format change).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease: Option<crate::device::lease::LeaseRecord>,
    /// The workspace whose build was measured, when a delivery knows it (since format 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<Workspace>,
    /// What of this audit the history could not record, and why (a recorded fact): the
    /// audit stands, its history entry does not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unrecorded: Option<String>,
    /// What the device said of its state before its runs and after them (battery, power,
    /// heat, brightness, lock, refresh rate), read from the files kept among the inputs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_state: Option<DeviceStates>,
    /// The device measured (`null` for an outside auditor's report).
    pub device: Option<DeviceInfo>,
    /// Where the readings came from: the device, or the capture replayed (since format 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<Source>,
    /// What the audit was measured with, kept as evidence (since format 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inputs: Option<Inputs>,
    /// The lock, relative to this report's folder, so the verdicts can be recomputed.
    pub lock: Option<String>,
    /// Every finding.
    pub diagnostics: Vec<Diagnostic>,
    /// One entry per criterion, in pack order.
    pub checks: Vec<ReportCheck>,
}

/// A check with dwpipe's own measurements behind it.
#[derive(schemars::JsonSchema, Clone, Debug, Serialize, Deserialize)]
pub struct ReportCheck {
    /// The gate's verdict.
    #[serde(flatten)]
    pub check: CheckOutcome,
    /// dwpipe's measurements of the criterion: value, unit, runs, evidence files and hashes.
    pub measurements: Vec<MeasurementRecord>,
}

/// Counts over the checks and diagnostics.
#[derive(
    schemars::JsonSchema, Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub struct Summary {
    /// Criteria in the pack.
    pub criteria: usize,
    /// Checks that say pass.
    pub pass: usize,
    /// Checks that say fail.
    pub fail: usize,
    /// Criteria unverified or without a check.
    pub unverified: usize,
    /// Assertions that recomputed to fail.
    pub assertion_failures: usize,
    /// Error diagnostics.
    pub errors: usize,
    /// Warning diagnostics.
    pub warnings: usize,
}

impl AuditReport {
    /// The report of an outside auditor's checks, gated.
    pub fn of_gate(pack_sha256: &str, outcome: GateOutcome) -> AuditReport {
        AuditReport::measured(pack_sha256, outcome, None, None, &[])
    }

    /// Whether its device did not meet a precondition, and nothing was measured.
    pub(crate) fn not_audited(&self) -> bool {
        self.device_state
            .as_ref()
            .is_some_and(|s| !s.unmet.is_empty())
    }

    /// When and why its device's lease was lost while it held it: its readings may be
    /// another job's doing.
    pub(crate) fn lease_lost(&self) -> Option<&str> {
        self.lease.as_ref().and_then(|l| l.lost.as_deref())
    }

    /// Whether it is not evidence of the app: its device was not measured, or its lease was
    /// lost meanwhile (the environment's failure, not the app's).
    pub(crate) fn incomplete(&self) -> bool {
        self.not_audited() || self.lease_lost().is_some()
    }

    /// Whether it passed with something to look at: a warning, or a failed should criterion.
    pub(crate) fn warned(&self) -> bool {
        self.verdict == Verdict::Pass && (self.summary.warnings > 0 || self.failed_should() > 0)
    }

    /// How many should criteria failed (which never fail the audit).
    fn failed_should(&self) -> usize {
        self.checks
            .iter()
            .filter(|c| {
                c.check.weight == crate::pack::Weight::Should && c.check.result == CheckResult::Fail
            })
            .count()
    }

    /// Whether it failed only because criteria could not be measured: none failed, and no
    /// assertion did. Not shown to pass, and not the app's failure either.
    pub(crate) fn unproven(&self) -> bool {
        self.verdict == Verdict::Fail
            && self.summary.unverified > 0
            && self.summary.fail == 0
            && self.summary.assertion_failures == 0
    }

    /// Its outcome in one word, as every form says it: `pass`, `pass with warnings`,
    /// `unverified` ([`AuditReport::unproven`]) or `fail`.
    pub(crate) fn word(&self) -> &'static str {
        if self.warned() {
            "pass with warnings"
        } else if self.unproven() {
            "unverified"
        } else {
            self.verdict.as_str()
        }
    }

    /// Its outcome in words where it says more than its verdict does (for a lab's matrix):
    /// `pass with warnings (2 warning(s): W_MEASUREMENT_UNSTABLE)`, `unverified (3 criteria
    /// could not be measured)`. Never for an incomplete audit: a device not measured, or
    /// whose lease was lost, is said by its verdict.
    pub(crate) fn outcome(&self) -> Option<String> {
        if self.incomplete() {
            None
        } else if self.warned() {
            let mut codes: Vec<&str> = self
                .diagnostics
                .iter()
                .filter(|d| d.severity == Severity::Warning)
                .map(|d| d.code.as_str())
                .collect();
            codes.sort_unstable();
            codes.dedup();
            let should = self.failed_should();
            let mut said = Vec::new();
            if self.summary.warnings > 0 {
                said.push(format!(
                    "{} warning(s): {}",
                    self.summary.warnings,
                    codes.join(", ")
                ));
            }
            if should > 0 {
                said.push(format!("{should} should criterion failed"));
            }
            Some(format!("pass with warnings ({})", said.join("; ")))
        } else if self.unproven() {
            Some(format!(
                "unverified ({} criteria could not be measured)",
                self.summary.unverified
            ))
        } else {
            None
        }
    }

    /// `X-01: no window of com.example.notes in the dump; …`: why the unverified criteria
    /// were not measured, the first two, each one line.
    pub(crate) fn why_unverified(&self) -> String {
        let reasons: Vec<String> = self
            .checks
            .iter()
            .filter(|c| c.check.result == CheckResult::Unverified)
            .map(|c| {
                let why = c.check.reason.as_deref().unwrap_or(&c.check.evidence);
                format!(
                    "{}: {}",
                    c.check.criterion_id,
                    crate::text::one_line(why, crate::text::CELL)
                )
            })
            .collect();
        let shown = reasons
            .iter()
            .take(2)
            .cloned()
            .collect::<Vec<_>>()
            .join("; ");
        match reasons.len() {
            0..=2 => shown,
            n => format!("{shown}; {} more", n - 2),
        }
    }

    /// The report of an audit dwpipe measured and gated; it names the lock (relative to the
    /// report's folder) for `verify-evidence`: the copy the audit kept, else `lock`.
    pub fn of_audit(pack_sha256: &str, audited: &Audited, lock: Option<String>) -> AuditReport {
        let kept = audited
            .inputs
            .as_ref()
            .and_then(|inputs| inputs.lock.as_ref())
            .map(|copy| copy.path.clone());
        let lock = kept.or(lock);
        let mut report = AuditReport::measured(
            pack_sha256,
            audited.gate.clone(),
            Some(audited.device.clone()),
            lock,
            &audited.measurements,
        );
        report.source = Some(audited.source.clone());
        report.inputs = audited.inputs.clone();
        report.device_state = audited.states.clone();
        if let Some(times) = &audited.times {
            report.started = Some(times.started.clone());
            report.ended = Some(times.ended.clone());
            report.device_time = Some(times.device.clone());
            report.lease = times.lease.clone();
            report.run_id = Some(times.run_id.clone());
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
            run_id: None,
            device_time: None,
            lease: None,
            workspace: None,
            unrecorded: None,
            device_state: None,
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

    /// The JSON text of the report (pretty, stable field order).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("the report always serializes") + "\n"
    }
}
