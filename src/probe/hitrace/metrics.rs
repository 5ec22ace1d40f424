//! Frames and cold start, gathered while the trace streams by.
//!
//! **Frames**: a frame is on screen when a render-service `Waiting for Present Fence` slice
//! ends. Its budget is the refresh period in force: `rate:` on `CommitLayers` /
//! `CommitAndReleaseLayers`, else `VSyncReceiver:period:`. A frame is dropped when it stays
//! longer than 1.5× its budget (Huawei's rule); jank is the dropped time (interval − budget)
//! per second of the window.
//!
//! **Cold start** (research/hitrace.md §3.1): from the finger-up (`service report touchId:…,
//! type: up`) or, without one, the first ability-start marker, to the end of the first present
//! fence after the render service processed the app's first transaction, split into the
//! DevEco Launch phases by the markers that were found.

use std::sync::LazyLock;

use memchr::memmem::Finder;
use serde::Serialize;

use super::analysis::{SliceKind, contains, find, number_after};

/// Marker substrings searched in every slice name: built once, not per search.
macro_rules! needles {
    ($($name:ident = $text:literal;)*) => {
        $(static $name: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new($text));)*
    };
}

needles! {
    COMMIT_AND_RELEASE = b"CommitAndReleaseLayers";
    START_BY_SCB = b"StartUIAbilityBySCB";
    START_ABILITY = b"AbilityManagerService::StartAbility";
    START_PROCESS = b"AppMgrServiceInner::StartProcess";
    LOAD_ABILITY = b"AppMgrServiceInner::LoadAbility";
    ATTACH_APPLICATION = b"AppMgrServiceInner::AttachApplication";
    HANDLE_LAUNCH = b"MainThread::HandleLaunchAbility";
    ABILITY_TRANSACTION = b"HandleAbilityTransaction";
}

fn has(name: &[u8], needle: &LazyLock<Finder<'static>>) -> bool {
    needle.find(name).is_some()
}

fn is_commit(name: &[u8]) -> bool {
    name.starts_with(b"CommitLayers") || has(name, &COMMIT_AND_RELEASE)
}
use super::line::EventLine;

/// Offsets kept for the vsync-clock estimate (the median of a sample is enough).
const MAX_OFFSET_SAMPLES: usize = 100_000;
/// How long before the first launch marker a finger-up still counts as its cause.
const TOUCH_WINDOW_NS: u64 = 3_000_000_000;

/// Frame facts collected in one pass.
#[derive(Debug, Default)]
pub struct FrameTracker {
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
    pub fps: Option<f64>,
    /// Median frame interval.
    pub p50_ms: Option<f64>,
    /// 95th percentile frame interval.
    pub p95_ms: Option<f64>,
    /// Longest frame interval.
    pub max_ms: Option<f64>,
    /// The frame budget (median of the budgets in force).
    pub budget_ms: Option<f64>,
    /// Dropped milliseconds per second (frames past 1.5× budget).
    pub jank_ms_per_s: Option<f64>,
    /// Frames past 1.5× their budget.
    pub dropped_frames: u64,
    /// Where the budget came from.
    pub budget_source: Option<&'static str>,
    /// The marker whose end is a frame on screen (as found, without its fence id).
    pub present_marker: Option<String>,
}

