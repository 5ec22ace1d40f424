//! The audit: for every criterion with a probe, run its playbook's session on the device
//! (once per run, shared by every probe of that session), keep every pulled file and saved
//! reply under `evidence/<device>/<run>/<session>/` with its SHA-256, extract one reading per
//! run, aggregate, and hand the measurements to the gate, which recomputes every verdict.

mod aggregate;
mod extract;
mod verify;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::assertion::{Decimal, UnitContext};
use crate::device::{Device, DeviceError, DeviceInfo};
use crate::diagnostic::Diagnostic;
use crate::gate::{CheckInput, CheckResult, GateOutcome, Measurement, recompute};
use crate::pack::{Criterion, Pack, ProbeDoc};
use crate::playbook::{Playbooks, Step, Values};
use crate::shell::ShellValue;

pub use aggregate::{actual, aggregate, spread};
pub use extract::{Context, Files, Reading, Value, extract};
pub use verify::{Verification, verify};

/// A file of evidence and its hash.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvidenceFile {
    /// Path relative to the audit's folder.
    pub path: String,
    /// SHA-256 (hex).
    pub sha256: String,
}

/// One run's reading of one criterion.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunReading {
    /// 1-based run.
    pub run: u32,
    /// The reading, or `null` when the probe found nothing.
    pub value: Option<Value>,
    /// What it was read from, or why nothing was.
    pub detail: String,
    /// The session's evidence files.
    pub files: Vec<EvidenceFile>,
}

/// dwpipe's own measurement of one criterion.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct MeasurementRecord {
    /// The criterion.
    pub criterion_id: String,
    /// Probe id.
    pub probe: String,
    /// Extractor used.
    pub extractor: String,
    /// How runs were aggregated.
    pub aggregate: String,
    /// The aggregate value.
    pub value: Option<Value>,
    /// The probe's unit.
    pub unit: Option<String>,
    /// Value and unit, as the check's `actual`.
    pub actual: Option<String>,
    /// How far another reading may differ and still be this one (the probe's unit).
    pub resolution: f64,
    /// Every run.
    pub runs: Vec<RunReading>,
}

/// What an audit gathered.
#[derive(Debug)]
pub struct AuditRun {
    /// Who the device is.
    pub device: DeviceInfo,
    /// One per criterion with a probe.
    pub measurements: Vec<MeasurementRecord>,
    /// `W_MEASUREMENT_UNSTABLE` and friends.
    pub warnings: Vec<Diagnostic>,
}

/// Why an audit stopped.
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    /// The device failed (vanished, unreachable, timed out); the evidence so far is kept.
    #[error("the device failed during run {run}: {source}")]
    Device {
        /// The run in progress.
        run: u32,
        /// The cause.
        #[source]
        source: DeviceError,
    },
    /// A value or file could not be written or validated.
    #[error("{0}")]
    Local(String),
}

/// What the audit is doing, for whoever shows progress (the engine never prints).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AuditEvent {
    /// Measuring starts: this many session visits in all.
    Started {
        /// The device.
        serial: String,
        /// Session visits over every run.
        visits: u64,
    },
    /// A session begins on the device.
    Session {
        /// 1-based run.
        run: u32,
        /// Runs in all.
        runs: u32,
        /// The session's name.
        session: String,
    },
    /// A session's evidence is stored and read.
    SessionDone,
}

/// A criterion to measure.
struct Planned<'a> {
    criterion: &'a Criterion,
    probe: ProbeDoc,
    session: String,
    extractor: String,
    runs: u32,
    aggregate: String,
    tolerance: f64,
    resolution: f64,
}

