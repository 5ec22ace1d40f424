//! The pre-review stage: a lock is reviewed once; its receipt in the reviews folder stands
//! until the pack changes.

use crate::process::Cancel;
use crate::review::{ReceiptError, ReviewVerdict, receipt};

use super::super::halt::Staged;
use super::super::ledger::{Input, Outcome, Stage};
use super::super::{Delivery, Note};
use crate::schema::TerminalReason;

/// What the review found.
pub(in crate::pipeline) struct Reviewed {
    /// Its receipt (the review report), new or reused, relative to the run folder (where
    /// the delivery's page and record link it from).
    pub(in crate::pipeline) receipt: String,
    /// Its verdict.
    pub(in crate::pipeline) verdict: ReviewVerdict,
}

impl Delivery<'_> {
    /// Reviews the lock (or finds its receipt).
    pub(in crate::pipeline) async fn review(&self, cancel: &Cancel) -> Staged<Reviewed> {
        let sha = self.frozen.lock.sha256.as_str();
        let inputs = [(Input::Pack, sha)];
        let clock = self.begin(Stage::Review, 0);
        let settings = &self.config.review;
        let reviews = self.run_dir.reviews();
        let receipt =
            match receipt(self.frozen, settings, &reviews, self.waive_review, cancel).await {
                Ok(receipt) => receipt,
                Err(ReceiptError::Waiver(refused)) => {
                    let reason = TerminalReason::ReviewBlocked;
                    let detail = Some(refused.to_string());
                    return Err(self.halt(&clock, Outcome::WaiverRefused, &inputs, reason, detail));
                }
                Err(ReceiptError::Interrupted) => return Err(self.interrupted(&clock, &inputs)),
                Err(ReceiptError::Publish(e)) => return Err(e.into()),
            };
        // The terminal names it from where dwpipe runs; the run's records from the run folder.
        let name = receipt.path.display().to_string();
        let linked = crate::output::relative_to(&receipt.path, self.run_dir.path());
        let verdict = receipt.report.verdict;
        let reason = format!("{linked}; reviewer: {}", receipt.report.reviewer);
        let note = match verdict {
            ReviewVerdict::Revise | ReviewVerdict::Blocked | ReviewVerdict::Incomplete => {
                let report = &receipt.report;
                let findings = report
                    .diagnostics
                    .iter()
                    .map(|d| {
                        let criterion = d
                            .criterion_id
                            .as_deref()
                            .map(|c| format!(" {c}"))
                            .unwrap_or_default();
                        format!("{}{criterion}: {}", d.code, d.message)
                    })
                    .collect();
                Note::Findings(name.clone(), findings)
            }
            ReviewVerdict::Pass | ReviewVerdict::Waived => Note::Report(name.clone()),
        };
        self.end(
            &clock,
            Outcome::Review(verdict),
            &inputs,
            Some(reason),
            note,
            None,
        )?;
        Ok(Reviewed {
            receipt: linked,
            verdict,
        })
    }
}