impl FrameTracker {
    /// A `B` slice began.
    pub fn begin(&mut self, name: &[u8], ts_ns: u64) {
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
    pub fn present(&mut self, ts_ns: u64) {
        let budget = self.rate_budget.or(self.period_budget).unwrap_or(0);
        self.presents.push((ts_ns, budget));
    }

    /// The trace clock minus CLOCK_MONOTONIC (`now:` fields), in ms: the median offset.
    pub fn vsync_clock_offset_ms(&self) -> Option<f64> {
        let mut offsets = self.offsets.clone();
        offsets.sort_unstable();
        offsets
            .get(offsets.len() / 2)
            .map(|o| round3(*o as f64 / 1e6))
    }

    /// Every interval between consecutive presents, in ms, in present order (for charts).
    pub fn intervals_ms(&self) -> Vec<f64> {
        let mut presents: Vec<u64> = self.presents.iter().map(|p| p.0).collect();
        presents.sort_unstable();
        presents
            .windows(2)
            .map(|w| (w[1] - w[0]) as f64 / 1e6)
            .collect()
    }

    /// The statistics.
    pub fn stats(&self) -> FrameStats {
        let mut presents = self.presents.clone();
        presents.sort_unstable();
        let mut stats = FrameStats {
            count: presents.len() as u64,
            present_marker: self.present_marker.clone(),
            ..FrameStats::default()
        };
        let mut known: Vec<u64> = presents.iter().map(|p| p.1).filter(|b| *b > 0).collect();
        known.sort_unstable();
        let (typical, source) = match known.get(known.len() / 2) {
            Some(b) if self.rate_budget.is_some() => (*b, "CommitLayers rate:"),
            Some(b) => (*b, "VSyncReceiver:period:"),
            None => (
                1_000_000_000 / 60,
                "assumed 60 Hz (no rate or period marker)",
            ),
        };
        if presents.len() < 2 {
            return stats;
        }
        let window = presents[presents.len() - 1].0 - presents[0].0;
        let mut intervals: Vec<u64> = Vec::with_capacity(presents.len() - 1);
        let mut dropped_ns = 0u64;
        for pair in presents.windows(2) {
            let interval = pair[1].0 - pair[0].0;
            let budget = if pair[1].1 > 0 { pair[1].1 } else { typical };
            if interval * 2 > budget * 3 {
                dropped_ns += interval - budget;
                stats.dropped_frames += 1;
            }
            intervals.push(interval);
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
            stats.fps = Some(round3((presents.len() - 1) as f64 / seconds));
            stats.jank_ms_per_s = Some(round3(dropped_ns as f64 / 1e6 / seconds));
        }
        stats
    }
}

/// A launch phase found in the trace.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Phase {
    /// DevEco Launch phase name.
    pub name: &'static str,
    /// The marker that opened it.
    pub marker: String,
    /// When it began, ms after the start.
    pub start_ms: f64,
    /// How long it lasted (until the next phase, or the end).
    pub duration_ms: f64,
}

/// A measured cold start.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ColdStart {
    /// Start to first frame on screen.
    pub ms: f64,
    /// The marker used as the start.
    pub start_marker: String,
    /// The marker whose end was the first frame on screen.
    pub end_marker: String,
    /// The app process the launch was attributed to.
    pub app_pid: Option<u32>,
    /// The phases, in order.
    pub phases: Vec<Phase>,
}

/// Launch facts collected in one pass.
#[derive(Debug, Default)]
pub struct ColdStartTracker {
    bundle: Option<String>,
    last_touch_up: Option<(u64, String)>,
    start: Option<(u64, String)>,
    phases: Vec<(&'static str, String, u64)>,
    app_pid: Option<u32>,
    last_commands_begin: u64,
    marshalled: Option<u64>,
    rendered: Option<u64>,
    committed: Option<u64>,
    end: Option<u64>,
}

fn text(name: &[u8]) -> String {
    String::from_utf8_lossy(name).into_owned()
}

impl ColdStartTracker {
    /// Tracks the launch of `bundle` (the first launched bundle when `None`).
    pub fn new(bundle: Option<String>) -> ColdStartTracker {
        ColdStartTracker {
            bundle,
            ..ColdStartTracker::default()
        }
    }

    fn phase(&mut self, name: &'static str, marker: &[u8], ts: u64) {
        if !self.phases.iter().any(|(n, _, _)| *n == name) {
            self.phases.push((name, text(marker), ts));
        }
    }

    /// Whether a `##bundle` marker is about the tracked bundle (locking onto the first one
    /// seen when none was named).
    fn is_our_bundle(&mut self, name: &[u8]) -> bool {
        let Some(at) = find(name, b"##") else {
            return self.bundle.is_none();
        };
        let found = String::from_utf8_lossy(&name[at + 2..]).trim().to_owned();
        match &self.bundle {
            Some(bundle) => *bundle == found,
            None => {
                self.bundle = Some(found);
                true
            }
        }
    }

    fn mentions_app(&self, name: &[u8]) -> bool {
        let Some(pid) = self.app_pid else {
            return false;
        };
        [
            format!("[{pid},"),
            format!("({pid},"),
            format!("[pid:{pid},"),
            format!("[pid:{pid}]"),
        ]
        .iter()
        .any(|needle| contains(name, needle.as_bytes()))
    }

