//! `stability.crashes`: the app's crashes and freezes that began during the audit's visits,
//! counted run by run from what every visit's fault records show ([`super::faults`]), and
//! what a crash does to the other readings of its visit: none is taken (the screen measured
//! after a crash is the home screen or a dialog, never the app's).

use super::faults::VisitFaults;
use super::model::{EvidenceFile, RunReading};
use crate::probe::faults::Fault;
use crate::text::one_line;

/// What one visit's fault records showed.
pub(super) struct VisitRecord {
    pub(super) run: u32,
    /// The visit, as the report names it (`ui`, `flow open-note`).
    pub(super) visit: String,
    pub(super) read: Result<VisitFaults, String>,
    /// The fault records' evidence files.
    pub(super) files: Vec<EvidenceFile>,
}

/// Why no other criterion reads a visit whose faults show the app ended inside it, or whose
/// app, found running and shown by the visit's readiness poll (`was_ready`), had no process
/// left as it ended, with no record of why.
pub(super) fn unmeasured(faults: &VisitFaults, was_ready: bool) -> Option<String> {
    let Some(fault) = faults.ended() else {
        if !was_ready {
            return None;
        }
        if !faults.running {
            return Some("no reading: the app had no process left as the visit ended, and the platform recorded no crash, freeze or kill: what the visit read may not be the app's".to_owned());
        }
        return faults
            .elsewhere
            .as_ref()
            .map(|why| format!("no reading: {why}: what the visit read may not be the app's"));
    };
    Some(format!(
        "no reading: {} during this visit ({}{}); what the visit read after it is not the app's (its records: {})",
        what_happened(fault),
        described(fault),
        why(fault),
        faults.source
    ))
}

fn what_happened(fault: &Fault) -> &'static str {
    use crate::probe::faults::Severity;
    match fault.severity {
        Severity::Crash => "the app crashed",
        Severity::Freeze if fault.kind == "sysfreeze" => "the system froze",
        Severity::Freeze => "the app froze",
        Severity::Ended | Severity::Warning => "the system ended the app",
    }
}

/// `JsError at 2026-12-06 12:00:03`.
fn described(fault: &Fault) -> String {
    format!("{} at {}", fault.kind, fault.at)
}

/// What its first lines say of it: `: Error message:Cannot read property …`, or nothing.
fn why(fault: &Fault) -> String {
    ["Error message:", "Fault message:", "Reason:"]
        .iter()
        .find_map(|key| fault.lines.iter().find(|l| l.starts_with(key)))
        .map(|l| format!(": {}", one_line(l, 120)))
        .unwrap_or_default()
}

/// The stability criterion's reading of each of `runs` that has visits among `records`: the
/// crashes and freezes (each record counted once, in the first visit that saw it), or no
/// reading when a visit's records did not read.
pub(super) fn readings(records: &[VisitRecord], runs: u32) -> Vec<RunReading> {
    let mut seen: Vec<&str> = Vec::new();
    let mut out = Vec::new();
    for run in 1..=runs {
        let visits: Vec<&VisitRecord> = records.iter().filter(|r| r.run == run).collect();
        if visits.is_empty() {
            continue;
        }
        let files: Vec<EvidenceFile> = visits.iter().flat_map(|v| v.files.clone()).collect();
        let (value, detail) = match visits
            .iter()
            .find_map(|v| v.read.as_ref().err().map(|e| (v, e)))
        {
            Some((visit, why)) => (
                None,
                format!("the fault records of {} did not read: {why}", visit.visit),
            ),
            None => {
                let mut counted = Vec::new();
                let mut ended = Vec::new();
                let mut others = 0u64;
                for visit in &visits {
                    let Ok(read) = &visit.read else { continue };
                    others += read.others;
                    if !read.running && read.ended().is_none() {
                        ended.push(format!(
                            "no process left after {}, with no record",
                            visit.visit
                        ));
                    }
                    for fault in &read.faults {
                        if seen.contains(&fault.id.as_str()) {
                            continue;
                        }
                        seen.push(&fault.id);
                        let line =
                            format!("{} during {}{}", described(fault), visit.visit, why(fault));
                        if fault.severity.counts() {
                            counted.push(line);
                        } else if fault.severity.ends_visit() {
                            ended.push(line);
                        }
                    }
                }
                (
                    Some(crate::audit::extract::Value::Number(counted.len() as f64)),
                    summary(&visits, &counted, &ended, others),
                )
            }
        };
        out.push(RunReading {
            run,
            value,
            detail,
            files,
        });
    }
    out
}

fn summary(visits: &[&VisitRecord], counted: &[String], ended: &[String], others: u64) -> String {
    let source = visits
        .iter()
        .find_map(|v| v.read.as_ref().ok().map(|r| r.source))
        .unwrap_or_default();
    let mut said = if counted.is_empty() {
        format!(
            "no crash or freeze of the app in this run's {} visit(s) ({source}; {others} other record(s), of other times or processes)",
            visits.len()
        )
    } else {
        format!(
            "{} crash(es) or freeze(s) in this run's {} visit(s) ({source}): {}",
            counted.len(),
            visits.len(),
            counted.join("; ")
        )
    };
    if !ended.is_empty() {
        said.push_str("; ended otherwise, not counted: ");
        said.push_str(&ended.join("; "));
    }
    said
}

#[cfg(test)]
mod tests;
