//! Frames, gathered while the trace streams by: a frame is on screen when a render-service
//! `Waiting for Present Fence` slice ends. Its budget is the refresh period in force: `rate:`
//! on `CommitLayers` / `CommitAndReleaseLayers`, else `VSyncReceiver:period:`. A frame is
//! dropped when it stays longer than 1.5× its budget (Huawei's rule); jank is the dropped time
//! (interval − budget) per second of the window.

use serde::Serialize;

use super::scan::{is_commit, number_after, round3, text};

/// Offsets kept for the vsync-clock estimate (the median of a sample is enough).
const MAX_OFFSET_SAMPLES: usize = 100_000;

/// Frame facts collected in one pass.
#[derive(Debug, Default)]
pub(crate) struct FrameTracker {
    /// (present time, budget in force or 0) per frame.
    presents: Vec<(u64, u64)>,
    rate_budget: Option<u64>,
    period_budget: Option<u64>,
    offsets: Vec<i64>,
    present_marker: Option<String>,
}

/// Frame statistics, with the markers they came from.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct FrameStats {
    /// Frames presented.
    pub count: u64,
    /// Frames per second over the window (first to last present).
    pub(crate) fps: Option<f64>,
    /// Median frame interval.
    pub(crate) p50_ms: Option<f64>,
    /// 95th percentile frame interval.
    pub(crate) p95_ms: Option<f64>,
    /// Longest frame interval.
    pub(crate) max_ms: Option<f64>,
    /// The frame budget (median of the budgets in force).
    pub budget_ms: Option<f64>,
    /// Dropped milliseconds per second (frames past 1.5× budget).
    pub(crate) jank_ms_per_s: Option<f64>,
    /// Frames past 1.5× their budget.
    pub(crate) dropped_frames: u64,
    /// Where the budget came from.
    pub(crate) budget_source: Option<&'static str>,
    /// The marker whose end is a frame on screen (as found, without its fence id).
    pub present_marker: Option<String>,
}

impl FrameTracker {
    /// A `B` slice began.
    pub(crate) fn begin(&mut self, name: &[u8], ts_ns: u64) {
        if self.present_marker.is_none() && name.starts_with(b"Waiting for Present") {
            let without_id = name
                .iter()
                .rposition(|b| *b == b' ')
                .map_or(name, |at| &name[..at]);
            self.present_marker = Some(text(without_id));
        }
        if is_commit(name) {
            if let Some(rate) = number_after(name, b"rate:").filter(|r| *r > 0) {
                self.rate_budget = Some(1_000_000_000 / rate);
            }
        } else if name.starts_with(b"VSyncReceiver:period:") {
            self.period_budget = number_after(name, b"period:").filter(|p| *p > 0);
        } else if name.starts_with(b"ReceiveVsync")
            && self.offsets.len() < MAX_OFFSET_SAMPLES
            && let Some(now) = number_after(name, b"now:")
        {
            self.offsets.push(ts_ns as i64 - now as i64);
        }
    }

    /// A present fence ended: a frame is on screen.
    pub(crate) fn present(&mut self, ts_ns: u64) {
        let budget = self.rate_budget.or(self.period_budget).unwrap_or(0);
        self.presents.push((ts_ns, budget));
    }

    /// The trace clock minus CLOCK_MONOTONIC (`now:` fields), in ms: the median offset.
    pub(crate) fn vsync_clock_offset_ms(&self) -> Option<f64> {
        let mut offsets = self.offsets.clone();
        offsets.sort_unstable();
        offsets
            .get(offsets.len() / 2)
            .map(|o| round3(*o as f64 / 1e6))
    }

    /// Every interval between consecutive presents, in ms, in present order (for charts).
    pub(crate) fn intervals_ms(&self) -> Vec<f64> {
        let mut presents: Vec<u64> = self.presents.iter().map(|p| p.0).collect();
        presents.sort_unstable();
        presents
            .windows(2)
            .map(|w| (w[1] - w[0]) as f64 / 1e6)
            .collect()
    }

    /// Frames known by their present times alone (RenderService's records), all at one
    /// refresh budget.
    pub(crate) fn of_presents(presents_ns: &[u64], budget_ns: Option<u64>) -> FrameTracker {
        FrameTracker {
            presents: presents_ns
                .iter()
                .map(|p| (*p, budget_ns.unwrap_or(0)))
                .collect(),
            rate_budget: budget_ns,
            present_marker: Some("RenderService present time".to_owned()),
            ..FrameTracker::default()
        }
    }

    /// The statistics.
    pub(crate) fn stats(&self) -> FrameStats {
        FrameTracker::combined(&[self])
    }

    /// The statistics of several traced windows taken as one measurement (a flow's swipes,
    /// each traced on its own): intervals are taken inside each window only, and the window
    /// time is the sum of theirs.
    pub(crate) fn combined(trackers: &[&FrameTracker]) -> FrameStats {
        let windows: Vec<Vec<(u64, u64)>> = trackers
            .iter()
            .map(|t| {
                let mut presents = t.presents.clone();
                presents.sort_unstable();
                presents
            })
            .collect();
        let mut stats = FrameStats {
            count: windows.iter().map(|w| w.len() as u64).sum(),
            present_marker: trackers.iter().find_map(|t| t.present_marker.clone()),
            ..FrameStats::default()
        };
        let mut known: Vec<u64> = windows
            .iter()
            .flatten()
            .map(|p| p.1)
            .filter(|b| *b > 0)
            .collect();
        known.sort_unstable();
        let (typical, source) = match known.get(known.len() / 2) {
            Some(b) if trackers.iter().any(|t| t.rate_budget.is_some()) => {
                (*b, "CommitLayers rate:")
            }
            Some(b) => (*b, "VSyncReceiver:period:"),
            None => (
                1_000_000_000 / 60,
                "assumed 60 Hz (no rate or period marker)",
            ),
        };
        let mut intervals: Vec<u64> = Vec::with_capacity(stats.count as usize);
        let (mut dropped_ns, mut window, mut gaps) = (0u64, 0u64, 0u64);
        for presents in windows.iter().filter(|w| w.len() >= 2) {
            window += presents[presents.len() - 1].0 - presents[0].0;
            gaps += presents.len() as u64 - 1;
            for pair in presents.windows(2) {
                let interval = pair[1].0 - pair[0].0;
                let budget = if pair[1].1 > 0 { pair[1].1 } else { typical };
                if interval * 2 > budget * 3 {
                    dropped_ns += interval - budget;
                    stats.dropped_frames += 1;
                }
                intervals.push(interval);
            }
        }
        if intervals.is_empty() {
            return stats;
        }
        intervals.sort_unstable();
        let ms = |ns: u64| round3(ns as f64 / 1e6);
        let rank = |p: f64| {
            intervals[((p * intervals.len() as f64).ceil() as usize).clamp(1, intervals.len()) - 1]
        };
        stats.p50_ms = Some(ms(rank(0.50)));
        stats.p95_ms = Some(ms(rank(0.95)));
        stats.max_ms = intervals.last().map(|m| ms(*m));
        stats.budget_ms = Some(ms(typical));
        stats.budget_source = Some(source);
        if window > 0 {
            let seconds = window as f64 / 1e9;
            stats.fps = Some(round3(gaps as f64 / seconds));
            stats.jank_ms_per_s = Some(round3(dropped_ns as f64 / 1e6 / seconds));
        }
        stats
    }
}