    /// A `B` slice began.
    pub fn begin(
        &mut self,
        name: &[u8],
        kind: SliceKind,
        parent: Option<SliceKind>,
        event: &EventLine<'_>,
        pid: Option<u32>,
    ) {
        let ts = event.ts_ns;
        if self.end.is_some() {
            return;
        }
        if self.start.is_none() {
            if name.starts_with(b"service report ")
                && (contains(name, b"type: up") || contains(name, b"button-up"))
            {
                self.last_touch_up = Some((ts, text(name)));
                return;
            }
            let launches = [&START_BY_SCB, &START_ABILITY, &START_PROCESS, &LOAD_ABILITY];
            if launches.into_iter().any(|needle| has(name, needle)) {
                self.start = Some(match self.last_touch_up.take() {
                    Some((touch, marker)) if ts.saturating_sub(touch) <= TOUCH_WINDOW_NS => {
                        (touch, marker)
                    }
                    _ => (ts, text(name)),
                });
            } else {
                return;
            }
        }
        if has(name, &START_PROCESS) || has(name, &LOAD_ABILITY) {
            self.phase("process creation", name, ts);
        } else if has(name, &ATTACH_APPLICATION) && self.is_our_bundle(name) {
            self.phase("application launching", name, ts);
        } else if has(name, &HANDLE_LAUNCH) && self.app_pid.is_none() && self.is_our_bundle(name) {
            self.app_pid = pid.or(Some(event.tid));
            self.phase("ability launching", name, ts);
        } else if has(name, &ABILITY_TRANSACTION) && self.app_pid.is_some() {
            self.phase("foreground", name, ts);
        } else if self.app_pid.is_some() && self.rendered.is_none() {
            self.first_frame(name, kind, parent, event, ts);
        } else if self.rendered.is_some() && self.committed.is_none() && is_commit(name) {
            self.committed = Some(ts);
        }
    }

    fn first_frame(
        &mut self,
        name: &[u8],
        kind: SliceKind,
        parent: Option<SliceKind>,
        event: &EventLine<'_>,
        ts: u64,
    ) {
        let on_app_main_thread = Some(event.tid) == self.app_pid;
        if on_app_main_thread && name.starts_with(b"ReceiveVsync") {
            self.phase("first frame (app)", name, ts);
        } else if name.starts_with(b"MarshRSTransactionData")
            && (on_app_main_thread || self.mentions_app(name))
        {
            self.phase("first frame (app)", name, ts);
            self.marshalled.get_or_insert(ts);
        } else if kind == SliceKind::ProcessCommands {
            self.last_commands_begin = ts;
            // Render-service builds without per-transaction ids: the first batch after the
            // app marshalled its first transaction is the one that carried it.
            let anonymous = !name.contains(&b'[') && !name.contains(&b'(');
            if self.mentions_app(name) || (anonymous && self.marshalled.is_some()) {
                self.rendered = Some(ts);
                self.phase("first frame (render)", name, ts);
            }
        } else if parent == Some(SliceKind::ProcessCommands) && self.mentions_app(name) {
            self.rendered = Some(self.last_commands_begin);
            self.phase("first frame (render)", name, self.last_commands_begin);
        }
    }

    /// A present fence ended.
    pub fn present(&mut self, fence_begin: u64, fence_end: u64) {
        if self.end.is_some() {
            return;
        }
        if let Some(after) = self.committed.or(self.rendered)
            && fence_begin >= after
        {
            self.end = Some(fence_end);
        }
    }

    /// The measured cold start, when the trace holds a whole one.
    pub fn result(&self) -> Option<ColdStart> {
        let (start, start_marker) = self.start.clone()?;
        let end = self.end?;
        let ms = |ns: u64| round3(ns as f64 / 1e6);
        let phases = self
            .phases
            .iter()
            .enumerate()
            .map(|(i, (name, marker, ts))| {
                let until = self.phases.get(i + 1).map_or(end, |next| next.2);
                Phase {
                    name,
                    marker: marker.clone(),
                    start_ms: ms(ts.saturating_sub(start)),
                    duration_ms: ms(until.saturating_sub(*ts)),
                }
            })
            .collect();
        Some(ColdStart {
            ms: ms(end.saturating_sub(start)),
            start_marker,
            end_marker: "Waiting for Present Fence (end)".to_owned(),
            app_pid: self.app_pid,
            phases,
        })
    }
}

fn round3(value: f64) -> f64 {
    (value * 1000.0).round() / 1000.0
}
