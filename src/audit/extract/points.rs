//! `perf.span`, `perf.section` and `perf.counter`: the app's own trace point, read from the
//! trace the criterion names — the cold start's, one flow step's, or its flow's window.

use super::super::evidence::{FLOW_TRACE, LEVEL_FIRST_API, StepFile, level_file, step_file};
use super::{Decoded, ExtractError, Reading, number};
use crate::pack::{Point, ProbeArgs};
use crate::probe::Evidence;
use crate::probe::hitrace::Found;

/// The reading of `probe`'s trace point in `evidence`.
pub(super) fn trace_point(
    evidence: &Decoded<'_>,
    probe: &ProbeArgs,
) -> Result<Reading, ExtractError> {
    let point = probe
        .point
        .as_ref()
        .ok_or(ExtractError::MissingArgument("name"))?;
    let file = match (probe.range, probe.step) {
        (Some(_), _) => FLOW_TRACE.to_owned(),
        (None, Some(step)) => step_file(step.index, StepFile::Trace),
        (None, None) => Evidence::Trace.as_str().to_owned(),
    };
    // On 6.0 and later, markers below the level threshold are never written: a trace whose
    // threshold was not read may lack the very point asked for.
    if evidence
        .context
        .api_level
        .is_some_and(|api| api >= LEVEL_FIRST_API)
        && evidence.file_bytes(&level_file(&file)).is_none()
    {
        return Err(ExtractError::Unmeasured(format!(
            "`{file}` was traced on OpenHarmony 6.0 or later without its level threshold read (`hitrace --get_level`): markers below it are not written, so a point missing from it proves nothing"
        )));
    }
    let (found, trace) = match (probe.range, probe.step) {
        (Some(_), _) => (evidence.window_trace()?.points.answer(point), file),
        (None, Some(_)) => {
            let analysis = evidence
                .step_traces()
                .get(&file)
                .ok_or_else(|| ExtractError::StepNotTraced(file.clone()))?
                .as_ref()
                .map_err(Clone::clone)?;
            (analysis.points.answer(point), file)
        }
        (None, None) => {
            let found = evidence
                .trace()?
                .points
                .iter()
                .find(|(p, _)| p == point)
                .map(|(_, f)| f.clone());
            (
                found,
                "the cold start's trace (the launch and the 3 s after it)".to_owned(),
            )
        }
    };
    let found = found.unwrap_or_default();
    let value = found
        .value(point)
        .ok_or_else(|| ExtractError::PointNotFound(missing(point, &found, &trace)))?;
    number(value, detail(point, &found))
}

/// Why nothing was read, with what the trace held of it: never a 0 in its place.
fn missing(point: &Point, found: &Found, trace: &str) -> String {
    let seen = match point {
        Point::Span { from, to, .. } => match (found.starts, found.ends) {
            (0, _) => format!("no marker `{from}`"),
            (_, 0) => format!("`{from}` {} time(s), and no marker `{to}`", found.starts),
            (starts, ends) => {
                format!("`{from}` {starts} time(s) and `{to}` {ends} time(s), never after it")
            }
        },
        Point::Section { name, .. } => match (found.starts, found.unreadable) {
            (0, _) => format!("no section `{name}`"),
            (_, bad) if bad > 0 => {
                format!("section `{name}` {bad} time(s), its argument missing or not a number")
            }
            (starts, _) => format!("section `{name}` begun {starts} time(s), never ended"),
        },
        Point::Counter { name, .. } => format!("no counter `{name}`"),
    };
    format!(
        "{} is not in {trace}: {seen} (is the app's trace point reached there, under the `app` tag? `dwpipe inspect trace FILE` lists what a trace holds)",
        point.describe()
    )
}

/// What the reading was read from, in words: the question, how many occurrences, and the
/// first one's place in the trace.
fn detail(point: &Point, found: &Found) -> String {
    let first = found.first.as_ref().map_or_else(String::new, |o| {
        format!(
            ", the first from {:.6} s to {:.6} s (tid {})",
            o.begin_s, o.end_s, o.tid
        )
    });
    format!("{}: {} occurrence(s){first}", point.describe(), found.count)
}
