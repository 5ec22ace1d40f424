//! The adversarial pre-review (docs/design.md §4): built-in rules, then the optional outside reviewer,
//! bound to the lock's SHA-256. An unchanged lock is never reviewed twice; rounds are bounded;
//! `fail-mode` decides what a failed or exhausted review does.

mod reviewer;
mod rules;

mod receipt;
mod run;
#[cfg(test)]
mod tests;
pub(crate) use crate::schema::{ReviewReport, ReviewVerdict, ReviewerOutcome};
pub(crate) use receipt::{ReceiptError, receipt};
pub(crate) use reviewer::{ReviewerAnswer, ask};
pub(crate) use rules::builtin;
pub(crate) use run::{WaiverRefused, review};
