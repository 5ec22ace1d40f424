//! The adversarial pre-review (DESIGN §4): built-in rules, then the optional outside reviewer,
//! bound to the lock's SHA-256. An unchanged lock is never reviewed twice; rounds are bounded;
//! `fail-mode` decides what a failed or exhausted review does.

mod reviewer;
mod rules;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::config::{FailMode, Review};
use crate::diagnostic::{Diagnostic, has_errors};
use crate::output::{PublishError, publish_numbered};
use crate::pack::Frozen;
use crate::process::Cancel;
use crate::template::render;
use crate::words::words;

pub(crate) use reviewer::{ReviewerAnswer, ask};
pub(crate) use rules::builtin;

words! {
    /// The review's verdict on a lock.
    pub(crate) enum ReviewVerdict {
        /// The rules and the reviewer found nothing.
        Pass = "pass",
        /// The pack must change before dispatch.
        Revise = "revise",
        /// The outside review was waived (`--no-review`), recorded.
        Waived = "waived",
        /// The review failed or ran out of rounds; fail-mode `open`/`warn` lets delivery go on.
        Incomplete = "incomplete",
        /// The review failed or ran out of rounds under fail-mode `closed`: no dispatch.
        Blocked = "blocked",
    }
}

words! {
    /// What the outside reviewer did.
    pub(crate) enum ReviewerOutcome {
        /// It answered pass.
        Pass = "pass",
        /// It answered revise, with findings.
        Revise = "revise",
        /// It gave no usable answer.
        Failure = "failure",
        /// It was waived for this run.
        Waived = "waived",
        /// None is configured.
        NotConfigured = "not-configured",
        /// The built-in rules already refused the pack, so it was not asked.
        NotAsked = "not-asked",
    }
}

impl ReviewVerdict {
    /// Whether the review ran to its end (the built-in rules and the reviewer, if any, gave
    /// their answer): only such a review stands for later runs.
    pub(crate) fn is_complete(self) -> bool {
        matches!(self, ReviewVerdict::Pass | ReviewVerdict::Revise)
    }

    /// Whether delivery may go on.
    pub(crate) fn allows_dispatch(self) -> bool {
        matches!(
            self,
            ReviewVerdict::Pass | ReviewVerdict::Waived | ReviewVerdict::Incomplete
        )
    }
}

/// `review-<n>.json`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct ReviewReport {
    /// Report format.
    pub(crate) format_version: u32,
    /// The lock reviewed.
    pub(crate) pack_sha256: String,
    /// The verdict.
    pub(crate) verdict: ReviewVerdict,
    /// Which revise round this was (1-based).
    pub(crate) round: u32,
    /// What the outside reviewer did.
    pub(crate) reviewer: ReviewerOutcome,
    /// The reviewer's findings or failure reason.
    pub(crate) reviewer_notes: Vec<String>,
    /// Built-in findings and the review's own diagnostics.
    pub(crate) diagnostics: Vec<Diagnostic>,
}

/// Finds the latest completed review of the same lock in `out` (never review an unchanged lock
/// twice; but a review that failed, ran out or was waived proves nothing about the next run,
/// so the lock is reviewed again), and counts the revise rounds so far.
fn earlier(out: &Path, sha256: &str) -> (Option<(String, ReviewReport)>, u32) {
    let mut same = None;
    let mut revises = 0;
    let Ok(entries) = std::fs::read_dir(out) else {
        return (None, 0);
    };
    // In the order they were written: review-2 before review-10.
    let mut numbered: Vec<(u32, String)> = entries
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|n| {
            let number = n
                .strip_prefix("review-")?
                .strip_suffix(".json")?
                .parse()
                .ok()?;
            Some((number, n))
        })
        .collect();
    numbered.sort();
    for (_, name) in numbered {
        let Some(report) = crate::input::read_bounded(
            &out.join(&name),
            crate::input::MAX_REPORT_BYTES,
            "a review report",
        )
        .ok()
        .and_then(|t| serde_json::from_slice::<ReviewReport>(&t).ok()) else {
            continue;
        };
        if report.verdict == ReviewVerdict::Revise {
            revises += 1;
        }
        if report.pack_sha256 == sha256 && report.verdict.is_complete() {
            same = Some((name, report));
        }
    }
    (same, revises)
}

/// A lock's review report in the reviews folder: reused when the lock was reviewed before,
/// written now otherwise.
#[derive(Debug)]
pub(crate) struct Receipt {
    /// The review report (`review-<n>.json`).
    pub(crate) path: PathBuf,
    /// What it says.
    pub(crate) report: ReviewReport,
    /// The files written now (none for a reused receipt).
    pub(crate) written: Vec<PathBuf>,
}

