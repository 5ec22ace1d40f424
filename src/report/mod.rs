//! Every form a document is kept in, rendered from the typed documents of [`crate::schema`]:
//! Markdown through the embedded templates, JUnit XML, self-contained HTML pages. Renderers
//! are pure functions of what was already decided (nothing here gates, nothing reads
//! evidence); [`publish`] is the one place their text is written to disk.

mod ab_lab;
mod audit;
mod compare;
mod headline;
pub(crate) mod html;
mod junit;
mod lab;
pub(crate) mod numbers;
pub(crate) mod publish;
pub(crate) mod summary;

pub(crate) use ab_lab::rows as ab_lab_rows;

/// An audit's checks in the order a reader wants them — failed musts, failed shoulds, the
/// unverified, then the passes, each group in pack order — wherever they are listed (the page,
/// the summary).
pub(crate) fn failing_first(
    report: &crate::schema::AuditReport,
) -> Vec<&crate::schema::ReportCheck> {
    use crate::gate::CheckResult;
    use crate::pack::Weight;
    let mut checks: Vec<_> = report.checks.iter().collect();
    checks.sort_by_key(|entry| match (entry.check.result, entry.check.weight) {
        (CheckResult::Fail, Weight::Must) => 0,
        (CheckResult::Fail, Weight::Should) => 1,
        (CheckResult::Unverified, _) => 2,
        (CheckResult::Pass, _) => 3,
    });
    checks
}
pub use audit::markdown;
pub use compare::markdown as compare_markdown;
pub use html::{compare_html, html};
pub use junit::junit;
pub(crate) use junit::{junit_compare, junit_lab};
