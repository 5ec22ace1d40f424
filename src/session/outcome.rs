//! What a session gave, in any of its shapes, and what follows from it: the exit code, the
//! failures a repair brief quotes (each measured value naming its device in a lab), the files
//! written, what each report measured on, and the devices left unaudited.

use std::path::PathBuf;

use crate::brief::{Failure, crashes_from_audit, failures_from_audit};
use crate::device::Source;
use crate::diagnostic::chain;
use crate::exit_code;
use crate::gate::{CheckResult, Verdict};
use crate::pack::{Frozen, Weight};
use crate::schema::{AbLabReport, AuditReport, LabReport, Regression};

use super::ab::AbSession;
use super::seat::Seat;

/// A session's outcome.
#[derive(Debug)]
pub(crate) enum Outcome {
    /// One device (or a capture), audited.
    Audit {
        /// Its report.
        report: Box<AuditReport>,
        /// The files written, `audit-<n>.json` first.
        written: Vec<PathBuf>,
    },
    /// A lab, audited.
    Lab {
        /// The matrix.
        report: LabReport,
        /// Each device's report, or why it has none.
        seats: Vec<Seat>,
        /// The matrix's files.
        written: Vec<PathBuf>,
    },
    /// One device's A/B session.
    Ab(Box<AbSession>),
    /// A lab's A/B sessions.
    AbLab {
        /// The matrix.
        report: AbLabReport,
        /// Each device's session, or why it has none.
        seats: Vec<Seat<AbSession>>,
        /// The matrix's files.
        written: Vec<PathBuf>,
    },
}

impl Outcome {
    /// The exit code of the outcome: 0 pass, 1 a verdict failed (a regression or an
    /// inconclusive comparison too), 3 a lab where none failed but one could not be audited,
    /// or a pass the history could not record.
    pub(crate) fn exit_code(&self) -> i32 {
        let code = match self {
            Outcome::Audit { report, .. } => {
                exit_code::of_audit(report.verdict, report.incomplete())
            }
            Outcome::Lab { report, .. } => exit_code::of_lab(report.verdict),
            Outcome::Ab(session) => exit_code::of_ab(session.record.passed()),
            Outcome::AbLab { report, .. } => exit_code::of_lab(report.verdict),
        };
        exit_code::unless_unrecorded(code, !self.unrecorded().is_empty())
    }

    /// What the history could not record, and why: one line per report (an A/B session's
    /// per session), naming its device in a lab.
    pub(crate) fn unrecorded(&self) -> Vec<String> {
        let audits = self
            .reports()
            .into_iter()
            .filter(|_| matches!(self, Outcome::Audit { .. } | Outcome::Lab { .. }))
            .filter_map(|(serial, report)| Some(on(serial, report.unrecorded.as_deref()?)));
        let sessions = self.sessions().into_iter().filter_map(|(serial, session)| {
            Some(on(serial, session.record.unrecorded.as_deref()?))
        });
        audits.chain(sessions).collect()
    }

    /// The A/B sessions, each with the device's serial in a lab.
    fn sessions(&self) -> Vec<(Option<&str>, &AbSession)> {
        match self {
            Outcome::Ab(session) => vec![(None, &**session)],
            Outcome::AbLab { seats, .. } => seats
                .iter()
                .filter_map(|s| Some((Some(s.member.serial.as_str()), s.outcome.as_ref().ok()?)))
                .collect(),
            Outcome::Audit { .. } | Outcome::Lab { .. } => Vec::new(),
        }
    }

    /// Every file the session wrote last (an audit's reports; a lab's matrix; an A/B
    /// session's record, comparison and both arms' reports).
    pub(crate) fn written(&self) -> &[PathBuf] {
        match self {
            Outcome::Audit { written, .. }
            | Outcome::Lab { written, .. }
            | Outcome::AbLab { written, .. } => written,
            Outcome::Ab(session) => &session.written,
        }
    }

    /// Adds a file the session wrote after its reports (an attestation).
    pub(super) fn add_written(&mut self, path: PathBuf) {
        match self {
            Outcome::Audit { written, .. }
            | Outcome::Lab { written, .. }
            | Outcome::AbLab { written, .. } => written.push(path),
            Outcome::Ab(session) => session.written.push(path),
        }
    }

    /// The audits' reports, each with the device's serial in a lab.
    fn reports(&self) -> Vec<(Option<&str>, &AuditReport)> {
        match self {
            Outcome::Audit { report, .. } => vec![(None, &**report)],
            Outcome::Lab { seats, .. } => seats
                .iter()
                .filter_map(|s| Some((Some(s.member.serial.as_str()), s.outcome.as_ref().ok()?)))
                .collect(),
            Outcome::Ab(session) => vec![(None, &session.candidate)],
            Outcome::AbLab { seats, .. } => seats
                .iter()
                .filter_map(|s| {
                    let session = s.outcome.as_ref().ok()?;
                    Some((Some(s.member.serial.as_str()), &session.candidate))
                })
                .collect(),
        }
    }

