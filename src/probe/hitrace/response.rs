//! What one input costs, from the trace around it (a flow step's `perf.response`).
//!
//! - The input is the first dispatch marker that says finger-up (`type: up`, `type=1`), else
//!   the first dispatch marker of any kind: `DispatchTouchEvent` (AppAnalyzer rule 0403),
//!   `touchEventDispatch`/`TouchEventDispatch`/`PointerEventDispatch`/`KeyEventDispatch`
//!   (SmartPerf's click rules), mmi's `service report touchId:`, sceneboard's
//!   `client dispatch touchId:`.
//! - **response** ends where the transition the input caused starts (`ABILITY_OR_PAGE_SWITCH`
//!   for a tap or a key, `APP_LIST_FLING`/`APP_SWIPER_SCROLL`/`APP_TABS_SCROLL`/
//!   `WEB_LIST_FLING` for a swipe), plus Huawei's compensation (20 ms for a tap, 30 ms for a
//!   swipe); with no such lane, at the first frame composed after the input, plus SmartPerf's
//!   32 ms display time. The reading says which end it used.
//! - **complete** ends at the last frame composed before the screen stood still for 300 ms,
//!   plus 32 ms display time (SmartPerf's click-complete rule; Huawei's own is screenshot
//!   based, so this one is labelled trace-based). A trace that ends while frames still come
//!   has no completion.
//!
//! A composed frame is a render-service `RSMainThread::DoComposition`, or where a trace has
//! none, the end of a present fence.

use super::scan::{contains, round3, text};
use crate::pack::InputKind;

/// The still gap that ends a completion.
pub(crate) const STILL_NS: u64 = 300_000_000;
/// Display time added to a frame-ended reading.
const DISPLAY_NS: u64 = 32_000_000;
/// Lanes a tap or key starts.
const TAP_LANES: &[&[u8]] = &[b"ABILITY_OR_PAGE_SWITCH"];
/// Lanes a swipe starts.
const SWIPE_LANES: &[&[u8]] = &[
    b"APP_LIST_FLING",
    b"APP_SWIPER_SCROLL",
    b"APP_TABS_SCROLL",
    b"WEB_LIST_FLING",
];
const INPUTS: &[&[u8]] = &[
    b"DispatchTouchEvent",
    b"touchEventDispatch",
    b"TouchEventDispatch",
    b"PointerEventDispatch",
    b"KeyEventDispatch",
    b"service report touchId:",
    b"client dispatch touchId:",
];
const UP: &[&[u8]] = &[b"type: up", b"type:up", b"type=1", b"type: 1", b"type:1"];
/// Lanes kept (a step's trace starts a handful).
const MAX_LANES: usize = 64;

/// Facts gathered while the trace streams by.
#[derive(Debug, Default)]
pub(crate) struct ResponseTracker {
    first_input: Option<(u64, String)>,
    first_up: Option<(u64, String)>,
    lanes: Vec<(u64, String)>,
    compositions: Vec<u64>,
    presents: Vec<u64>,
    last_ns: u64,
}

/// One input's cost.
#[derive(Clone, Debug, PartialEq)]
pub struct Response {
    /// The input's marker, as found.
    pub(crate) input_marker: String,
    /// ms from the input to the end `response_end` names, compensation included.
    pub(crate) response_ms: f64,
    /// What ended the response, in words.
    pub(crate) response_end: String,
    /// ms to the last frame before the screen stood still, display time included; `Err`: why
    /// there is none.
    pub(crate) complete: Result<f64, String>,
}

impl ResponseTracker {
    /// Any event: the trace's clock.
    pub(crate) fn seen(&mut self, ts_ns: u64) {
        self.last_ns = self.last_ns.max(ts_ns);
    }

