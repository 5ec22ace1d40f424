//! The audit's loop on a device: its identity and inputs kept as evidence first, then every
//! visit the planned criteria need (each session once per run, shared by every probe of that
//! session; each flow once per run, followed by the sessions of the criteria measured after
//! it), its files gathered into `evidence/<device>/<run>/<session or flow-NAME>/` and read.
//!
//! An audit can also be made in blocks of runs ([`Prepared`], [`Ongoing`]): a same-device A/B
//! session alternates two audits on one device, switching the installed build between blocks,
//! and may add runs while its comparison stays unknown.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::device::{Device, RunPlan};
use crate::playbook::{FAILED_STEP, Values};
use crate::shell::ShellValue;

use super::capture::Pairing;
use super::error::AuditError;
use super::evidence::{Context, Files, StepFailure};
use super::flow::{FlowPlan, frames_steps, run_flow};
use super::inputs::keep;
use super::keep::keep_file;
use super::measure::{Gathered, Measuring, RunVisit, visits};
use super::model::{AuditEvent, AuditRun, DeviceTime};
use super::plan::{
    AuditSpec, Planned, Visit, base_values, evidence_root, max_runs, measured_in, plan,
    reads_faults,
};
use super::session::{Around, gather};
use super::state::DeviceStates;
use super::window::{Ceilings, Windows};

mod ongoing;
pub(crate) use ongoing::Ongoing;
use ongoing::labels;

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
        // `evidence` and every folder below it are the audit's own: a link there leads its
        // files elsewhere, and is refused.
        let evidence = root.parent().unwrap_or(out);
        crate::lock_file::own_folder(out, evidence)?;
        match std::fs::symlink_metadata(&root) {
            Ok(found) if found.file_type().is_symlink() => {
                crate::lock_file::unplanted(&root)?;
            }
            // Reports point at their evidence by path; overwriting it would silently
            // invalidate the earlier audit's hashes.
            Ok(_) => return Err(AuditError::EvidenceExists(root)),
            Err(_) => {}
        }
        crate::lock_file::own_folder(out, &root)?;
        let mut inputs = keep(&root, out, &info, self.spec)?;
        let (file, before) =
            super::inputs::read_state(device, &root, out, super::state::BEFORE).await?;
        inputs.state_before = Some(file);
        let context = Context {
            bundle: &self.spec.pack.doc.app.bundle.value,
            vpr: info.virtual_pixel_ratio,
            charging_off: super::plan::charging_off(&self.spec.required()),
            samples: None,
            api_level: info.api_level,
        };
        Ok(Ongoing {
            prepared: self,
            measuring: Measuring::new(&self.planned, context, Default::default())
                .on_displays(before.displays.clone()),
            context,
            info,
            inputs,
            root,
            out: out.to_owned(),
            done: 0,
            run_id: crate::hash::unique_id(&started),
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
        // The stability criterion's window: the device's clock as the visit begins.
        let faults = reads_faults(&self.planned);
        if faults {
            super::faults::mark(device, dir, &mut files)
                .await
                .map_err(|e| stopped(run, dir, e))?;
        }
        let outcome = match visit {
            Visit::Session(name) => {
                let session = &spec.playbooks.sessions[name];
                let around = Around {
                    pairing: &self.pairing,
                    placed,
                    ended_on: None,
                    windows: Some(windows),
                    api_level: context.api_level,
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
                        api_level: context.api_level,
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
        // However the visit ended (a crash is why a step fails), what the platform recorded.
        if faults {
            let bundle = context.bundle;
            let foreground = match visit {
                Visit::Session(name) => !spec.playbooks.sessions[name].leaves_app(),
                // The flow, and the sessions measured after it in the same visit.
                Visit::Flow(name) => {
                    !spec.pack.flows[name].leaves_app()
                        && !measured_in(&self.planned, (run, visit))
                            .filter_map(Planned::after_flow)
                            .any(|s| spec.playbooks.sessions[s].leaves_app())
                }
            };
            let at = (dir, &mut files);
            super::faults::read(
                device,
                (&values, bundle),
                (context.api_level, foreground),
                at,
            )
            .await
            .map_err(|e| stopped(run, dir, e))?;
        }
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

/// A device that failed while the fault records were read stops the audit; a record that
/// could not be kept in the visit's folder `dir` is an error of the audit's folder (what the
/// device said, even a refusal, is kept and read as no reading).
fn stopped(run: u32, dir: &Path, failure: StepFailure) -> AuditError {
    match failure {
        StepFailure::Device(source) => AuditError::Device { run, source },
        StepFailure::Step { reason } => AuditError::Keep {
            path: dir.to_owned(),
            source: std::io::Error::other(reason),
        },
    }
}
