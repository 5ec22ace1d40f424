//! The order reports list criteria in: failing first.

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
