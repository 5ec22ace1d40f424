//! Frame readings: one number of a frame measurement, and the frames of a flow's actions
//! from RenderService's own present times.

use crate::pack::FrameMetric;
use crate::probe::hidumper;
use crate::probe::hitrace::{FrameStats, FrameTracker};

use super::super::evidence::{FPS_AFTER, FPS_BEFORE, FPS_SURFACE, SCREEN};
use super::{Decoded, ExtractError, Reading, number};

/// One number of a frame measurement, with what it was read from.
pub(super) fn frame_reading(
    f: &FrameStats,
    metric: FrameMetric,
    source: &str,
) -> Result<Reading, ExtractError> {
    let (value, what) = match metric {
        FrameMetric::Fps => (f.fps, "fps"),
        FrameMetric::P50 => (f.p50_ms, "p50 frame interval"),
        FrameMetric::P95 => (f.p95_ms, "p95 frame interval"),
        FrameMetric::Max => (f.max_ms, "longest frame interval"),
        FrameMetric::Jank => (f.jank_ms_per_s, "jank (dropped ms per second)"),
    };
    let value = value.ok_or(ExtractError::TooFewFrames)?;
    number(
        value,
        format!(
            "{what} over {} presented frames, budget {} ms{source}",
            f.count,
            f.budget_ms
                .map_or_else(|| "unknown".to_owned(), |b| b.to_string())
        ),
    )
}

/// The frames of a flow's actions from RenderService's present times: the records after the
/// last one read before the flow acted, split into bursts at 300 ms of stillness (an idle
/// screen presents nothing, and its gap is not a dropped frame), at the active refresh rate's
/// budget. Returns the statistics, the surface read and, when the ring may have dropped
/// records in between, a warning.
pub(super) fn present_times(
    evidence: &Decoded<'_>,
) -> Result<(FrameStats, String, Option<String>), ExtractError> {
    let records = |name: &'static str| -> Result<Vec<u64>, ExtractError> {
        let text = evidence.named_text(name)?;
        Ok(hidumper::fps_blocks(&text)?
            .into_iter()
            .flat_map(|b| b.presents_ns)
            .collect())
    };
    let before = records(FPS_BEFORE)?;
    let mut after = records(FPS_AFTER)?;
    after.sort_unstable();
    after.dedup();
    let since = before.iter().copied().max().unwrap_or(0);
    let oldest_after = after.first().copied();
    let flow: Vec<u64> = after.into_iter().filter(|p| *p > since).collect();
    let refresh = hidumper::screens(&evidence.named_text(SCREEN)?)?
        .iter()
        .find_map(|s| s.refresh_hz)
        .filter(|hz| *hz > 0);
    let budget = refresh.map(|hz| 1_000_000_000 / u64::from(hz));
    let mut bursts: Vec<Vec<u64>> = vec![Vec::new()];
    for present in flow {
        if let Some(last) = bursts.last().and_then(|b| b.last())
            && present - last >= STILL_GAP_NS
        {
            bursts.push(Vec::new());
        }
        if let Some(burst) = bursts.last_mut() {
            burst.push(present);
        }
    }
    let trackers: Vec<FrameTracker> = bursts
        .iter()
        .map(|b| FrameTracker::of_presents(b, budget))
        .collect();
    let mut stats = FrameTracker::combined(&trackers.iter().collect::<Vec<_>>());
    stats.budget_source = Some(if refresh.is_some() {
        "RenderService activeMode refresh rate"
    } else {
        "assumed 60 Hz (no active mode in the screen dump)"
    });
    let surface = evidence.named_text(FPS_SURFACE)?.trim().to_owned();
    // Records older than the flow's first one were all dropped: if even the oldest left is
    // newer than the last one before, the ring (256 or 384 presents) may have overflowed.
    let warning = (since > 0 && oldest_after.is_some_and(|o| o > since)).then(|| {
        "RenderService's ring of present times was overrun during the flow: frames between the two reads may be missing".to_owned()
    });
    Ok((stats, surface, warning))
}

/// Stillness that separates two bursts of frames.
const STILL_GAP_NS: u64 = 300_000_000;
