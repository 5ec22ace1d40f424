//! The audit gate (docs/design.md §3): recomputes every verdict from the pack's assertions and the
//! recorded actuals instead of trusting anyone's prose. [`recompute()`] is pure.

mod input;

pub use input::{AuditorFile, load_auditor_report};
mod recompute;

#[cfg(test)]
mod tests;

pub(crate) use input::parse_auditor_report;
pub use recompute::{AssertionVerdict, CheckOutcome, Measurement};
pub use recompute::{CheckInput, CheckResult, GateOutcome, Verdict, recompute};
