//! hitrace records one trace at a time: a flow's steps traced as one window (the app's trace
//! points over `steps: [first, last]`, or the whole flow) cannot also be traced one by one
//! (a response, a swipe's frames, a trace point on one step) nor by another window that
//! overlaps it. Such a pack is refused when it is read, not found out on the device.

use std::collections::BTreeMap;

use crate::diagnostic::Diagnostic;

use super::flow::{Flow, InputKind};
use super::model::Criterion;
use super::probe::FramesVia;

/// What one criterion traces of its flow: a window of steps, or single steps.
enum Traces {
    Window(usize, usize),
    Steps(Vec<usize>),
}

fn traces(criterion: &Criterion, flow: &Flow) -> Option<Traces> {
    let probe = criterion.assertion.as_ref()?.probe.as_ref()?;
    let args = &probe.args;
    if let Some((first, last)) = args.range {
        return Some(Traces::Window(first, last));
    }
    if let Some(step) = args.step {
        return Some(Traces::Steps(vec![step.index]));
    }
    (probe.kind.id == "perf.frames" && args.via == FramesVia::Hitrace).then(|| {
        Traces::Steps(
            flow.steps
                .iter()
                .enumerate()
                .filter(|(_, s)| s.action.input() == Some(InputKind::Swipe))
                .map(|(i, _)| i)
                .collect(),
        )
    })
}

/// The most trace points a pack may ask: the trace's one pass answers at most this many
/// questions (`probe::hitrace` keeps a bit per question on each open slice).
const MAX_POINTS: usize = 64;

/// An error when the pack asks more trace points than one pass of a trace answers.
pub(super) fn points_within_bound(criteria: &[Criterion]) -> Option<Diagnostic> {
    let asked = criteria
        .iter()
        .filter(|c| {
            c.assertion
                .as_ref()
                .and_then(|a| a.probe.as_ref())
                .is_some_and(|p| p.args.point.is_some())
        })
        .count();
    (asked > MAX_POINTS).then(|| {
        Diagnostic::error(
            "E_PACK_TOO_MANY_POINTS",
            format!("the pack asks {asked} trace points; one trace answers at most {MAX_POINTS}"),
        )
        .fix("split the criteria into two packs, each audited on its own")
    })
}

/// An error for each criterion whose trace of a flow another criterion's window overlaps.
pub(super) fn one_trace_at_a_time(
    criteria: &[Criterion],
    flows: &BTreeMap<String, Flow>,
) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    let traced: Vec<(&Criterion, &Flow, Traces)> = criteria
        .iter()
        .filter_map(|c| {
            let name = c.assertion.as_ref()?.probe.as_ref()?.args.flow.as_deref()?;
            let flow = flows.get(name)?;
            Some((c, flow, traces(c, flow)?))
        })
        .collect();
    for (at, (window_of, flow, traces)) in traced.iter().enumerate() {
        let Traces::Window(first, last) = *traces else {
            continue;
        };
        for (other, other_flow, other_traces) in &traced {
            if std::ptr::eq(*other, *window_of) || other_flow.name != flow.name {
                continue;
            }
            let overlaps = match other_traces {
                // The same window is one trace both read.
                Traces::Window(a, b) => (*a, *b) != (first, last) && *a <= last && first <= *b,
                Traces::Steps(steps) => steps.iter().any(|s| (first..=last).contains(s)),
            };
            // Two windows are named once, at the first of them.
            let named_before = matches!(other_traces, Traces::Window(..))
                && traced[..at].iter().any(|(c, ..)| std::ptr::eq(*c, *other));
            if overlaps && !named_before {
                found.push(
                    Diagnostic::error(
                        "E_PACK_TRACES_OVERLAP",
                        format!(
                            "{} traces flow `{}` from step {} to step {} as one window, and {} traces a step inside it: hitrace records one trace at a time",
                            window_of.id,
                            flow.name,
                            first + 1,
                            last + 1,
                            other.id
                        ),
                    )
                    .criterion(&other.id)
                    .fix("measure one of them on another flow (a copy of this one), or give the window `steps:` that leave the other's steps out"),
                );
            }
        }
    }
    found
}