/// The probe arguments of a criterion, as written in the pack.
pub fn probe_doc(pack: &Pack, id: &str) -> Option<ProbeDoc> {
    let doc = pack.doc.criteria.iter().find(|c| c.id.value == id)?;
    Some(doc.assertion.as_ref()?.value.probe.as_ref()?.value.clone())
}

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
    let app = &pack.doc.app;
    let mut base = Values::default();
    let local = |e: crate::shell::UnsafeValue| AuditError::Local(e.to_string());
    base.set(
        "bundle",
        ShellValue::bundle(&app.bundle.value).map_err(local)?,
    );
    if let Some(ability) = &app.ability {
        base.set(
            "ability",
            ShellValue::identifier("ability", &ability.value).map_err(local)?,
        );
    }
    if let Some(module) = &app.module {
        base.set(
            "module",
            ShellValue::identifier("module", &module.value).map_err(local)?,
        );
    }
    let planned: Vec<Planned<'_>> = pack
        .criteria
        .iter()
        .filter_map(|criterion| {
            let measured_by = criterion.assertion.as_ref()?.probe.as_ref()?;
            let playbook = playbooks.probes.get(measured_by.kind.id)?;
            let probe = probe_doc(pack, &criterion.id)?;
            Some(Planned {
                criterion,
                session: playbook.session.clone(),
                extractor: playbook.extract.clone(),
                runs: runs.or(probe.runs).unwrap_or(playbook.runs).max(1),
                aggregate: probe
                    .aggregate
                    .clone()
                    .unwrap_or_else(|| "median".to_owned()),
                tolerance: playbook.tolerance,
                resolution: playbook.resolution,
                probe,
            })
        })
        .collect();
    let serial_dir = info.serial.replace([':', '/'], "_");
    let evidence_root = out.join("evidence").join(&serial_dir);
    if evidence_root.exists() {
        // Reports point at their evidence by path; overwriting it would silently invalidate
        // the earlier audit's hashes.
        return Err(AuditError::Local(format!(
            "`{}` already holds an earlier audit's evidence; audit into a new --out folder",
            evidence_root.display()
        )));
    }
    let max_runs = planned.iter().map(|p| p.runs).max().unwrap_or(0);
    let mut readings: BTreeMap<&str, Vec<RunReading>> = BTreeMap::new();
    let context = Context {
        bundle: &app.bundle.value,
        vpr: info.virtual_pixel_ratio,
    };
    let sessions_of = |run: u32| -> BTreeSet<&str> {
        planned
            .iter()
            .filter(|p| p.runs >= run)
            .map(|p| p.session.as_str())
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
                ShellValue::number("run", &run.to_string()).map_err(local)?,
            );
            let gathered = gather(device, &session.steps, &mut values, &dir).await;
            let (files, failure) = match gathered {
                Ok(files) => (files, None),
                Err(StepFailure::Device(source)) => return Err(AuditError::Device { run, source }),
                Err(StepFailure::Step { files, reason }) => (files, Some(reason)),
            };
            let evidence = hash_files(&files, out)?;
            for plan in planned
                .iter()
                .filter(|p| p.session == session_name && p.runs >= run)
            {
                // A failed step leaves the files gathered before it; probes that do not need
                // what is missing are still measured.
                let (value, detail) = match (
                    extract(&plan.extractor, &files, &plan.probe, &context),
                    &failure,
                ) {
                    (Ok(reading), _) => (Some(reading.value), reading.detail),
                    (Err(reason), None) => (None, reason),
                    (Err(reason), Some(step)) => (None, format!("{reason} ({step})")),
                };
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
            let values: Vec<Value> = runs.iter().filter_map(|r| r.value.clone()).collect();
            // A run that found nothing makes the whole measurement unverified, never a pass.
            let value = if values.len() == runs.len() {
                aggregate(&values, &plan.aggregate)
            } else {
                None
            };
            let unit = plan
                .criterion
                .assertion
                .as_ref()
                .and_then(|a| a.probe.as_ref())
                .and_then(|p| p.unit)
                .map(str::to_owned);
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
                            plan.aggregate,
                            plan.tolerance * 100.0
                        ),
                    )
                    .criterion(&plan.criterion.id)
                    .fix("measure again with more runs, on a quiet device"),
                );
            }
            MeasurementRecord {
                criterion_id: plan.criterion.id.clone(),
                probe: plan.probe.id.clone(),
                extractor: plan.extractor.clone(),
                aggregate: plan.aggregate.clone(),
                actual: value.as_ref().map(|v| actual(v, unit.as_deref())),
                value,
                unit,
                resolution: plan.resolution,
                runs,
            }
        })
        .collect();
    Ok(AuditRun {
        device: info,
        measurements,
        warnings,
    })
}

