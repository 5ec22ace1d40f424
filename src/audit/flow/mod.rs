//! A flow on the device: its steps in order, every selector resolved against a fresh layout
//! dump of the app window, taps at the centre of the node's visible rect, waits counted on
//! the device's clock (so a replay polls as often as the device did), a trace around the
//! steps a criterion measures, and a screenshot after every step, taken once any trace has
//! finished so it never adds frames to a measured window. What each step did is kept as
//! `flow.json`; a step that cannot be done ends the flow with the step, the selector and the
//! last layout named. The runner's steps are in [`runner`], RenderService's present times in
//! [`present`], where a finger goes on a node in [`geometry`].

mod geometry;
mod present;
mod runner;

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use crate::device::Device;
use crate::pack::{Action, Flow, FramesVia};
use crate::playbook::Values;
use crate::probe::Extractor;

use super::evidence::{
    Context, FLOW_RECORD, FPS_AFTER, Files, FlowRecord, StepFailure, StepRecord,
};
use super::keep::keep_file;
use super::plan::Planned;

use runner::Runner;

/// What a flow run does besides its steps.
pub(super) struct FlowPlan<'a> {
    /// The flow.
    pub(super) flow: &'a Flow,
    /// The steps (0-based) traced from their input until the screen settled.
    pub(super) traced: BTreeSet<usize>,
    /// Read RenderService's present times before and after the flow (`perf.frames` via
    /// hidumper).
    pub(super) present_times: bool,
}

impl<'a> FlowPlan<'a> {
    /// The run of `flow` that serves `criteria` (those measured after it in this run): the
    /// steps a response names are traced, and every swipe when a frames criterion reads them.
    pub(super) fn of(flow: &'a Flow, criteria: &[&Planned<'_>]) -> FlowPlan<'a> {
        let mut traced = BTreeSet::new();
        let mut present_times = false;
        for planned in criteria {
            match planned.extractor {
                Extractor::Response => traced.extend(planned.args().step.map(|s| s.index)),
                Extractor::Frames if planned.args().via == FramesVia::Hidumper => {
                    present_times = true;
                }
                Extractor::Frames => traced.extend(
                    flow.steps
                        .iter()
                        .enumerate()
                        .filter(|(_, s)| matches!(s.action, Action::Move { .. }))
                        .map(|(i, _)| i),
                ),
                _ => {}
            }
        }
        FlowPlan {
            flow,
            traced,
            present_times,
        }
    }
}

/// Runs `plan`'s flow on `device`, its evidence into `dir` (and `files`).
pub(super) async fn run_flow(
    device: &impl Device,
    plan: &FlowPlan<'_>,
    values: &mut Values,
    dir: &Path,
    files: &mut Files,
    context: Context<'_>,
) -> Result<(), StepFailure> {
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
    };
    let mut record = FlowRecord {
        format_version: crate::format::FLOW,
        flow: plan.flow.name.clone(),
        steps: Vec::with_capacity(plan.flow.steps.len()),
    };
    let mut outcome = Ok(());
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
        let result = runner
            .step(index, step, plan.traced.contains(&index), &mut done)
            .await;
        let result = match result {
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
        record.steps.push(done);
    }
    // (Not kept when the disk refuses it: the steps' own files and the outcome still count.)
    let json = serde_json::to_vec_pretty(&record).unwrap_or_default();
    let _ = keep_file(dir, runner.files, FLOW_RECORD, &json);
    outcome
}

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
