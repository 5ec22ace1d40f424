//! What a repair brief says failed: each criterion's measured value against what the pack asked,
//! or a verification command's failure with its output's tail.

use crate::gate::{AssertionVerdict, CheckResult};
use crate::pack::Frozen;
use crate::schema::{AuditReport, ReportCheck};
use crate::schema::{CommandOutcome, CommandStatus, VerifyReport};
use serde::Serialize;

/// A failure a repair brief reports.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct Failure {
    /// Criterion id (or the verification command's name).
    pub(crate) id: String,
    /// must or should (or `command`).
    pub(crate) weight: String,
    /// The criterion's statement (or the command line).
    pub(crate) statement: String,
    /// What was measured.
    pub(crate) actual: String,
    /// What is required.
    pub(crate) expected: String,
    /// Why it failed.
    pub(crate) reason: String,
}

impl Failure {
    /// A failed or unverified check of an audit report.
    pub(crate) fn from_check(frozen: &Frozen, entry: &ReportCheck) -> Failure {
        let check = &entry.check;
        let shown = |text: &Option<String>| text.clone().unwrap_or_else(|| "—".to_owned());
        Failure {
            id: check.criterion_id.clone(),
            weight: check.weight.as_str().to_owned(),
            statement: frozen
                .pack
                .criteria
                .iter()
                .find(|c| c.id == check.criterion_id)
                .map_or_else(|| "—".to_owned(), |c| c.statement.clone()),
            actual: shown(&check.actual),
            expected: shown(&check.expected),
            reason: check
                .reason
                .clone()
                .unwrap_or_else(|| check.evidence.clone()),
        }
    }

    /// A verification command that did not pass.
    pub(crate) fn from_command(command: &CommandOutcome) -> Failure {
        Failure {
            id: command.name.clone(),
            weight: "command".to_owned(),
            statement: command.command.clone(),
            actual: command.status.as_str().to_owned(),
            expected: "exit 0".to_owned(),
            reason: match (&command.reason, command.exit_code) {
                (Some(reason), _) => reason.clone(),
                (None, Some(code)) => format!("exited {code}"),
                (None, None) => command.status.as_str().to_owned(),
            },
        }
    }
}

/// The failures of an audit report: failed or unverified checks, and checks whose assertion
/// recomputed to fail.
pub(crate) fn failures_from_audit(frozen: &Frozen, report: &AuditReport) -> Vec<Failure> {
    report
        .checks
        .iter()
        .filter(|c| {
            c.check.result != CheckResult::Pass
                || c.check.assertion_verdict == AssertionVerdict::Fail
        })
        .map(|c| Failure::from_check(frozen, c))
        .collect()
}

/// The probe whose failures a repair brief quotes from the device.
const CRASHES_PROBE: &str = "stability.crashes";

/// What the platform recorded of the app's crashes and freezes in `report` (its
/// `stability.crashes` checks that did not pass), run by run, each line led by `on` (a lab's
/// device): the crash is what the agent must fix first, and what the app said as it crashed
/// is the app's text, for the brief to quote as untrusted.
pub(crate) fn crashes_from_audit(report: &AuditReport, on: Option<&str>) -> String {
    let on = on.map_or_else(String::new, |s| format!("{s}: "));
    report
        .checks
        .iter()
        .filter(|c| {
            c.check.result != CheckResult::Pass
                && c.measurements.iter().any(|m| m.probe == CRASHES_PROBE)
        })
        .flat_map(|check| {
            let id = &check.check.criterion_id;
            let on = &on;
            check
                .measurements
                .iter()
                .flat_map(|m| &m.runs)
                .map(move |run| format!("{on}{id} run {}: {}\n", run.run, run.detail))
        })
        .collect()
}

/// Where a repair brief says its quoted crashes come from.
pub(crate) const CRASHES_SOURCE: &str = "the device's fault records";

/// The failures of a verification report and their output, for quoting.
pub(crate) fn failures_from_verify(report: &VerifyReport) -> (Vec<Failure>, String) {
    let failed: Vec<&CommandOutcome> = report
        .commands
        .iter()
        .filter(|c| c.status != CommandStatus::Pass)
        .collect();
    // The compiler's own errors last, where the quoted tail keeps them: a long build's tail
    // has lost them by its end.
    let output = failed
        .iter()
        .map(|c| {
            let errors: String = c
                .errors
                .iter()
                .map(|e| {
                    let at = match (&e.file, e.line, e.column) {
                        (Some(file), Some(line), Some(column)) => {
                            format!("{file}:{line}:{column}: ")
                        }
                        (Some(file), Some(line), None) => format!("{file}:{line}: "),
                        (Some(file), None, _) => format!("{file}: "),
                        _ => String::new(),
                    };
                    let code = e
                        .code
                        .as_deref()
                        .map(|c| format!("[{c}] "))
                        .unwrap_or_default();
                    format!("error: {at}{code}{}\n", e.message)
                })
                .collect();
            if errors.is_empty() {
                format!("$ {}\n{}\n", c.command, c.output_tail)
            } else {
                format!(
                    "$ {}\n{}\nThe errors it reported (read as its output streamed):\n{errors}",
                    c.command, c.output_tail
                )
            }
        })
        .collect();
    (
        failed.into_iter().map(Failure::from_command).collect(),
        output,
    )
}
