//! The gate over an audit: dwpipe's own checks from its measurements (an outside auditor's
//! checks for what no probe measured, held against the measurements where both exist), and
//! the verdicts recomputed from them. A report is built from what this returns.

use std::collections::HashMap;

use crate::assertion::{Decimal, UnitContext};
use crate::device::Source;
use crate::diagnostic::Diagnostic;
use crate::gate::{CheckInput, CheckResult, Measurement, Verdict, recompute};
use crate::pack::{Criterion, Pack};

use super::model::{AuditRun, Audited, MeasurementRecord};

impl AuditRun {
    /// Gates the run: its checks (and the outside auditor's), recomputed against `pack`.
    pub fn gate(self, pack: &Pack) -> Audited {
        let (checks, measurements) = checks(pack, &self.measurements, &self.auditor);
        let density = self
            .device
            .virtual_pixel_ratio
            .and_then(|v| Decimal::parse(&v.to_string()).ok());
        let mut gate = recompute(pack, &checks, &measurements, UnitContext { density });
        gate.diagnostics.extend(self.warnings);
        let strict = self.inputs.as_ref().is_some_and(|i| i.strict);
        if let Some(unserved) = unserved(&self.source, strict) {
            if unserved.is_error() {
                gate.verdict = Verdict::Fail;
            }
            gate.diagnostics.push(unserved);
        }
        Audited {
            device: self.device,
            source: self.source,
            inputs: self.inputs,
            measurements: self.measurements,
            gate,
            figures: self.figures,
        }
    }
}

/// A replay that left recorded exchanges unserved measured something other than what was
/// recorded: the capture and the audit disagree on what happens on the device.
fn unserved(source: &Source, strict: bool) -> Option<Diagnostic> {
    let Source::Replay {
        unserved,
        first_unserved,
        ..
    } = source
    else {
        return None;
    };
    if *unserved == 0 {
        return None;
    }
    let message = format!(
        "the replay left {unserved} recorded exchange(s) unserved, the first {}",
        first_unserved.as_deref().unwrap_or("unknown")
    );
    let fix = "replay a capture recorded with this pack and these playbooks, or record it again";
    Some(if strict {
        Diagnostic::error("E_CAPTURE_UNSERVED", message).fix(fix)
    } else {
        Diagnostic::warning("W_CAPTURE_UNSERVED", message).fix(fix)
    })
}

/// dwpipe's checks for the gate: its own measurements, and an outside auditor's checks for
/// what it did not measure (held against its measurements where both exist).
fn checks(
    pack: &Pack,
    measurements: &[MeasurementRecord],
    auditor: &[CheckInput],
) -> (Vec<CheckInput>, Vec<Measurement>) {
    let mut checks = Vec::new();
    let mut held = Vec::new();
    // By criterion id, the first of each (as the reports are read everywhere else).
    let mut their_checks: HashMap<&str, &CheckInput> = HashMap::new();
    for check in auditor {
        their_checks
            .entry(check.criterion_id.as_str())
            .or_insert(check);
    }
    let mut our_measurements: HashMap<&str, &MeasurementRecord> = HashMap::new();
    for measurement in measurements {
        our_measurements
            .entry(measurement.criterion_id.as_str())
            .or_insert(measurement);
    }
    for criterion in &pack.criteria {
        let theirs = their_checks.get(criterion.id.as_str()).copied();
        let ours = our_measurements.get(criterion.id.as_str()).copied();
        match (ours, theirs) {
            (Some(m), theirs) => {
                let own = own_check(criterion, m);
                if let (Some(actual), Some(resolution)) = (&m.actual, resolution_of(m)) {
                    held.push(Measurement {
                        criterion_id: criterion.id.clone(),
                        actual: actual.clone(),
                        resolution,
                    });
                }
                checks.push(theirs.cloned().unwrap_or(own));
            }
            (None, Some(theirs)) => checks.push(theirs.clone()),
            (None, None) => checks.push(CheckInput {
                criterion_id: criterion.id.clone(),
                result: CheckResult::Unverified,
                evidence: "no probe measures this criterion and no auditor report covers it"
                    .to_owned(),
                actual: None,
            }),
        }
    }
    (checks, held)
}

fn resolution_of(measurement: &MeasurementRecord) -> Option<Decimal> {
    Decimal::parse(&measurement.resolution.to_string()).ok()
}

fn own_check(criterion: &Criterion, measurement: &MeasurementRecord) -> CheckInput {
    let evidence = measurement
        .runs
        .iter()
        .map(|r| format!("run {}: {}", r.run, r.detail))
        .collect::<Vec<_>>()
        .join("; ");
    let Some(actual) = measurement.actual.clone() else {
        return CheckInput {
            criterion_id: criterion.id.clone(),
            result: CheckResult::Unverified,
            evidence,
            actual: None,
        };
    };
    let passed = criterion.assertion.as_ref().is_some_and(|a| {
        a.assertion
            .evaluate(&actual, UnitContext::default())
            .is_ok_and(|e| e.passed)
    });
    CheckInput {
        criterion_id: criterion.id.clone(),
        result: if passed {
            CheckResult::Pass
        } else {
            CheckResult::Fail
        },
        evidence,
        actual: Some(actual),
    }
}
