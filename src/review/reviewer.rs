//! The optional outside reviewer: any argv (an LLM CLI, a script) that reads the lock as JSON
//! on stdin and answers `{"verdict": "pass"|"revise", "findings": [...]}` on stdout.
//! Unparseable output, a non-zero exit, a timeout or silence are reviewer failures, never a pass.

use std::time::Duration;

use serde::Deserialize;

use crate::process::{Cancel, Completion, ProcessSpec, SpawnError, run};

/// What the reviewer answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ReviewerAnswer {
    /// The pack holds up.
    Pass,
    /// The pack needs changes; the findings say which.
    Revise(Vec<String>),
    /// No usable answer; why.
    Failure(String),
}

#[derive(Debug, Deserialize)]
struct VerdictDoc {
    verdict: String,
    #[serde(default)]
    findings: Vec<serde_json::Value>,
}

/// Parses a reviewer's stdout: the whole text as JSON, else a fenced ```json block.
pub(crate) fn parse_answer(stdout: &str) -> ReviewerAnswer {
    let trimmed = stdout.trim();
    if trimmed.is_empty() {
        return ReviewerAnswer::Failure("the reviewer printed nothing".to_owned());
    }
    let fenced = trimmed
        .split("```json")
        .nth(1)
        .and_then(|rest| rest.split("```").next());
    let doc: Option<VerdictDoc> = serde_json::from_str(trimmed)
        .ok()
        .or_else(|| fenced.and_then(|f| serde_json::from_str(f).ok()));
    let Some(doc) = doc else {
        return ReviewerAnswer::Failure(
            "the reviewer's answer is not a {\"verdict\", \"findings\"} JSON object".to_owned(),
        );
    };
    let findings: Vec<String> = doc
        .findings
        .iter()
        .map(|f| match f {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect();
    match doc.verdict.as_str() {
        "pass" if findings.is_empty() => ReviewerAnswer::Pass,
        "pass" => ReviewerAnswer::Failure("the reviewer says pass but lists findings".to_owned()),
        "revise" if !findings.is_empty() => ReviewerAnswer::Revise(findings),
        "revise" => {
            ReviewerAnswer::Failure("the reviewer says revise without a finding".to_owned())
        }
        other => ReviewerAnswer::Failure(format!("unknown verdict `{other}` (pass or revise)")),
    }
}

/// Runs the reviewer on the lock's JSON.
pub(crate) async fn ask(
    argv: &[String],
    timeout: Duration,
    lock_json: &str,
    cancel: &Cancel,
) -> ReviewerAnswer {
    let Some((program, args)) = argv.split_first() else {
        return ReviewerAnswer::Failure("no reviewer argv".to_owned());
    };
    let spec = ProcessSpec::new(program, args)
        .timeout(timeout)
        .stdin(lock_json.as_bytes().to_vec());
    match run(&spec, cancel).await {
        Err(SpawnError::NotFound { program }) => {
            ReviewerAnswer::Failure(format!("reviewer `{}` not found", program.display()))
        }
        Err(e) => ReviewerAnswer::Failure(crate::diagnostic::chain(&e)),
        Ok(outcome) => match outcome.completion {
            Completion::Exited(0) => parse_answer(&outcome.stdout.to_string_lossy()),
            Completion::Exited(code) => {
                ReviewerAnswer::Failure(format!("the reviewer exited {code}"))
            }
            Completion::Signalled(signal) => {
                ReviewerAnswer::Failure(format!("the reviewer was killed by signal {signal}"))
            }
            Completion::TimedOut => {
                ReviewerAnswer::Failure(format!("the reviewer did not answer within {timeout:?}"))
            }
            Completion::Cancelled => ReviewerAnswer::Failure("cancelled".to_owned()),
        },
    }
}

#[cfg(test)]
mod tests;
