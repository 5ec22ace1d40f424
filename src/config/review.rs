//! `review:` and `repair:`: the pre-review's rounds, fail mode and outside reviewer, and the
//! repair loop's bounds.

use std::path::Path;
use std::time::Duration;

use crate::diagnostic::Diagnostic;
use crate::words::words;

use super::doc::{RepairDoc, ReviewDoc};
use super::value::{argv, duration, invalid};

words! {
    /// What a failed or exhausted review does.
    pub(crate) enum FailMode {
        /// Continue and record.
        Open = "open",
        /// Continue; the brief and the reports say the pack's verification did not complete.
        Warn = "warn",
        /// Stop before dispatch.
        Closed = "closed",
    }
}

/// Review settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Review {
    /// Revise rounds before the review is exhausted.
    pub(crate) max_rounds: u32,
    /// What a failed or exhausted review does.
    pub(crate) fail_mode: FailMode,
    /// The outside reviewer (argv) and its time limit.
    pub(crate) reviewer: Option<(Vec<String>, Duration)>,
    /// Whether `--no-review` is honoured under `closed`.
    pub(crate) allow_waiver_when_closed: bool,
}

/// Repair-loop bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Repair {
    /// Repair rounds at most.
    pub(crate) max_rounds: u32,
    /// The same failure at most this many times.
    pub(crate) max_same_failure: u32,
}

impl Default for Repair {
    /// Four repair rounds, the same failure at most twice.
    fn default() -> Repair {
        Repair {
            max_rounds: 4,
            max_same_failure: 2,
        }
    }
}

impl Default for Review {
    fn default() -> Review {
        Review {
            max_rounds: 3,
            fail_mode: FailMode::Warn,
            reviewer: None,
            allow_waiver_when_closed: false,
        }
    }
}

/// `review:`, validated (its rounds kept between 1 and 10).
pub(super) fn review(path: &Path, doc: Option<ReviewDoc>) -> Result<Review, Diagnostic> {
    Ok(match doc {
        None => Review::default(),
        Some(r) => Review {
            max_rounds: r.max_rounds.unwrap_or(3).clamp(1, 10),
            fail_mode: match r.fail_mode.as_deref() {
                None => FailMode::Warn,
                Some(word) => FailMode::parse(word).ok_or_else(|| {
                    invalid(
                        path,
                        format!("review.fail-mode `{word}` is not open, warn or closed"),
                    )
                })?,
            },
            reviewer: r
                .reviewer
                .map(|rv| -> Result<_, Diagnostic> {
                    Ok((
                        argv(path, rv.argv, "review.reviewer")?,
                        duration(
                            path,
                            rv.timeout.as_deref(),
                            Duration::from_secs(300),
                            "review.reviewer.timeout",
                        )?,
                    ))
                })
                .transpose()?,
            allow_waiver_when_closed: r.allow_waiver_when_closed.unwrap_or(false),
        },
    })
}

/// `repair:`, with its defaults (the same failure allowed at least once).
pub(super) fn repair(doc: Option<&RepairDoc>) -> Repair {
    let defaults = Repair::default();
    Repair {
        max_rounds: doc
            .and_then(|r| r.max_rounds)
            .unwrap_or(defaults.max_rounds),
        max_same_failure: doc
            .and_then(|r| r.max_same_failure)
            .unwrap_or(defaults.max_same_failure)
            .max(1),
    }
}