enum StepFailure {
    Device(DeviceError),
    Step { files: Files, reason: String },
}

/// Runs a session's steps, saving replies and pulled files into `dir`.
async fn gather(
    device: &impl Device,
    steps: &[Step],
    values: &mut Values,
    dir: &Path,
) -> Result<Files, StepFailure> {
    let mut files = Files::new();
    std::fs::create_dir_all(dir).map_err(|e| StepFailure::Step {
        files: Files::new(),
        reason: format!("cannot create `{}`: {e}", dir.display()),
    })?;
    for step in steps {
        let fail = |files: &Files, reason: String| StepFailure::Step {
            files: files.clone(),
            reason,
        };
        match step {
            Step::Sleep(duration) => device.pause(*duration).await,
            Step::Shell {
                template,
                save,
                set,
            } => {
                let command = values
                    .command(template)
                    .map_err(|e| fail(&files, e.to_string()))?;
                let reply = device
                    .shell(&command)
                    .await
                    .map_err(|e| device_or_step(e, &files))?;
                if let Some(name) = save {
                    let path = dir.join(name);
                    crate::output::write_atomic(&path, reply.output.as_bytes())
                        .map_err(|e| fail(&files, e.to_string()))?;
                    files.insert(name.clone(), path);
                }
                if reply.status != 0 {
                    return Err(fail(
                        &files,
                        format!(
                            "`{command}` exited {}: {}",
                            reply.status,
                            reply.output.lines().next().unwrap_or("")
                        ),
                    ));
                }
                if let Some(name) = set {
                    let value = ShellValue::number(name_kind(name), &reply.output)
                        .map_err(|e| fail(&files, e.to_string()))?;
                    values.set(name, value);
                }
            }
            Step::Screenshot { save } => {
                // uitest writes a PNG (snapshot_display's default is JPEG, which blurs edges).
                let remote = format!("/data/local/tmp/dwpipe-{{run}}-{save}");
                let command = values
                    .command(&format!("uitest screenCap -p {remote}"))
                    .map_err(|e| fail(&files, e.to_string()))?;
                let reply = device
                    .shell(&command)
                    .await
                    .map_err(|e| device_or_step(e, &files))?;
                if reply.status != 0 {
                    return Err(fail(&files, format!("`{command}` exited {}", reply.status)));
                }
                pull(device, values, &remote, save, dir, &mut files).await?;
            }
            Step::Pull { template, save } => {
                pull(device, values, template, save, dir, &mut files).await?
            }
        }
    }
    Ok(files)
}

/// Pulls a device file into the evidence as `save`, under a temporary name first: hdc writes
/// the file itself, and an interrupted pull must not leave a half file under the evidence name.
async fn pull(
    device: &impl Device,
    values: &Values,
    template: &str,
    save: &str,
    dir: &Path,
    files: &mut Files,
) -> Result<(), StepFailure> {
    let fail = |files: &Files, reason: String| StepFailure::Step {
        files: files.clone(),
        reason,
    };
    let remote = values
        .remote_path(template)
        .map_err(|e| fail(files, e.to_string()))?;
    let path = dir.join(save);
    let partial = dir.join(format!(".{save}.partial"));
    if let Err(e) = device.pull(&remote, &partial).await {
        let _ = std::fs::remove_file(&partial);
        return Err(device_or_step(e, files));
    }
    std::fs::rename(&partial, &path)
        .map_err(|e| fail(files, format!("cannot keep `{}`: {e}", path.display())))?;
    files.insert(save.to_owned(), path);
    Ok(())
}

fn name_kind(name: &str) -> &'static str {
    if name == "pid" { "pid" } else { "value" }
}