    /// A `B` or `S` slice began.
    pub(crate) fn begin(&mut self, name: &[u8], ts_ns: u64) {
        if name.starts_with(b"RSMainThread::DoComposition") {
            self.compositions.push(ts_ns);
        } else if INPUTS.iter().any(|m| name.starts_with(m)) {
            let marker = || text(name);
            if self.first_input.is_none() {
                self.first_input = Some((ts_ns, marker()));
            }
            if self.first_up.is_none() && UP.iter().any(|u| contains(name, u)) {
                self.first_up = Some((ts_ns, marker()));
            }
        } else if self.lanes.len() < MAX_LANES
            && TAP_LANES
                .iter()
                .chain(SWIPE_LANES)
                .any(|l| is_lane(name, l))
        {
            self.lanes.push((ts_ns, text(name)));
        }
    }

    /// A present fence ended.
    pub(crate) fn present(&mut self, ts_ns: u64) {
        self.presents.push(ts_ns);
    }

    /// The input's cost, by the rules for `kind`.
    pub(crate) fn response(&self, kind: InputKind) -> Result<Response, String> {
        let (t0, input_marker) = self.first_up.as_ref().or(self.first_input.as_ref()).ok_or(
            "no input dispatch in the trace (looked for DispatchTouchEvent, touchEventDispatch, \
             PointerEventDispatch, KeyEventDispatch and mmi's `service report touchId`; \
             record with the `multimodalinput` and `ace` tags)",
        )?;
        let t0 = *t0;
        let (lanes, compensation) = match kind {
            InputKind::Tap => (TAP_LANES, 20_000_000),
            InputKind::Swipe => (SWIPE_LANES, 30_000_000),
        };
        let mut frames: Vec<u64> = if self.compositions.is_empty() {
            self.presents.clone()
        } else {
            self.compositions.clone()
        };
        frames.sort_unstable();
        frames.retain(|f| *f >= t0);
        let frame_kind = if self.compositions.is_empty() {
            "present fence"
        } else {
            "composed frame (RSMainThread::DoComposition)"
        };
        let lane = self
            .lanes
            .iter()
            .filter(|(ts, name)| *ts >= t0 && lanes.iter().any(|l| is_lane(name.as_bytes(), l)))
            .min_by_key(|(ts, _)| *ts);
        let ms = |ns: u64| round3(ns as f64 / 1e6);
        let (response_ms, response_end) = match (lane, frames.first()) {
            (Some((ts, name)), _) => (
                ms(ts - t0 + compensation),
                format!(
                    "the start of `{}`, plus {} ms compensation",
                    name.split(',').next().unwrap_or(name),
                    compensation / 1_000_000
                ),
            ),
            (None, Some(first)) => (
                ms(first - t0 + DISPLAY_NS),
                format!(
                    "the first {frame_kind} after the input (no transition lane), plus 32 ms display time"
                ),
            ),
            (None, None) => {
                return Err(format!(
                    "nothing followed the input `{input_marker}`: no transition lane and no {frame_kind}"
                ));
            }
        };
        let complete = complete(&frames, self.last_ns)
            .map(|end| ms(end - t0 + DISPLAY_NS))
            .ok_or_else(|| {
                "the screen was still changing when the trace ended (no 300 ms still gap after the last frame)"
                    .to_owned()
            });
        Ok(Response {
            input_marker: input_marker.clone(),
            response_ms,
            response_end,
            complete,
        })
    }
}

/// The last frame before a still gap of 300 ms (the trace's end counts as one when it is that
/// far after the last frame).
fn complete(frames: &[u64], last_ns: u64) -> Option<u64> {
    frames
        .windows(2)
        .find(|w| w[1] - w[0] >= STILL_NS)
        .map(|w| w[0])
        .or_else(|| frames.last().copied().filter(|f| last_ns - f >= STILL_NS))
}

/// Whether a slice name is `lane` (`ABILITY_OR_PAGE_SWITCH, com.example, …` or bare).
fn is_lane(name: &[u8], lane: &[u8]) -> bool {
    name.strip_prefix(lane)
        .is_some_and(|rest| rest.is_empty() || rest[0] == b',' || rest[0] == b' ')
}

#[cfg(test)]
mod tests;
