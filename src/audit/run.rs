//! The audit's loop on a device: its identity and inputs kept as evidence first, then every
//! visit the planned criteria need (each session once per run, shared by every probe of that
//! session; each flow once per run, followed by the sessions of the criteria measured after
//! it), its files gathered into `evidence/<device>/<run>/<session or flow-NAME>/` and read.
//!
//! An audit can also be made in blocks of runs ([`Prepared`], [`Ongoing`]): a same-device A/B
//! session alternates two audits on one device, switching the installed build between blocks,
//! and may add runs while its comparison stays unknown.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::device::{Device, DeviceInfo, RunPlan};
use crate::diagnostic::Diagnostic;
use crate::playbook::{FAILED_STEP, Values};
use crate::shell::ShellValue;

use super::capture::Pairing;
use super::evidence::{Context, Files, StepFailure};
use super::figures::Figures;
use super::flow::{FlowPlan, frames_steps, run_flow};
use super::inputs::{keep, keep_source};
use super::keep::keep_file;
use super::measure::{Gathered, Measuring, RunVisit, max_runs, visits};
use super::model::{
    AuditError, AuditEvent, AuditRun, DeviceTime, Inputs, MeasurementRecord, Times,
};
use super::plan::{AuditSpec, Planned, Visit, base_values, evidence_root, measured_in, plan};
use super::session::{Around, gather};
use super::state::DeviceStates;
use super::window::{Ceilings, WINDOW_RECORD, Windows, cut_short};

/// Runs the audit on `device` into the audit folder `out`.
pub async fn run(
    device: &impl Device,
    spec: &AuditSpec<'_>,
    out: &Path,
    progress: &dyn Fn(AuditEvent),
) -> Result<AuditRun, AuditError> {
    let prepared = Prepared::new(spec)?;
    // Every visit is known before the first call: a capture recorded with another plan is
    // refused then, not read as the app failing.
    let visits = labels(&visits(&prepared.planned, 1..=prepared.runs()));
    let mut ongoing = prepared.begin(device, out, Some(visits)).await?;
    ongoing.measure(device, prepared.runs(), progress).await?;
    ongoing.settle(device).await?;
    ongoing.finish(device)
}

/// An audit decided before the device is touched: its criteria, visits and values.
pub(crate) struct Prepared<'s, 'a> {
    spec: &'s AuditSpec<'a>,
    planned: Vec<Planned<'a>>,
    base: Values,
    /// Whether the device still takes a screenshot and a dump side by side.
    pairing: Pairing,
}

impl<'s, 'a> Prepared<'s, 'a> {
    /// Plans `spec` (its `runs` is the most runs any block may reach).
    pub(crate) fn new(spec: &'s AuditSpec<'a>) -> Result<Self, AuditError> {
        Ok(Prepared {
            spec,
            planned: plan(spec.pack, spec.playbooks, spec.runs),
            base: base_values(spec.pack)?,
            pairing: Pairing::default(),
        })
    }

    /// The most runs any criterion takes.
    pub(crate) fn runs(&self) -> u32 {
        max_runs(&self.planned)
    }

