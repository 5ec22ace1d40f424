//! The Goal brief for DevEco Code (or any agent) and the repair brief, rendered with
//! Handlebars in strict mode. A brief stands alone: Goal mode cannot ask questions when run
//! non-interactively, so it says the goal, every criterion with its assertion and how dwpipe
//! will measure it, the verification commands, and that the agent's PASS is not the verdict.

use serde::Serialize;

use crate::config::Config;
use crate::gate::{AssertionVerdict, CheckResult};
use crate::pack::{FlowView, Frozen};
use crate::schema::{AuditReport, ReportCheck};
use crate::template::{RenderError, render};
use crate::verify::{CommandOutcome, CommandStatus, VerifyReport};

/// How much failing output a repair brief quotes (its tail).
const OUTPUT_TAIL_CHARS: usize = 6000;

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct GoalView {
    bundle: String,
    ability: Option<String>,
    module: Option<String>,
    workspace: String,
    sha256: String,
    review_note: Option<String>,
    criteria: Vec<CriterionView>,
    flows: Vec<FlowView>,
    commands: Vec<CommandView>,
}

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct CriterionView {
    id: String,
    dimension: &'static str,
    weight: &'static str,
    statement: String,
    assertion: Option<String>,
    probe: Option<&'static str>,
    measured_by: Option<String>,
    verify: String,
}

#[derive(Serialize)]
struct CommandView {
    name: String,
    argv: String,
    timeout: String,
}

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

#[derive(Serialize)]
struct RepairView {
    round: u32,
    bundle: String,
    workspace: String,
    sha256: String,
    failures: Vec<Failure>,
    output: Option<String>,
    source: String,
    incomplete: Option<String>,
}

fn common(frozen: &Frozen, config: Option<&Config>) -> (String, String) {
    let workspace = config.map_or_else(|| ".".to_owned(), |c| c.workspace.display().to_string());
    (frozen.pack.doc.app.bundle.value.clone(), workspace)
}

/// The Goal brief. `review_note` says when the pack's review did not complete.
pub(crate) fn goal(
    frozen: &Frozen,
    config: Option<&Config>,
    review_note: Option<String>,
) -> Result<String, RenderError> {
    let (bundle, workspace) = common(frozen, config);
    let app = &frozen.pack.doc.app;
    let view = GoalView {
        bundle,
        ability: app.ability.as_ref().map(|a| a.value.clone()),
        module: app.module.as_ref().map(|m| m.value.clone()),
        workspace,
        sha256: frozen.lock.sha256.clone(),
        review_note,
        criteria: frozen
            .pack
            .criteria
            .iter()
            .map(|c| {
                let measured = c.assertion.as_ref().and_then(|a| a.probe.as_ref());
                CriterionView {
                    id: c.id.clone(),
                    dimension: c.dimension.as_str(),
                    weight: c.weight.as_str(),
                    statement: c.statement.clone(),
                    assertion: c
                        .assertion
                        .as_ref()
                        .map(|a| format!("`{}` {}", a.matcher, a.assertion)),
                    probe: measured.map(|m| m.kind.id),
                    measured_by: measured.map(crate::pack::MeasuredBy::method),
                    verify: c
                        .verify
                        .clone()
                        .unwrap_or_else(|| "an auditor's check with evidence".to_owned()),
                }
            })
            .collect(),
        flows: FlowView::all(&frozen.pack),
        commands: config
            .map(|c| {
                c.verify
                    .iter()
                    .map(|v| CommandView {
                        name: v.name.clone(),
                        argv: shown_argv(&v.argv),
                        timeout: format!("{}s", v.timeout.as_secs()),
                    })
                    .collect()
            })
            .unwrap_or_default(),
    };
    render("goal-brief.md", &view)
}

/// A repair brief for round `round`: the failures and, quoted as untrusted, the output.
pub(crate) fn repair(
    frozen: &Frozen,
    config: Option<&Config>,
    round: u32,
    failures: Vec<Failure>,
    output: Option<(&str, &str)>,
    incomplete: Option<&str>,
) -> Result<String, RenderError> {
    let (bundle, workspace) = common(frozen, config);
    let (source, output) = match output {
        Some((source, text)) => (
            source.to_owned(),
            Some(fence_safe(&tail(text, OUTPUT_TAIL_CHARS))),
        ),
        None => (String::new(), None),
    };
    render(
        "repair-brief.md",
        &RepairView {
            round,
            bundle,
            workspace,
            sha256: frozen.lock.sha256.clone(),
            failures,
            output,
            source,
            incomplete: incomplete.map(str::to_owned),
        },
    )
}

/// An argv as a person would type it (arguments with spaces in single quotes); for reading only.
fn shown_argv(argv: &[String]) -> String {
    argv.iter()
        .map(|a| {
            if a.contains(char::is_whitespace) {
                format!("'{a}'")
            } else {
                a.clone()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn tail(text: &str, chars: usize) -> String {
    let count = text.chars().count();
    if count <= chars {
        return text.to_owned();
    }
    let kept: String = text.chars().skip(count - chars).collect();
    format!("[… {} earlier characters cut …]\n{kept}", count - chars)
}

/// Untrusted output must not be able to close its own block.
fn fence_safe(text: &str) -> String {
    text.replace("</untrusted-tool-output", "<\\/untrusted-tool-output")
        .replace("<untrusted-tool-output", "<\\untrusted-tool-output")
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

#[cfg(test)]
mod tests;
