//! A flow run on the device: its plan (which steps are traced, whether present times are read),
//! its steps through the runner, and the screen it ended on.

use super::super::capture::Pairing;
use super::super::evidence::{
    Context, FLOW_RECORD, FPS_AFTER, Files, FlowRecord, StepFailure, StepFile, StepRecord,
    step_file,
};
use super::super::keep::keep_file;
use super::super::plan::Planned;
use super::super::window::Windows;
use super::runner::Runner;
use crate::device::Device;
use crate::pack::{Action, Flow, FlowStep, FramesVia};
use crate::playbook::Values;
use crate::probe::Extractor;
use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

/// What a flow run does besides its steps.
pub(crate) struct FlowPlan<'a> {
    /// The flow.
    pub(crate) flow: &'a Flow,
    /// The steps (0-based) traced from their input until the screen settled.
    pub(crate) traced: BTreeSet<usize>,
    /// Read RenderService's present times before and after the flow (`perf.frames` via
    /// hidumper).
    pub(crate) present_times: bool,
    /// How long traced steps settle, from what earlier runs showed (their timeout otherwise).
    pub(crate) windows: Windows,
    /// The steps (0-based, first and last) traced as one window for the app's trace points.
    pub(crate) window: Option<(usize, usize)>,
}

impl<'a> FlowPlan<'a> {
    /// The run of `flow` that serves `criteria` (those measured after it in this run): the
    /// steps a response names are traced, and every swipe when a frames criterion reads them.
    pub(crate) fn of(flow: &'a Flow, criteria: &[&Planned<'_>]) -> FlowPlan<'a> {
        let mut traced = BTreeSet::new();
        let mut present_times = false;
        let mut window = None;
        for planned in criteria {
            match planned.extractor {
                Extractor::Response => traced.extend(planned.args().step.map(|s| s.index)),
                // The pack was refused when two windows overlap, or one holds a traced step.
                Extractor::TracePoint => match planned.args().range {
                    Some(range) => window = Some(range),
                    None => traced.extend(planned.args().step.map(|s| s.index)),
                },
                Extractor::Frames if planned.args().via == FramesVia::Hidumper => {
                    present_times = true;
                }
                Extractor::Frames => traced.extend(frames_steps(flow, criteria)),
                _ => {}
            }
        }
        FlowPlan {
            flow,
            traced,
            present_times,
            windows: Windows::default(),
            window,
        }
    }
}

/// What a flow kept of the screen it ended on, by evidence name: its last step's screenshot,
/// and that step's last layout dump when nothing acted after it (a wait, or a scroll that
/// found its target, ends on the dump that saw the screen as it stays).
#[derive(Debug, Default)]
pub(crate) struct EndedOn {
    /// The screenshot after the last step.
    pub(crate) screen: Option<String>,
    /// The last step's dump, when it shows the screen the flow ended on.
    pub(crate) layout: Option<String>,
}

impl EndedOn {
    fn of(index: usize, step: &FlowStep, done: &StepRecord) -> EndedOn {
        let looked_last = matches!(
            step.action,
            Action::WaitFor(_) | Action::WaitGone(_) | Action::ScrollUntil { .. }
        );
        EndedOn {
            screen: Some(step_file(index, StepFile::Screen)),
            layout: (looked_last && done.dumps > 0).then(|| step_file(index, StepFile::Layout)),
        }
    }
}

