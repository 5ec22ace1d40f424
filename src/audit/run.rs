//! The audit's loop on a device: its identity and inputs kept as evidence first, then every
//! visit the planned criteria need (each session once per run, shared by every probe of that
//! session; each flow once per run, followed by the sessions of the criteria measured after
//! it), its files gathered into `evidence/<device>/<run>/<session or flow-NAME>/` and read.

use std::collections::BTreeSet;
use std::path::Path;

use crate::device::Device;
use crate::playbook::FAILED_STEP;
use crate::shell::ShellValue;

use super::extract::{Context, Files};
use super::flow::{FlowPlan, run_flow};
use super::inputs::keep;
use super::measure::{Gathered, Measuring, visits};
use super::model::{AuditError, AuditEvent, AuditRun};
use super::plan::{AuditSpec, Planned, Visit, base_values, evidence_root, plan};
use super::session::{StepFailure, gather, keep_file};

/// Runs the audit on `device` into the audit folder `out`.
pub async fn run(
    device: &impl Device,
    spec: &AuditSpec<'_>,
    out: &Path,
    progress: &dyn Fn(AuditEvent),
) -> Result<AuditRun, AuditError> {
    let info = device
        .identity()
        .await
        .map_err(|source| AuditError::Device { run: 0, source })?;
    let base = base_values(spec.pack)?;
    let planned = plan(spec.pack, spec.playbooks, spec.runs);
    let root = evidence_root(out, &info.serial);
    if root.exists() {
        // Reports point at their evidence by path; overwriting it would silently invalidate
        // the earlier audit's hashes.
        return Err(AuditError::EvidenceExists(root));
    }
    let inputs = keep(&root, out, &info, spec)?;
    let visits = visits(&planned);
    let runs = visits.last().map_or(0, |(run, _)| *run);
    progress(AuditEvent::Started {
        serial: info.serial.clone(),
        visits: visits.len() as u64,
    });
    let context = Context {
        bundle: &spec.pack.doc.app.bundle.value,
        vpr: info.virtual_pixel_ratio,
    };
    let mut measuring = Measuring::new(&planned, context, Default::default());
    for (run, visit) in visits {
        progress(AuditEvent::Session {
            run,
            runs,
            session: visit.to_string(),
        });
        let dir = root.join(run.to_string()).join(visit.folder());
        let mut values = base.clone();
        values.set(
            "run",
            ShellValue::number("run", &run.to_string()).map_err(AuditError::Unsafe)?,
        );
        let mut files = Files::new();
        let outcome = match visit {
            Visit::Session(name) => {
                let session = &spec.playbooks.sessions[name];
                gather(device, session.standalone(), &mut values, &dir, &mut files).await
            }
            Visit::Flow(name) => {
                let here: Vec<&Planned<'_>> = planned
                    .iter()
                    .filter(|p| p.visit == visit && p.runs >= run)
                    .collect();
                let plan = FlowPlan::of(&spec.pack.flows[name], &here);
                let mut outcome =
                    run_flow(device, &plan, &mut values, &dir, &mut files, context).await;
                // The sessions measured after the flow, each once, without their own start.
                let after: BTreeSet<&str> = here.iter().filter_map(|p| p.after_flow()).collect();
                for session in after {
                    if outcome.is_err() {
                        break;
                    }
                    let steps = &spec.playbooks.sessions[session].steps;
                    outcome = gather(device, steps, &mut values, &dir, &mut files).await;
                }
                outcome
            }
        };
        let gathered = match outcome {
            Ok(()) => Gathered {
                files,
                failure: None,
            },
            Err(StepFailure::Device(source)) => return Err(AuditError::Device { run, source }),
            Err(StepFailure::Step { reason }) => {
                // Why the visit stopped is evidence too: the report's details say it, and
                // `verify-evidence` reads it back from here.
                // (Not kept when the disk refuses it: the reason still reaches the report.)
                let _ = keep_file(&dir, &mut files, FAILED_STEP, reason.as_bytes());
                Gathered {
                    files,
                    failure: Some(reason),
                }
            }
        };
        measuring.read((run, visit), &gathered, out)?;
        progress(AuditEvent::SessionDone);
    }
    let (measurements, warnings, figures) = measuring.finish();
    Ok(AuditRun {
        source: device.source(&info),
        device: info,
        inputs: Some(inputs),
        auditor: spec.auditor.map(|a| a.report.checks()).unwrap_or_default(),
        measurements,
        warnings,
        figures,
    })
}
