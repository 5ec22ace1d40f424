//! The gate over an audit: dwpipe's own checks from its measurements (an outside auditor's
//! checks for what no probe measured, held against the measurements where both exist), and
//! the verdicts recomputed from them. A report is built from what this returns.

use std::collections::HashMap;

use crate::assertion::{Decimal, UnitContext};
use crate::device::Source;
use crate::diagnostic::Diagnostic;
use crate::gate::{CheckInput, CheckResult, Measurement, Verdict, recompute};
use crate::pack::{Criterion, Pack};

use super::model::{AuditRun, Audited, MeasurementRecord, RunReading};

impl AuditRun {
    /// Gates the run: its checks (and the outside auditor's), recomputed against `pack`.
    pub fn gate(self, pack: &Pack) -> Audited {
        self.gate_as(pack, crate::format::AUDIT)
    }

    /// Gates the run as a report of `format` words it: before format 3 a check's evidence
    /// named every run and stated no criterion (how `verify-evidence` rebuilds older reports).
    pub(crate) fn gate_as(self, pack: &Pack, format: u32) -> Audited {
        let wording = if format < 3 {
            Wording::EveryRun
        } else {
            Wording::Folded
        };
        let (checks, measurements) = checks(pack, &self.measurements, &self.auditor, wording);
        let density = self
            .device
            .virtual_pixel_ratio
            .and_then(|v| Decimal::parse(&v.to_string()).ok());
        let mut gate = recompute(pack, &checks, &measurements, UnitContext { density });
        if wording == Wording::EveryRun {
            for check in &mut gate.checks {
                check.statement = None;
            }
        }
        gate.diagnostics.extend(self.warnings);
        if let Some(states) = &self.states {
            gate.diagnostics.extend(states.diagnostics());
        }
        if let Some(why) = &self.lease_lost {
            gate.verdict = Verdict::Fail;
            gate.diagnostics.push(lease_lost(why));
        }
        let strict = self.inputs.as_ref().is_some_and(|i| i.strict);
        if let Some(unserved) = unserved(&self.source, strict) {
            if unserved.is_error() {
                gate.verdict = Verdict::Fail;
            }
            gate.diagnostics.push(unserved);
        }
        Audited {
            times: self.times,
            device: self.device,
            source: self.source,
            inputs: self.inputs,
            measurements: self.measurements,
            gate,
            figures: self.figures,
            states: self.states,
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
    wording: Wording,
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
                let own = own_check(criterion, m, wording);
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

/// How a check's evidence names the runs it was read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Wording {
    /// `run 1: X; run 2: X; run 3: X` (reports before format 3).
    EveryRun,
    /// `runs 1–3: X`: runs that say the same thing, once.
    Folded,
}

/// The runs' details, each once, after the runs that gave it (`runs 1–3, 5`), in the order
/// they first appear.
pub(crate) fn folded(runs: &[RunReading]) -> Vec<(String, &str)> {
    let mut details: Vec<(&str, Vec<u32>)> = Vec::new();
    for reading in runs {
        match details.iter_mut().find(|(d, _)| *d == reading.detail) {
            Some((_, numbers)) => numbers.push(reading.run),
            None => details.push((&reading.detail, vec![reading.run])),
        }
    }
    details
        .into_iter()
        .map(|(detail, numbers)| (runs_named(&numbers), detail))
        .collect()
}

/// `run 2`, `runs 1–3`, `runs 1, 3, 5–7` for ascending run numbers.
fn runs_named(numbers: &[u32]) -> String {
    let mut ranges: Vec<(u32, u32)> = Vec::new();
    for &n in numbers {
        match ranges.last_mut() {
            Some((_, end)) if *end + 1 == n => *end = n,
            _ => ranges.push((n, n)),
        }
    }
    let spans: Vec<String> = ranges
        .iter()
        .map(|&(start, end)| match end - start {
            0 => start.to_string(),
            1 => format!("{start}, {end}"),
            _ => format!("{start}–{end}"),
        })
        .collect();
    let noun = if numbers.len() == 1 { "run" } else { "runs" };
    format!("{noun} {}", spans.join(", "))
}

fn own_check(
    criterion: &Criterion,
    measurement: &MeasurementRecord,
    wording: Wording,
) -> CheckInput {
    let evidence = match wording {
        Wording::EveryRun => measurement
            .runs
            .iter()
            .map(|r| format!("run {}: {}", r.run, r.detail))
            .collect::<Vec<_>>(),
        Wording::Folded => folded(&measurement.runs)
            .into_iter()
            .map(|(runs, detail)| format!("{runs}: {detail}"))
            .collect(),
    }
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

/// The audit's lease was lost while it held the device: its readings may be another job's
/// doing, so the audit is incomplete (an environment error), whatever it measured.
fn lease_lost(why: &str) -> Diagnostic {
    Diagnostic::error(
        "E_LEASE_LOST",
        format!("the device's lease was lost {why}: another job may have driven the device during this audit, so its readings are not evidence"),
    )
    .fix("check the history's server and the network to it, then audit again")
}

#[cfg(test)]
mod tests;
