//! An audit rebuilt from its evidence and held against what its report says (tampered: refused),
//! or, without evidence, re-gated from its own readings.

use super::diff::{FieldDifference, differences};
use super::{Cause, Difference};
use crate::audit::{AsRecorded, Figures, Recorded, rebuild};
use crate::diagnostic::Diagnostic;
use crate::pack::Frozen;
use crate::schema::AuditReport;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// What the recheck found.
#[derive(Debug)]
pub(crate) struct Recheck {
    /// Evidence files hashed.
    pub(crate) files: usize,
    /// Measurements rebuilt.
    pub(crate) measurements: usize,
    /// Every difference.
    pub(crate) differences: Vec<Difference>,
    /// What the audit's pages draw, decoded from its evidence (without its history's trends).
    pub(crate) figures: Figures,
    /// The report its evidence gives: what its published forms must render.
    pub(crate) rebuilt: AuditReport,
}

/// Rebuilds the report at `path` (read as `report`) against `frozen`, and compares.
pub(crate) fn recheck(
    path: &Path,
    report: &AuditReport,
    frozen: &Frozen,
) -> Result<Recheck, Diagnostic> {
    let out = crate::output::dir_or_dot(path.parent());
    let device = report.device.as_ref().ok_or_else(|| {
        Diagnostic::error(
            "E_EVIDENCE_INVALID",
            format!(
                "`{}` holds an outside auditor's checks gated by `dwpipe gate`: no evidence of \
                 dwpipe's own to rebuild it from",
                path.display()
            ),
        )
        .fix("verify an audit-<n>.json written by `dwpipe audit`")
    })?;
    // Criteria read by an extractor revision this dwpipe no longer has: their readings are
    // taken as recorded, so everything built on them is still checked.
    let older: BTreeMap<String, AsRecorded> = report
        .checks
        .iter()
        .flat_map(|c| &c.measurements)
        .filter(|m| m.extractor_revision != m.extractor.revision())
        .map(|m| (m.criterion_id.clone(), AsRecorded::of(m)))
        .collect();
    let changed: Vec<String> = older.keys().cloned().collect();
    let (rebuilt, figures) = rebuilt(out, report, frozen, device, older)?;
    let mut found: Vec<Difference> = differences(&to_value(report), &to_value(&rebuilt))
        .into_iter()
        .map(|d| difference(Cause::Tampered, d))
        .collect();
    if !changed.is_empty() {
        let (fresh, _) = super::rebuilt(out, report, frozen, device, BTreeMap::new())?;
        let measured_by_older = |path: &str| {
            changed
                .iter()
                .any(|id| path.starts_with(&format!("checks[{id}].measurements[{id}]")))
        };
        found.extend(
            differences(&to_value(&rebuilt), &to_value(&fresh))
                .into_iter()
                .filter(|d| measured_by_older(&d.path) && !d.path.ends_with(".extractor-revision"))
                .map(|d| difference(Cause::ExtractorChanged, d)),
        );
    }
    let measurements: Vec<_> = rebuilt
        .checks
        .iter()
        .flat_map(|c| &c.measurements)
        .collect();
    let mut files: Vec<&str> = measurements
        .iter()
        .flat_map(|m| &m.runs)
        .flat_map(|r| &r.files)
        .map(|f| f.path.as_str())
        .collect();
    if let Some(inputs) = &rebuilt.inputs {
        files.extend(inputs.files().map(|f| f.path.as_str()));
    }
    files.sort_unstable();
    files.dedup();
    Ok(Recheck {
        files: files.len(),
        measurements: measurements.len(),
        differences: found,
        figures,
        rebuilt,
    })
}

