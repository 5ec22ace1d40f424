//! Each audit a session published, attested when the plan carries a key: one
//! `<audit>.intoto.jsonl` beside each device's audit (both arms of an A/B session), added to
//! the files the session wrote; what could not be attested is said, and never stops the
//! session (its verdict stands on its reports).

use std::path::{Path, PathBuf};

use crate::schema::files;

use super::events::{Event, Reporter};
use super::outcome::Outcome;
use super::plan::AuditPlan;

/// Attests every audit of `outcome` with the plan's key, if it has one.
pub(super) fn attest_audits(plan: &AuditPlan<'_>, outcome: &mut Outcome, reporter: &dyn Reporter) {
    let Some(signing) = &plan.signing else {
        return;
    };
    for report in audits(outcome, &plan.out) {
        match signing.attest(&report) {
            Ok(attested) => {
                reporter.event(Event::Attested(&attested));
                outcome.add_written(PathBuf::from(&attested.file));
            }
            Err(refused) => reporter.event(Event::NotAttested {
                report: &report,
                why: &refused.diagnostics(),
            }),
        }
    }
}

/// The audit reports of an outcome: the one audit, each lab device's, both arms' of each A/B
/// session (a warm-up is not a measurement).
fn audits(outcome: &Outcome, out: &Path) -> Vec<PathBuf> {
    let is_audit = |path: &&PathBuf| {
        path.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("audit-") && n.ends_with(".json"))
            && !path.components().any(|c| c.as_os_str() == files::WARM_UP)
    };
    match outcome {
        Outcome::Audit { written, .. } => {
            written.iter().filter(is_audit).take(1).cloned().collect()
        }
        Outcome::Lab { report, .. } => report
            .devices
            .iter()
            .filter_map(|d| d.report.as_ref())
            .map(|r| out.join(r))
            .collect(),
        Outcome::Ab(session) => session.written.iter().filter(is_audit).cloned().collect(),
        Outcome::AbLab { seats, .. } => seats
            .iter()
            .filter_map(|s| s.outcome.as_ref().ok())
            .flat_map(|session| session.written.iter().filter(is_audit).cloned())
            .collect(),
    }
}