    /// The crashes and freezes the platform recorded during the audits, for the repair
    /// brief to quote (none: `None`).
    pub(crate) fn crashes(&self) -> Option<String> {
        let quoted: String = self
            .reports()
            .into_iter()
            .map(|(serial, report)| crashes_from_audit(report, serial))
            .collect();
        (!quoted.is_empty()).then_some(quoted)
    }

    /// What failed, for the repair brief: every criterion that did not pass (in a lab, one
    /// failure with every device's value), then the must criteria an A/B session found worse
    /// than the baseline or could not show to be no worse.
    pub(crate) fn failures(&self, frozen: &Frozen) -> Vec<Failure> {
        let mut failures: Vec<Failure> = Vec::new();
        for (serial, report) in self.reports() {
            if report.verdict == Verdict::Pass {
                continue;
            }
            for mut failure in failures_from_audit(frozen, report) {
                if let Some(serial) = serial {
                    failure.actual = format!("{serial}: {}", failure.actual);
                }
                match failures.iter_mut().find(|f| f.id == failure.id) {
                    Some(known) => known.actual = format!("{}; {}", known.actual, failure.actual),
                    None => failures.push(failure),
                }
            }
        }
        for (serial, session) in self.sessions() {
            let worse = session.comparison.criteria.iter().filter(|c| {
                c.weight == Weight::Must
                    && matches!(c.verdict, Regression::Regressed | Regression::Inconclusive)
            });
            for compared in worse {
                let statement = frozen
                    .pack
                    .criteria
                    .iter()
                    .find(|c| c.id == compared.criterion_id)
                    .map_or_else(String::new, |c| c.statement.clone());
                let unit = compared.unit.as_deref().unwrap_or("");
                let median =
                    |m: Option<f64>| m.map_or_else(|| "—".to_owned(), |v| format!("{v}{unit}"));
                let on = serial.map_or_else(String::new, |s| format!("{s}: "));
                failures.push(Failure {
                    id: compared.criterion_id.clone(),
                    weight: compared.weight.as_str().to_owned(),
                    statement,
                    actual: format!(
                        "{on}median {} against the baseline's {}",
                        median(compared.candidate.median),
                        median(compared.baseline.median)
                    ),
                    expected: "no worse than the last release".to_owned(),
                    reason: format!("{}: {}", compared.verdict, compared.reason),
                });
            }
        }
        failures
    }

    /// Each criterion's result in words, in the pack's order: the one report's result, or
    /// over a lab who did what (`fail on LAB02`).
    pub(crate) fn criteria(&self) -> Vec<(String, String)> {
        match self {
            Outcome::Lab { report, .. } => report
                .rows
                .iter()
                .map(|row| (row.criterion_id.clone(), report.across(row)))
                .collect(),
            _ => self
                .reports()
                .first()
                .map(|(_, report)| {
                    report
                        .checks
                        .iter()
                        .map(|c| {
                            let check = &c.check;
                            // What was measured against what, where there is a number.
                            let result = match (&check.actual, &check.expected) {
                                // Why it could not be verified, in a line.
                                _ if check.result == CheckResult::Unverified => format!(
                                    "unverified: {}",
                                    crate::text::one_line(&check.evidence, crate::text::LINE)
                                ),
                                (Some(actual), Some(expected)) => format!(
                                    "{}: {actual} (threshold {expected})",
                                    check.result.as_str()
                                ),
                                _ => check.result.as_str().to_owned(),
                            };
                            (check.criterion_id.clone(), result)
                        })
                        .collect()
                })
                .unwrap_or_default(),
        }
    }

    /// What each report measured on: each device, or the capture replayed.
    pub(crate) fn sources(&self) -> Vec<Source> {
        self.reports()
            .into_iter()
            .filter_map(|(_, report)| report.source.clone())
            .collect()
    }

    /// The lab's devices that have no report, each with why.
    /// The devices that did not meet a precondition on their state, and which: nothing of
    /// them was measured (`serial: why` in a lab).
    pub(crate) fn not_ready(&self) -> Vec<String> {
        self.reports()
            .into_iter()
            .filter(|(_, report)| report.not_audited())
            .filter_map(|(serial, report)| {
                let unmet = report.device_state.as_ref()?.unmet.join("; ");
                Some(on(serial, &unmet))
            })
            .collect()
    }

    pub(crate) fn unaudited(&self) -> Vec<String> {
        match self {
            Outcome::Lab { seats, .. } => unaudited(seats),
            Outcome::AbLab { seats, .. } => unaudited(seats),
            Outcome::Audit { .. } | Outcome::Ab(_) => Vec::new(),
        }
    }
}

/// `text`, naming the lab's device it is about.
fn on(serial: Option<&str>, text: &str) -> String {
    serial.map_or_else(|| text.to_owned(), |serial| format!("{serial}: {text}"))
}

/// The seats without an outcome: `serial: why`.
fn unaudited<T>(seats: &[Seat<T>]) -> Vec<String> {
    seats
        .iter()
        .filter_map(|s| {
            let error = s.outcome.as_ref().err()?;
            Some(format!("{}: {}", s.member.serial, chain(error)))
        })
        .collect()
}