/// Why a review left no receipt.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ReceiptError {
    /// The waiver is not allowed.
    #[error(transparent)]
    Waiver(#[from] WaiverRefused),
    /// A signal cut the review short: no receipt, so the lock is reviewed again.
    #[error("the review was interrupted")]
    Interrupted,
    /// The report could not be written.
    #[error(transparent)]
    Publish(#[from] PublishError),
}

/// The receipt of `frozen` in `dir`: the earlier review of the same lock, or a review now
/// (counting the revise rounds before it) published as `review-<n>.json` and `.md`.
pub(crate) async fn receipt(
    frozen: &Frozen,
    settings: &Review,
    dir: &Path,
    waive: bool,
    cancel: &Cancel,
) -> Result<Receipt, ReceiptError> {
    let (same, revises) = earlier(dir, &frozen.lock.sha256);
    if let Some((name, report)) = same {
        return Ok(Receipt {
            path: dir.join(name),
            report,
            written: Vec::new(),
        });
    }
    let report = review(frozen, settings, revises, waive, cancel).await?;
    if cancel.is_cancelled() {
        return Err(ReceiptError::Interrupted);
    }
    let text = serde_json::to_string_pretty(&report).expect("a review serializes") + "\n";
    let markdown = render("review.md", &report).map_err(PublishError::from)?;
    let files = [("json", text.as_bytes()), ("md", markdown.as_bytes())];
    let (_, written) = publish_numbered(dir, "review", &files).map_err(PublishError::from)?;
    Ok(Receipt {
        path: written[0].clone(),
        report,
        written,
    })
}

/// `--no-review` asked under fail-mode `closed`, which the config does not allow.
#[derive(Debug, thiserror::Error)]
#[error("--no-review is refused under fail-mode closed")]
pub(crate) struct WaiverRefused;

/// Reviews a frozen pack; `rounds_so_far` counts earlier revise rounds of this run.
pub(crate) async fn review(
    frozen: &Frozen,
    settings: &Review,
    rounds_so_far: u32,
    waive: bool,
    cancel: &Cancel,
) -> Result<ReviewReport, WaiverRefused> {
    let mut diagnostics = builtin(&frozen.pack);
    let round = rounds_so_far + 1;
    let mut report = ReviewReport {
        format_version: crate::format::REVIEW,
        pack_sha256: frozen.lock.sha256.clone(),
        verdict: ReviewVerdict::Pass,
        round,
        reviewer: ReviewerOutcome::NotConfigured,
        reviewer_notes: Vec::new(),
        diagnostics: Vec::new(),
    };
    if has_errors(&diagnostics) {
        report.verdict = ReviewVerdict::Revise;
        report.reviewer = ReviewerOutcome::NotAsked;
        report.diagnostics = diagnostics;
        return Ok(report);
    }
    if waive {
        if settings.fail_mode == FailMode::Closed && !settings.allow_waiver_when_closed {
            return Err(WaiverRefused);
        }
        report.verdict = ReviewVerdict::Waived;
        report.reviewer = ReviewerOutcome::Waived;
        report.diagnostics = diagnostics;
        return Ok(report);
    }
    let Some((argv, timeout)) = &settings.reviewer else {
        report.diagnostics = diagnostics;
        return Ok(report);
    };
    let lock_json = serde_json::to_string(&frozen.lock).expect("a lock serializes");
    let failure = match ask(argv, *timeout, &lock_json, cancel).await {
        ReviewerAnswer::Pass => {
            report.reviewer = ReviewerOutcome::Pass;
            None
        }
        ReviewerAnswer::Revise(findings) => {
            report.reviewer = ReviewerOutcome::Revise;
            for finding in &findings {
                diagnostics.push(
                    Diagnostic::warning("W_REVIEW_FINDING", finding.clone())
                        .fix("revise the pack and freeze it again"),
                );
            }
            report.reviewer_notes = findings;
            (round >= settings.max_rounds).then(|| {
                format!(
                    "the review ran out of rounds ({} of {})",
                    round, settings.max_rounds
                )
            })
        }
        ReviewerAnswer::Failure(reason) => {
            report.reviewer = ReviewerOutcome::Failure;
            report.reviewer_notes = vec![reason.clone()];
            Some(format!("the outside reviewer failed: {reason}"))
        }
    };
    report.verdict = match (&failure, report.reviewer, settings.fail_mode) {
        (None, ReviewerOutcome::Revise, _) => ReviewVerdict::Revise,
        (None, _, _) => ReviewVerdict::Pass,
        (Some(_), _, FailMode::Open) => ReviewVerdict::Incomplete,
        (Some(reason), _, FailMode::Warn) => {
            diagnostics.push(
                Diagnostic::warning(
                    "W_REVIEW_INCOMPLETE",
                    format!("{reason}; the pack's review did not complete"),
                )
                .fix("the brief and the reports will say so"),
            );
            ReviewVerdict::Incomplete
        }
        (Some(reason), _, FailMode::Closed) => {
            diagnostics.push(
                Diagnostic::error(
                    "E_REVIEW_BLOCKED",
                    format!("{reason}; fail-mode closed stops before dispatch"),
                )
                .fix("fix the reviewer or the pack, or allow a waiver in dwpipe.yaml"),
            );
            ReviewVerdict::Blocked
        }
    };
    report.diagnostics = diagnostics;
    Ok(report)
}

#[cfg(test)]
mod tests;