    /// Reads the device's identity and keeps the inputs in `out`'s evidence folder (which must
    /// not exist yet); `visits`, when every visit is known in advance, is told the device
    /// with the sessions (an audit made in blocks tells each visit as it begins).
    pub(crate) async fn begin<'p>(
        &'p self,
        device: &impl Device,
        out: &Path,
        visits: Option<Vec<String>>,
    ) -> Result<Ongoing<'p, 's, 'a>, AuditError> {
        let started = crate::time::now();
        // A capture recorded with other sessions or another plan is refused before any call.
        let sessions: BTreeMap<String, String> = self
            .planned
            .iter()
            .map(|p| p.session)
            .collect::<BTreeSet<&str>>()
            .into_iter()
            .map(|name| {
                (
                    name.to_owned(),
                    self.spec.playbooks.sessions[name].sha256.clone(),
                )
            })
            .collect();
        device
            .plans(&RunPlan { sessions, visits })
            .map_err(AuditError::Refused)?;
        let info = device
            .identity()
            .await
            .map_err(|source| AuditError::Device { run: 0, source })?;
        let root = evidence_root(out, &info.serial);
        if root.exists() {
            // Reports point at their evidence by path; overwriting it would silently
            // invalidate the earlier audit's hashes.
            return Err(AuditError::EvidenceExists(root));
        }
        let mut inputs = keep(&root, out, &info, self.spec)?;
        let (file, before) = super::state::read(device, &root, out, super::state::BEFORE).await?;
        inputs.state_before = Some(file);
        let context = Context {
            bundle: &self.spec.pack.doc.app.bundle.value,
            vpr: info.virtual_pixel_ratio,
            charging_off: super::plan::charging_off(&self.spec.required()),
        };
        Ok(Ongoing {
            prepared: self,
            measuring: Measuring::new(&self.planned, context, Default::default()),
            context,
            info,
            inputs,
            root,
            out: out.to_owned(),
            done: 0,
            started,
            device_time: DeviceTime::default(),
            states: {
                let mut states = DeviceStates {
                    before,
                    ..DeviceStates::default()
                };
                states.judge(&self.spec.required());
                states
            },
        })
    }

    /// The ceilings of `visit`'s traced windows in `run`.
    fn ceilings(&self, visit: Visit<'a>, run: u32) -> Ceilings {
        match visit {
            Visit::Flow(name) => {
                let here: Vec<&Planned<'_>> = measured_in(&self.planned, (run, visit)).collect();
                let flow = &self.spec.pack.flows[name];
                Ceilings {
                    session: None,
                    steps: flow.steps.iter().map(|s| s.timeout).collect(),
                    traced_for_frames: frames_steps(flow, &here),
                }
            }
            Visit::Session(name) => Ceilings {
                session: self.spec.playbooks.sessions[name].traced_wait(),
                steps: Vec::new(),
                traced_for_frames: BTreeSet::new(),
            },
        }
    }

    /// Makes one visit of run `run` into `dir`, its traced windows as `windows` has them: its
    /// files, or why a step stopped it.
    async fn visit(
        &self,
        device: &impl Device,
        (run, visit): RunVisit<'a>,
        dir: &Path,
        (context, display): (Context<'_>, Option<[u32; 2]>),
        windows: &Windows,
    ) -> Result<Gathered, AuditError> {
        let spec = self.spec;
        let mut values = self.base.clone();
        values.set(
            "run",
            ShellValue::number("run", &run.to_string()).map_err(AuditError::Unsafe)?,
        );
        let placed = super::gesture::set(&mut values, display);
        let placed = placed.as_deref();
        let mut files = Files::new();
        let outcome = match visit {
            Visit::Session(name) => {
                let session = &spec.playbooks.sessions[name];
                let around = Around {
                    pairing: &self.pairing,
                    placed,
                    ended_on: None,
                    windows: Some(windows),
                };
                gather(
                    device,
                    session.standalone(),
                    &mut values,
                    dir,
                    &mut files,
                    around,
                )
                .await
            }
            Visit::Flow(name) => {
                let here: Vec<&Planned<'_>> = measured_in(&self.planned, (run, visit)).collect();
                let plan = FlowPlan {
                    windows: windows.clone(),
                    ..FlowPlan::of(&spec.pack.flows[name], &here)
                };
                // The sessions measured after the flow, each once, without their own start;
                // what they capture of the screen the flow ended on, the flow already has.
                let after: BTreeSet<&str> = here.iter().filter_map(|p| p.after_flow()).collect();
                let mut outcome = run_flow(
                    device,
                    &plan,
                    &mut values,
                    dir,
                    &mut files,
                    (context, &self.pairing),
                )
                .await;
                for session in after {
                    let Ok(ended_on) = &outcome else { break };
                    let steps = &spec.playbooks.sessions[session].steps;
                    let around = Around {
                        pairing: &self.pairing,
                        placed,
                        ended_on: Some(ended_on),
                        windows: None,
                    };
                    let gathered =
                        gather(device, steps, &mut values, dir, &mut files, around).await;
                    if let Err(failure) = gathered {
                        outcome = Err(failure);
                    }
                }
                outcome.map(drop)
            }
        };
        match outcome {
            Ok(()) => Ok(Gathered {
                files,
                failure: None,
            }),
            Err(StepFailure::Device(source)) => Err(AuditError::Device { run, source }),
            Err(StepFailure::Step { reason }) => {
                // Why the visit stopped is evidence too: the report's details say it, and
                // `verify-evidence` reads it back from here.
                // (Not kept when the disk refuses it: the reason still reaches the report.)
                let _ = keep_file(dir, &mut files, FAILED_STEP, reason.as_bytes());
                Ok(Gathered {
                    files,
                    failure: Some(reason),
                })
            }
        }
    }
}

