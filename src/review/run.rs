//! The review of a lock: the built-in rules, then the outside reviewer (or its receipt from an
//! earlier run of the same lock), into the review's report.

use super::{ReviewReport, ReviewVerdict, ReviewerOutcome};
use super::{ReviewerAnswer, ask, builtin};
use crate::config::{FailMode, Review};
use crate::diagnostic::{Diagnostic, has_errors};
use crate::pack::Frozen;
use crate::process::Cancel;

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
