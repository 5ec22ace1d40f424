//! `review-<n>.json`: the pre-review's verdict on a lock, round by round, with what the
//! outside reviewer did and every finding.

use crate::diagnostic::Diagnostic;
use serde::{Deserialize, Serialize};

use crate::words::words;

words! {
    /// The review's verdict on a lock.
    pub enum ReviewVerdict {
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
    pub enum ReviewerOutcome {
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
#[derive(schemars::JsonSchema, Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct ReviewReport {
    /// Report format.
    pub format_version: u32,
    /// The lock reviewed.
    pub pack_sha256: String,
    /// The verdict.
    pub verdict: ReviewVerdict,
    /// Which revise round this was (1-based).
    pub round: u32,
    /// What the outside reviewer did.
    pub reviewer: ReviewerOutcome,
    /// The reviewer's findings or failure reason.
    pub reviewer_notes: Vec<String>,
    /// Built-in findings and the review's own diagnostics.
    pub diagnostics: Vec<Diagnostic>,
}
