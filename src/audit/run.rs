//! The audit's loop: for every run, every session the planned criteria need, visited once
//! and shared by every probe of that session; one reading per criterion and run; then the
//! aggregate of the runs, with a warning when they spread beyond the playbook's tolerance.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::device::Device;
use crate::diagnostic::{Diagnostic, chain};
use crate::pack::Pack;
use crate::playbook::Playbooks;
use crate::shell::ShellValue;

use super::aggregate::{actual, aggregate, spread};
use super::extract::Value;
use super::extract::{Context, Decoded, extract};
use super::figures::Figures;
use super::model::{AuditError, AuditEvent, AuditRun, MeasurementRecord, RunReading};
use super::plan::{Planned, base_values, plan};
use super::session::{StepFailure, gather, hash_files};

/// Runs the audit: `runs` overrides every probe's run count when given.
pub async fn run(
    device: &impl Device,
    pack: &Pack,
    playbooks: &Playbooks,
    runs: Option<u32>,
    out: &Path,
    progress: &dyn Fn(AuditEvent),
) -> Result<AuditRun, AuditError> {
    let info = device
        .identity()
        .await
        .map_err(|source| AuditError::Device { run: 0, source })?;
    let base = base_values(pack)?;
    let planned = plan(pack, playbooks, runs);
    let serial_dir = info.serial.replace([':', '/'], "_");
    let evidence_root = out.join("evidence").join(&serial_dir);
    if evidence_root.exists() {
        // Reports point at their evidence by path; overwriting it would silently invalidate
        // the earlier audit's hashes.
        return Err(AuditError::EvidenceExists(evidence_root));
    }
    let max_runs = planned.iter().map(|p| p.runs).max().unwrap_or(0);
    let mut readings: BTreeMap<&str, Vec<RunReading>> = BTreeMap::new();
    let mut figures = Figures::default();
    // The report shows the screen of the first criterion (in pack order) that is measured on it.
    let screen_of = planned
        .iter()
        .find(|p| p.is_on_screen())
        .map(|p| &p.criterion.id);
    let context = Context {
        bundle: &pack.doc.app.bundle.value,
        vpr: info.virtual_pixel_ratio,
    };
    let sessions_of = |run: u32| -> BTreeSet<&str> {
        planned
            .iter()
            .filter(|p| p.runs >= run)
            .map(|p| p.session)
            .collect()
    };
    progress(AuditEvent::Started {
        serial: info.serial.clone(),
        visits: (1..=max_runs)
            .map(|run| sessions_of(run).len() as u64)
            .sum(),
    });
    for run in 1..=max_runs {
        for session_name in sessions_of(run) {
            progress(AuditEvent::Session {
                run,
                runs: max_runs,
                session: session_name.to_owned(),
            });
            let session = &playbooks.sessions[session_name];
            let dir = evidence_root.join(run.to_string()).join(session_name);
            let mut values = base.clone();
            values.set(
                "run",
                ShellValue::number("run", &run.to_string()).map_err(AuditError::Unsafe)?,
            );
            let gathered = gather(device, &session.steps, &mut values, &dir).await;
            let (files, failure) = match gathered {
                Ok(files) => (files, None),
                Err(StepFailure::Device(source)) => return Err(AuditError::Device { run, source }),
                Err(StepFailure::Step { files, reason }) => (files, Some(reason)),
            };
            let evidence = hash_files(&files, out)?;
            let decoded = Decoded::new(&files, context);
            for plan in planned
                .iter()
                .filter(|p| p.session == session_name && p.runs >= run)
            {
                // A failed step leaves the files gathered before it; probes that do not need
                // what is missing are still measured.
                let (value, detail) =
                    match (extract(plan.extractor, &decoded, plan.args()), &failure) {
                        (Ok(reading), _) => (Some(reading.value), reading.detail),
                        (Err(reason), None) => (None, chain(&reason)),
                        (Err(reason), Some(step)) => (None, format!("{} ({step})", chain(&reason))),
                    };
                let id = &plan.criterion.id;
                figures.record(id, plan.extractor, run, &decoded, screen_of == Some(id));
                readings
                    .entry(plan.criterion.id.as_str())
                    .or_default()
                    .push(RunReading {
                        run,
                        value,
                        detail,
                        files: evidence.clone(),
                    });
            }
            progress(AuditEvent::SessionDone);
        }
    }
    let mut warnings = Vec::new();
    let measurements = planned
        .iter()
        .map(|plan| {
            let runs = readings
                .remove(plan.criterion.id.as_str())
                .unwrap_or_default();
            measurement(plan, runs, &mut warnings)
        })
        .collect();
    Ok(AuditRun {
        device: info,
        measurements,
        warnings,
        figures,
    })
}

/// A criterion's runs aggregated, flagged when they spread beyond the tolerance.
fn measurement(
    plan: &Planned<'_>,
    runs: Vec<RunReading>,
    warnings: &mut Vec<Diagnostic>,
) -> MeasurementRecord {
    let values: Vec<Value> = runs.iter().filter_map(|r| r.value.clone()).collect();
    // A run that found nothing makes the whole measurement unverified, never a pass.
    let value = if values.len() == runs.len() {
        aggregate(&values, plan.aggregate())
    } else {
        None
    };
    let unit = plan.probe.unit.map(str::to_owned);
    if let Some(spread) = value
        .as_ref()
        .and_then(|v| spread(&values, v))
        .filter(|s| *s > plan.tolerance)
    {
        warnings.push(
            Diagnostic::warning(
                "W_MEASUREMENT_UNSTABLE",
                format!(
                    "runs spread {:.0}% around the {}, beyond the {:.0}% tolerance",
                    spread * 100.0,
                    plan.aggregate(),
                    plan.tolerance * 100.0
                ),
            )
            .criterion(&plan.criterion.id)
            .fix("measure again with more runs, on a quiet device"),
        );
    }
    MeasurementRecord {
        criterion_id: plan.criterion.id.clone(),
        probe: plan.probe.kind.id.to_owned(),
        extractor: plan.extractor,
        aggregate: plan.aggregate(),
        actual: value.as_ref().map(|v| actual(v, unit.as_deref())),
        value,
        unit,
        resolution: plan.resolution,
        runs,
    }
}