/// An audit under way: the runs made so far, read.
pub(crate) struct Ongoing<'p, 's, 'a> {
    prepared: &'p Prepared<'s, 'a>,
    measuring: Measuring<'p, 'a>,
    context: Context<'a>,
    info: DeviceInfo,
    inputs: Inputs,
    root: PathBuf,
    out: PathBuf,
    done: u32,
    started: String,
    device_time: DeviceTime,
    /// The device's state before the runs, and after them once settled.
    states: DeviceStates,
}

impl<'a> Ongoing<'_, '_, 'a> {
    /// Runs made so far.
    pub(crate) fn done(&self) -> u32 {
        self.done
    }

    /// Makes and reads the runs after the last one made, up to run `upto`.
    pub(crate) async fn measure(
        &mut self,
        device: &impl Device,
        upto: u32,
        progress: &dyn Fn(AuditEvent),
    ) -> Result<(), AuditError> {
        if !self.states.unmet.is_empty() {
            return self.not_audited();
        }
        let visits = visits(&self.prepared.planned, self.done + 1..=upto);
        progress(AuditEvent::Started {
            serial: self.info.serial.clone(),
            visits: visits.len() as u64,
        });
        for (run, visit) in visits {
            progress(AuditEvent::Session {
                run,
                runs: upto,
                session: visit.to_string(),
            });
            device
                .visit(&label((run, visit)))
                .map_err(AuditError::Refused)?;
            let dir = self.root.join(run.to_string()).join(visit.folder());
            // On the device's clock: its calls' durations and pauses, so a replay holds the
            // device as long as the recording did.
            let before = device.clock();
            let gathered = self.visit_learning(device, (run, visit), &dir).await?;
            let held = device.clock().saturating_sub(before);
            self.device_time.add(run, visit.to_string(), held);
            self.measuring.read((run, visit), &gathered, &self.out)?;
            self.done = run;
            progress(AuditEvent::SessionDone);
        }
        Ok(())
    }

    /// Makes one visit, its traced windows as the earlier runs showed them: made again with
    /// every window at its ceiling when its trace shows a window was cut short. The windows
    /// and why are kept with the visit's evidence.
    async fn visit_learning(
        &self,
        device: &impl Device,
        (run, visit): RunVisit<'a>,
        dir: &Path,
    ) -> Result<Gathered, AuditError> {
        let prepared = self.prepared;
        let windows = self
            .measuring
            .learn((run, visit), &prepared.ceilings(visit, run));
        let around = (self.context, self.info.display_size);
        let mut gathered = prepared
            .visit(device, (run, visit), dir, around, &windows)
            .await?;
        if windows.is_empty() {
            return Ok(gathered);
        }
        let cut = gathered
            .failure
            .is_none()
            .then(|| {
                cut_short(
                    &prepared.planned,
                    (run, visit),
                    &windows,
                    &gathered.files,
                    self.context,
                )
            })
            .flatten();
        if cut.is_some() {
            // Nothing of the cut visit is read: its files make way for the new ones.
            std::fs::remove_dir_all(dir).map_err(|source| AuditError::Keep {
                path: dir.to_owned(),
                source,
            })?;
            gathered = prepared
                .visit(device, (run, visit), dir, around, &Windows::default())
                .await?;
        }
        let record = windows.record(cut.as_ref());
        keep_file(dir, &mut gathered.files, WINDOW_RECORD, record.as_bytes()).map_err(|e| {
            AuditError::Keep {
                path: dir.join(WINDOW_RECORD),
                source: std::io::Error::other(crate::diagnostic::chain(&e)),
            }
        })?;
        Ok(gathered)
    }