/// The report rebuilt from the folder `out`, with the report's recorded facts, and what its
/// pages draw, decoded from the evidence.
pub(super) fn rebuilt(
    out: &Path,
    report: &AuditReport,
    frozen: &Frozen,
    device: &crate::device::DeviceInfo,
    as_recorded: BTreeMap<String, AsRecorded>,
) -> Result<(AuditReport, Figures), Diagnostic> {
    let run = rebuild(
        out,
        &frozen.pack,
        Recorded {
            device,
            source: report.source.as_ref(),
            inputs: report.inputs.as_ref(),
            as_recorded,
            readings: report
                .checks
                .iter()
                .flat_map(|c| &c.measurements)
                .map(|m| {
                    let runs = m.runs.iter().map(|r| (r.run, r.clone())).collect();
                    (m.criterion_id.clone(), runs)
                })
                .collect(),
            lease_lost: report.lease.as_ref().and_then(|l| l.lost.clone()),
        },
    )?;
    let audited = run.gate_as(&frozen.pack, report.format_version);
    let mut rebuilt = AuditReport::of_audit(&frozen.lock.sha256, &audited, report.lock.clone());
    rebuilt.format_version = report.format_version;
    rebuilt.dwpipe_version.clone_from(&report.dwpipe_version);
    // When the audit held its device is rebuilt from the times it kept; an audit that kept
    // none (before format 5) is taken as its report says.
    let kept_times =
        report.format_version >= 5 || report.inputs.as_ref().is_some_and(|i| i.times.is_some());
    if !kept_times {
        rebuilt.started.clone_from(&report.started);
        rebuilt.ended.clone_from(&report.ended);
        rebuilt.device_time.clone_from(&report.device_time);
        rebuilt.lease.clone_from(&report.lease);
        rebuilt.run_id.clone_from(&report.run_id);
    }
    // Facts of the run that no evidence file holds: taken as the report says them.
    rebuilt.workspace.clone_from(&report.workspace);
    rebuilt.unrecorded.clone_from(&report.unrecorded);
    // The source is rebuilt from its kept record (format 4 on); before, it was a label.
    let kept_source = report.inputs.as_ref().is_some_and(|i| i.source.is_some());
    if !kept_source {
        rebuilt.source.clone_from(&report.source);
    }
    if report.inputs.is_none() {
        rebuilt.inputs = None;
    }
    let versions: BTreeMap<&str, &Option<String>> = report
        .checks
        .iter()
        .flat_map(|c| &c.measurements)
        .map(|m| (m.criterion_id.as_str(), &m.extracted_by))
        .collect();
    for measurement in rebuilt.checks.iter_mut().flat_map(|c| &mut c.measurements) {
        if let Some(version) = versions.get(measurement.criterion_id.as_str()) {
            measurement.extracted_by.clone_from(version);
        }
    }
    Ok((rebuilt, audited.figures))
}

/// Re-gates `report` from its own readings against `frozen` (what can be checked of an audit
/// whose evidence is absent): `Err` says where its verdict or a check's result is not what
/// its readings give.
pub(crate) fn regated(report: &AuditReport, frozen: &Frozen) -> Result<(), String> {
    let device = report
        .device
        .clone()
        .ok_or_else(|| "it holds an outside auditor's checks, not an audit".to_owned())?;
    let run = crate::audit::AuditRun {
        times: None,
        source: report
            .source
            .clone()
            .unwrap_or_else(|| crate::device::Source::live(&device)),
        device,
        inputs: None,
        auditor: Vec::new(),
        measurements: report
            .checks
            .iter()
            .flat_map(|c| c.measurements.iter().cloned())
            .collect(),
        warnings: Vec::new(),
        figures: Figures::default(),
        states: report.device_state.clone(),
        lease_lost: report.lease.as_ref().and_then(|l| l.lost.clone()),
    };
    let audited = run.gate_as(&frozen.pack, report.format_version);
    let regated = AuditReport::of_audit(&frozen.lock.sha256, &audited, report.lock.clone());
    if report.pack_sha256 != frozen.lock.sha256 {
        return Err(format!(
            "it names lock {} but was held against {}",
            &frozen.lock.sha256[..12],
            crate::text::one_line(&report.pack_sha256, 64)
        ));
    }
    for (said, given) in report.checks.iter().zip(&regated.checks) {
        if said.check.criterion_id != given.check.criterion_id
            || said.check.result != given.check.result
        {
            let id = |id: &str| crate::text::one_line(id, crate::text::CELL).into_owned();
            return Err(format!(
                "its check of {} says {}, its own readings give {} for {}",
                id(&said.check.criterion_id),
                said.check.result,
                given.check.result,
                id(&given.check.criterion_id)
            ));
        }
    }
    if report.checks.len() != regated.checks.len() || report.verdict != regated.verdict {
        return Err(format!(
            "its verdict says {}, its own readings give {}",
            report.verdict, regated.verdict
        ));
    }
    Ok(())
}

/// Every field where a recorded document and its recomputation differ (a comparison, say).
pub(crate) fn tampered(recorded: &Value, recomputed: &Value) -> Vec<Difference> {
    differences(recorded, recomputed)
        .into_iter()
        .map(|d| difference(Cause::Tampered, d))
        .collect()
}

pub(super) fn to_value(report: &AuditReport) -> Value {
    serde_json::to_value(report).expect("a report always serializes")
}

pub(super) fn difference(cause: Cause, d: FieldDifference) -> Difference {
    Difference {
        cause,
        path: d.path,
        report: d.left,
        rebuilt: d.right,
    }
}
