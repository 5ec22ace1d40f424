//! A review's receipt: the report an earlier run wrote for the same lock and reviewer, reused
//! only when it reads back.

use super::{ReviewReport, ReviewVerdict, WaiverRefused, review};
use crate::config::Review;
use crate::output::{PublishError, publish_numbered};
use crate::pack::Frozen;
use crate::process::Cancel;
use crate::template::render;
use std::path::{Path, PathBuf};

/// Finds the latest completed review of the same lock in `out` (never review an unchanged lock
/// twice; but a review that failed, ran out or was waived proves nothing about the next run,
/// so the lock is reviewed again), and counts the revise rounds so far.
pub(super) fn earlier(out: &Path, sha256: &str) -> (Option<(String, ReviewReport)>, u32) {
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
