//! An audit under way: each run measured (a learned visit's window grown until it holds), the
//! device's state settled, and the finished runs folded into the audit's run.

use super::super::error::AuditError;
use super::super::evidence::{Context, Files};
use super::super::figures::Figures;
use super::super::inputs::{keep_source, keep_times};
use super::super::keep::keep_file;
use super::super::measure::{Gathered, Measuring, RunVisit, visits};
use super::super::model::{AuditEvent, AuditRun, DeviceTime, Inputs, MeasurementRecord, Times};
use super::super::state::DeviceStates;
use super::super::window::{WINDOW_RECORD, Windows, cut_short};
use super::Prepared;
use crate::device::{Device, DeviceInfo};
use crate::diagnostic::Diagnostic;
use crate::playbook::FAILED_STEP;
use std::path::{Path, PathBuf};

/// An audit under way: the runs made so far, read.
pub(crate) struct Ongoing<'p, 's, 'a> {
    pub(super) prepared: &'p Prepared<'s, 'a>,
    pub(super) measuring: Measuring<'p, 'a>,
    pub(super) context: Context<'a>,
    pub(super) info: DeviceInfo,
    pub(super) inputs: Inputs,
    pub(super) root: PathBuf,
    pub(super) out: PathBuf,
    pub(super) done: u32,
    pub(super) started: String,
    /// The run's own name (kept with its times).
    pub(super) run_id: String,
    pub(super) device_time: DeviceTime,
    /// The device's state before the runs, and after them once settled.
    pub(super) states: DeviceStates,
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
            crate::lock_file::own_folder(&self.root, &dir)?;
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
            crate::lock_file::own_folder(&self.root, &dir)?;
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
        self.run_of(device, measurements, warnings, self.times_now(device))
    }

    /// The audit of the runs made on `device` (a replay's source is known once it is done,
    /// and kept among the evidence then).
    /// Reads the device's state after its last visit, keeping it with the inputs.
    pub(crate) async fn settle(&mut self, device: &impl Device) -> Result<(), AuditError> {
        let (file, after) = super::super::inputs::read_state(
            device,
            &self.root,
            &self.out,
            super::super::state::AFTER,
        )
        .await?;
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
        // Its times kept as evidence: the report's are rebuilt from them.
        let times = self.times_now(device);
        self.inputs.times = Some(keep_times(&self.root, &self.out, &times)?);
        let (measurements, warnings) = self.measuring.measurements();
        let mut run = self.run_of(device, measurements, warnings, times);
        run.figures = self.measuring.into_figures();
        Ok(run)
    }

    /// When the audit held `device`, ending now.
    fn times_now(&self, device: &impl Device) -> Times {
        Times {
            run_id: self.run_id.clone(),
            started: self.started.clone(),
            ended: crate::time::now(),
            device: self.device_time.clone(),
            lease: device.lease(),
        }
    }

    fn run_of(
        &self,
        device: &impl Device,
        measurements: Vec<MeasurementRecord>,
        warnings: Vec<Diagnostic>,
        times: Times,
    ) -> AuditRun {
        let lease_lost = times.lease.as_ref().and_then(|l| l.lost.clone());
        // Fewer runs than planned are recorded as the runs made, so that `verify-evidence`
        // replans exactly the visits whose evidence exists.
        let runs = if self.done == self.prepared.runs() {
            self.inputs.runs
        } else {
            Some(self.done)
        };
        AuditRun {
            times: Some(times),
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
            lease_lost,
        }
    }
}

/// How a visit is marked in a capture: its run and what it visits (`2 cold-start`,
/// `1 flow open-note`; a warm-up is run 0).
pub(super) fn label((run, visit): RunVisit<'_>) -> String {
    format!("{run} {visit}")
}

/// The marks of these visits, in order.
pub(super) fn labels(visits: &[RunVisit<'_>]) -> Vec<String> {
    visits.iter().copied().map(label).collect()
}