/// Device-level failures stop the audit; a command that failed on a healthy device only
/// leaves its criteria unverified.
fn device_or_step(error: DeviceError, files: &Files) -> StepFailure {
    match error {
        DeviceError::HdcFailed { .. }
        | DeviceError::Transfer { .. }
        | DeviceError::App { .. }
        | DeviceError::Capture(_) => StepFailure::Step {
            files: files.clone(),
            reason: error.to_string(),
        },
        other => StepFailure::Device(other),
    }
}

fn hash_files(files: &Files, out: &Path) -> Result<Vec<EvidenceFile>, AuditError> {
    files
        .values()
        .map(|path| {
            let bytes = std::fs::read(path).map_err(|e| {
                AuditError::Local(format!("cannot read evidence `{}`: {e}", path.display()))
            })?;
            Ok(EvidenceFile {
                path: relative(path, out),
                sha256: crate::hash::sha256_hex(&bytes),
            })
        })
        .collect()
}

fn relative(path: &Path, base: &Path) -> String {
    path.strip_prefix(base)
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned()
}

/// dwpipe's checks for the gate: its own measurements, and an outside auditor's checks for
/// what it did not measure (held against its measurements where both exist).
pub fn checks(
    pack: &Pack,
    measurements: &[MeasurementRecord],
    auditor: &[CheckInput],
) -> (Vec<CheckInput>, Vec<Measurement>) {
    let mut checks = Vec::new();
    let mut held = Vec::new();
    for criterion in &pack.criteria {
        let theirs = auditor.iter().find(|c| c.criterion_id == criterion.id);
        let ours = measurements.iter().find(|m| m.criterion_id == criterion.id);
        match (ours, theirs) {
            (Some(m), theirs) => {
                let own = own_check(criterion, m);
                if let (Some(actual), Some(resolution)) = (&m.actual, resolution_of(m)) {
                    held.push(Measurement {
                        criterion_id: criterion.id.clone(),
                        actual: actual.clone(),
                        resolution,
                    });
                }
                checks.push(theirs.cloned().unwrap_or(own));
            }
            (None, Some(theirs)) => checks.push(theirs.clone()),
            (None, None) => checks.push(CheckInput {
                criterion_id: criterion.id.clone(),
                result: CheckResult::Unverified,
                evidence: "no probe measures this criterion and no auditor report covers it"
                    .to_owned(),
                actual: None,
            }),
        }
    }
    (checks, held)
}

fn resolution_of(measurement: &MeasurementRecord) -> Option<Decimal> {
    Decimal::parse(&measurement.resolution.to_string()).ok()
}

fn own_check(criterion: &Criterion, measurement: &MeasurementRecord) -> CheckInput {
    let evidence = measurement
        .runs
        .iter()
        .map(|r| format!("run {}: {}", r.run, r.detail))
        .collect::<Vec<_>>()
        .join("; ");
    let Some(actual) = measurement.actual.clone() else {
        return CheckInput {
            criterion_id: criterion.id.clone(),
            result: CheckResult::Unverified,
            evidence,
            actual: None,
        };
    };
    let passed = criterion.assertion.as_ref().is_some_and(|a| {
        a.assertion
            .evaluate(&actual, UnitContext::default())
            .is_ok_and(|e| e.passed)
    });
    CheckInput {
        criterion_id: criterion.id.clone(),
        result: if passed {
            CheckResult::Pass
        } else {
            CheckResult::Fail
        },
        evidence,
        actual: Some(actual),
    }
}

/// The gate over an audit run.
pub fn gate(pack: &Pack, audit: &AuditRun, auditor: &[CheckInput]) -> GateOutcome {
    let (checks, measurements) = checks(pack, &audit.measurements, auditor);
    let density = audit
        .device
        .virtual_pixel_ratio
        .and_then(|v| Decimal::parse(&v.to_string()).ok());
    let mut outcome = recompute(pack, &checks, &measurements, UnitContext { density });
    outcome.diagnostics.extend(audit.warnings.iter().cloned());
    outcome
}
