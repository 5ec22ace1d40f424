//! A trace's report: what the analysis found (a cold start, frames, responses), from one pass.

use crate::pack::Point;
use crate::probe::hitrace::Analysis;
use crate::probe::hitrace::ColdStart;
use crate::probe::hitrace::Found;
use crate::probe::hitrace::FrameStats;
use crate::probe::hitrace::MarkerCounts;
use crate::probe::hitrace::Response;
use serde::Serialize;
use std::io::Read;

/// What `dwpipe inspect trace --json` prints; the field names are a contract.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TraceReport {
    /// Lines read.
    pub lines: u64,
    /// Lines that parsed as events.
    pub events: u64,
    /// Non-blank, non-comment lines that did not parse.
    pub unparsed_lines: u64,
    /// Marker counts by phase.
    pub markers: MarkerCounts,
    /// Matched B/E pairs.
    pub slices: u64,
    /// `E` without an open `B` on its thread.
    pub orphan_ends: u64,
    /// `B` still open at the end.
    pub open_begins: u64,
    /// Deepest nesting.
    pub max_depth: usize,
    /// Frame statistics.
    pub frames: FrameStats,
    /// The cold start, or `null` when the trace holds no whole launch.
    pub(crate) cold_start: Option<ColdStart>,
    /// Why `cold_start` is `null`: the markers missing, and the hitrace tag that records them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) cold_start_missing: Option<String>,
    /// Trace clock minus CLOCK_MONOTONIC (the `now:` fields), when vsync markers carry it.
    pub vsync_clock_offset_ms: Option<f64>,
    /// The app's trace points asked about (`inspect trace --span/--section/--counter`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub points: Vec<PointReport>,
}

/// What one trace point question found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PointReport {
    /// What was asked about, in words (`spans from `a` to `b``).
    pub question: String,
    /// Every occurrence summarised, the first ones listed.
    #[serde(flatten)]
    pub found: Found,
}

/// Analyzes a whole trace from a reader, in one pass and bounded memory, answering `points`
/// (the app's trace points) on the way.
pub fn analyze<R: Read>(
    reader: R,
    bundle: Option<String>,
    points: &[Point],
) -> std::io::Result<TraceReport> {
    let mut analysis = Analysis::new(bundle).asking(points);
    analysis.feed(reader)?;
    Ok(report(&analysis))
}

/// What the input in a flow step's trace cost, by the rules for `kind` (see
/// [`Response`]); `Ok(Err(why))` when the trace does not show it.
pub fn response_of<R: Read>(
    reader: R,
    kind: crate::pack::InputKind,
) -> std::io::Result<Result<Response, String>> {
    let mut analysis = Analysis::of_step();
    analysis.feed(reader)?;
    Ok(analysis.response.as_ref().map_or_else(
        || Err("no response tracker".to_owned()),
        |r| r.response(kind),
    ))
}

/// The report of a finished analysis.
pub(crate) fn report(analysis: &Analysis) -> TraceReport {
    TraceReport {
        lines: analysis.lines,
        events: analysis.events,
        unparsed_lines: analysis.unparsed_lines,
        markers: analysis.markers,
        slices: analysis.slices,
        orphan_ends: analysis.orphan_ends,
        open_begins: analysis.open_begins(),
        max_depth: analysis.max_depth,
        frames: analysis.frames.stats(),
        cold_start: analysis.cold_start.result(),
        cold_start_missing: analysis.cold_start.missing(),
        vsync_clock_offset_ms: analysis.frames.vsync_clock_offset_ms(),
        points: analysis
            .points
            .found()
            .map(|(point, found)| PointReport {
                question: point.subject(),
                found: found.clone(),
            })
            .collect(),
    }
}