    /// The device did not meet a precondition: no visit is made; the first run's visits keep
    /// why (`failed-step.txt`, which `verify-evidence` reads back), so every criterion is
    /// unverified with the reason.
    fn not_audited(&mut self) -> Result<(), AuditError> {
        if self.done > 0 {
            return Ok(());
        }
        let reason = format!(
            "the device was not audited: {}",
            self.states.unmet.join("; ")
        );
        for (run, visit) in visits(&self.prepared.planned, 1..=1) {
            let dir = self.root.join(run.to_string()).join(visit.folder());
            let mut files = Files::new();
            let keep_error = |source: std::io::Error| AuditError::Keep {
                path: dir.join(FAILED_STEP),
                source,
            };
            std::fs::create_dir_all(&dir).map_err(keep_error)?;
            keep_file(&dir, &mut files, FAILED_STEP, reason.as_bytes())
                .map_err(|e| keep_error(std::io::Error::other(crate::diagnostic::chain(&e))))?;
            let gathered = Gathered {
                files,
                failure: Some(reason.clone()),
            };
            self.measuring.read((run, visit), &gathered, &self.out)?;
        }
        self.done = 1;
        Ok(())
    }

    /// Makes one run into `dir` and reads nothing of it: the warm-up after an install, whose
    /// first launch pays for what no later one does. (Numbered 0, so that no file on the
    /// device is the one a measured run pulls.)
    pub(crate) async fn warm_up(&self, device: &impl Device, dir: &Path) -> Result<(), AuditError> {
        // A device that is not ready is not run at all.
        if !self.states.unmet.is_empty() {
            return Ok(());
        }
        for (_, visit) in visits(&self.prepared.planned, 1..=1) {
            device
                .visit(&label((0, visit)))
                .map_err(AuditError::Refused)?;
            let dir = dir.join(visit.folder());
            let around = (self.context, self.info.display_size);
            self.prepared
                .visit(device, (0, visit), &dir, around, &Windows::default())
                .await?;
        }
        Ok(())
    }

    /// What the runs so far measured on `device`, without the figures (for a comparison
    /// under way).
    pub(crate) fn snapshot(&self, device: &impl Device) -> AuditRun {
        let (measurements, warnings) = self.measuring.measurements();
        self.run_of(device, measurements, warnings)
    }

    /// The audit of the runs made on `device` (a replay's source is known once it is done,
    /// and kept among the evidence then).
    /// Reads the device's state after its last visit, keeping it with the inputs.
    pub(crate) async fn settle(&mut self, device: &impl Device) -> Result<(), AuditError> {
        let (file, after) =
            super::state::read(device, &self.root, &self.out, super::state::AFTER).await?;
        // The last call made: whether the lease held all along is asked now, before the
        // record says so.
        device.confirm_lease().await;
        self.inputs.state_after = Some(file);
        self.states.after = Some(after);
        self.states.judge(&self.prepared.spec.required());
        Ok(())
    }

    pub(crate) fn finish(mut self, device: &impl Device) -> Result<AuditRun, AuditError> {
        let source = device.source(&self.info);
        self.inputs.source = Some(keep_source(&self.root, &self.out, &source)?);
        let (measurements, warnings) = self.measuring.measurements();
        let mut run = self.run_of(device, measurements, warnings);
        run.figures = self.measuring.into_figures();
        Ok(run)
    }

    fn run_of(
        &self,
        device: &impl Device,
        measurements: Vec<MeasurementRecord>,
        warnings: Vec<Diagnostic>,
    ) -> AuditRun {
        let lease = device.lease();
        // Fewer runs than planned are recorded as the runs made, so that `verify-evidence`
        // replans exactly the visits whose evidence exists.
        let runs = if self.done == self.prepared.runs() {
            self.inputs.runs
        } else {
            Some(self.done)
        };
        AuditRun {
            times: Some(Times {
                started: self.started.clone(),
                ended: crate::time::now(),
                device: self.device_time.clone(),
                lease: lease.clone(),
            }),
            source: device.source(&self.info),
            device: self.info.clone(),
            inputs: Some(Inputs {
                runs,
                ..self.inputs.clone()
            }),
            auditor: (self.prepared.spec.auditor)
                .map(|a| a.report.checks())
                .unwrap_or_default(),
            measurements,
            warnings,
            figures: Figures::default(),
            states: Some(self.states.clone()),
            lease_lost: lease.and_then(|l| l.lost),
        }
    }
}

/// How a visit is marked in a capture: its run and what it visits (`2 cold-start`,
/// `1 flow open-note`; a warm-up is run 0).
fn label((run, visit): RunVisit<'_>) -> String {
    format!("{run} {visit}")
}

/// The marks of these visits, in order.
fn labels(visits: &[RunVisit<'_>]) -> Vec<String> {
    visits.iter().copied().map(label).collect()
}