/// The steps of `flow` traced for the frames readers among `criteria`: every swipe, when
/// one reads them from traces.
pub(crate) fn frames_steps(flow: &Flow, criteria: &[&Planned<'_>]) -> BTreeSet<usize> {
    let reads = criteria
        .iter()
        .any(|p| p.extractor == Extractor::Frames && p.args().via != FramesVia::Hidumper);
    flow.steps
        .iter()
        .enumerate()
        .filter(|(_, s)| reads && matches!(s.action, Action::Move { .. }))
        .map(|(i, _)| i)
        .collect()
}

/// Whether the screenshot after step `index` waits for the next step's first dump: the next
/// step begins with one, and RenderService's records are not read between them.
pub(super) fn defers_screenshot(plan: &FlowPlan<'_>, index: usize) -> bool {
    let reads_between = plan.present_times && index == 0;
    !reads_between
        && plan
            .flow
            .steps
            .get(index + 1)
            .is_some_and(|next| super::runner::dumps_first(&next.action))
}

/// Runs `plan`'s flow on `device`, its evidence into `dir` (and `files`); what it kept of the
/// screen it ended on.
pub(crate) async fn run_flow(
    device: &impl Device,
    plan: &FlowPlan<'_>,
    values: &mut Values,
    dir: &Path,
    files: &mut Files,
    (context, pairing): (Context<'_>, &Pairing),
) -> Result<EndedOn, StepFailure> {
    std::fs::create_dir_all(dir).map_err(|e| StepFailure::Step {
        reason: format!("cannot create `{}`: {e}", dir.display()),
    })?;
    let mut runner = Runner {
        device,
        values,
        dir,
        files,
        context,
        began: device.clock(),
        windows: &plan.windows,
        screen_due: None,
        pairing,
        window_level: None,
    };
    let mut record = FlowRecord {
        format_version: crate::format::FLOW,
        flow: plan.flow.name.clone(),
        steps: Vec::with_capacity(plan.flow.steps.len()),
    };
    let mut outcome = Ok(EndedOn::default());
    for (index, step) in plan.flow.steps.iter().enumerate() {
        let started = device.clock();
        let mut done = StepRecord {
            step: index + 1,
            name: step.name.clone(),
            action: step.action.to_string(),
            node: None,
            at: None,
            to: None,
            dumps: 0,
            started_ms: ms(started.saturating_sub(runner.began)),
            took_ms: 0,
            failed: None,
        };
        // The window over the steps begins before its first step acts.
        let mut result = match plan.window {
            Some((first, _)) if first == index => runner.window_begin().await,
            _ => Ok(()),
        };
        if result.is_ok() {
            result = runner
                .step(index, step, plan.traced.contains(&index), &mut done)
                .await;
        }
        // The step before left its screenshot to this step's first dump; a step that ended
        // before dumping has it taken now, on its own.
        let due = runner.screenshot_due().await;
        if result.is_ok() {
            result = due;
        }
        // The screenshot after the step: beside the next step's first dump when that step
        // begins with one (and nothing is read between them), else now.
        let result = match result {
            Ok(()) if defers_screenshot(plan, index) => {
                runner.screen_due = Some(index);
                Ok(())
            }
            Ok(()) => runner.screenshot(index).await,
            Err(e) => Err(e),
        };
        // The frames of the flow's actions: RenderService's records just after the launch,
        // and again after the last step.
        let result = match result {
            Ok(()) if plan.present_times && index == 0 => runner.present_times_before().await,
            Ok(()) if plan.present_times && index + 1 == plan.flow.steps.len() => {
                runner.present_times(FPS_AFTER).await
            }
            other => other,
        };
        // … and finishes once its last step (and what was read after it) is done.
        let result = match (result, plan.window) {
            (Ok(()), Some((_, last))) if last == index => runner.window_finish().await,
            (other, _) => other,
        };
        done.took_ms = ms(device.clock().saturating_sub(started));
        if let Err(failure) = result {
            let failure = match failure {
                StepFailure::Step { reason } => {
                    let reason = format!(
                        "flow `{}`, step {} (`{}`): {reason}",
                        plan.flow.name,
                        index + 1,
                        step.action
                    );
                    done.failed = Some(reason.clone());
                    StepFailure::Step { reason }
                }
                device => device,
            };
            record.steps.push(done);
            outcome = Err(failure);
            break;
        }
        outcome = Ok(EndedOn::of(index, step, &done));
        record.steps.push(done);
    }
    // A window the flow stopped inside still sets its threshold back.
    if let Err(failure) = runner.restore_window_level().await
        && outcome.is_ok()
    {
        outcome = Err(failure);
    }
    // (Not kept when the disk refuses it: the steps' own files and the outcome still count.)
    let json = serde_json::to_vec_pretty(&record).unwrap_or_default();
    let _ = keep_file(dir, runner.files, FLOW_RECORD, &json);
    outcome
}

pub(super) fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
