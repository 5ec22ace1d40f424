//! How an audit keeps its evidence, in one place every room reads: the files of a visit by
//! the name they were saved under, the flow's record (`flow.json`) and each step's files by
//! name, the names RenderService's present times are kept under, and why a visit stopped
//! short. Writers (sessions, flows) and readers (extractors, figures) share these, so no
//! evidence name is spelled twice.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::device::DeviceError;
use crate::probe::Evidence;

/// Evidence files of one session run, by the name the playbook saved them under.
pub type Files = BTreeMap<String, PathBuf>;

/// What an extractor may need besides the files.
#[derive(Clone, Copy, Debug)]
pub struct Context<'a> {
    /// The app.
    pub bundle: &'a str,
    /// The device density (px per vp).
    pub vpr: Option<f64>,
    /// Whether the audit required `charging: off`: the lab's word that a phone plugged in and
    /// not charging draws from its battery.
    pub charging_off: bool,
    /// The samples the visit's SmartPerf step asked for (`-N`), when its session has one.
    pub samples: Option<u32>,
    /// The phone's API level: from 20 (OpenHarmony 6.0) its traces keep their level threshold.
    pub api_level: Option<u32>,
}

/// Why a session stopped: the device itself, or one step on a healthy device.
pub(super) enum StepFailure {
    /// The device failed: the audit stops.
    Device(DeviceError),
    /// A step failed: the files gathered before it are kept, the probes that needed more are
    /// unverified with the reason.
    Step { reason: String },
}

/// A step that cannot be done on a healthy device, and why.
pub(super) fn step_error(reason: impl Into<String>) -> StepFailure {
    StepFailure::Step {
        reason: reason.into(),
    }
}

/// Where an audit's readings came from, kept in its device's evidence folder when it ends.
pub(crate) const SOURCE_RECORD: &str = "source.json";

/// The record of a flow run, kept beside its evidence.
pub(crate) const FLOW_RECORD: &str = "flow.json";

/// What a flow keeps of one step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StepFile {
    /// The layout dump a selector was resolved against.
    Layout,
    /// The screenshot after the step.
    Screen,
    /// The trace around a measured step.
    Trace,
    /// What the readiness poll after a launch saw.
    Ready,
}

/// The evidence file of a step (0-based `step`): `step-02-layout.json`,
/// `step-02-screen.png`, `step-02.ftrace`, `step-01-ready.txt`.
pub(crate) fn step_file(step: usize, what: StepFile) -> String {
    let step = step + 1;
    match what {
        StepFile::Trace => format!("step-{step:02}.ftrace"),
        StepFile::Layout => format!("step-{step:02}-{}", Evidence::Layout.as_str()),
        StepFile::Screen => format!("step-{step:02}-{}", Evidence::Screen.as_str()),
        StepFile::Ready => format!("step-{step:02}-{}", crate::playbook::READY),
    }
}

/// RenderService's present times before the flow's actions (after its launch) and after its
/// last step, the surface they were read for, and the screen's refresh rate.
pub(crate) const FPS_BEFORE: &str = "fps-before.txt";
/// The trace a flow kept over a window of its steps, for the app's trace points.
pub(crate) const FLOW_TRACE: &str = "flow.ftrace";

/// The first API level whose hitrace keeps a level threshold (`--trace_level`, `--get_level`:
/// OpenHarmony 6.0); see `trace_level`.
pub(crate) const LEVEL_FIRST_API: u32 = 20;

/// The evidence file beside a trace that says its level threshold (`step-02.ftrace` →
/// `step-02.level`).
pub(crate) fn level_file(trace: &str) -> String {
    format!("{}.level", trace.strip_suffix(".ftrace").unwrap_or(trace))
}
pub(crate) const FPS_AFTER: &str = "fps-after.txt";
pub(crate) const FPS_SURFACE: &str = "fps-surface.txt";
pub(crate) const SCREEN: &str = "screen.txt";

/// What one step did.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct StepRecord {
    /// 1-based.
    pub(crate) step: usize,
    /// Its name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) name: Option<String>,
    /// What it did, in words.
    pub(crate) action: String,
    /// The node its selector resolved to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) node: Option<String>,
    /// Where the finger went down, in px.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) at: Option<[i64; 2]>,
    /// Where a swipe ended, in px.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) to: Option<[i64; 2]>,
    /// Layout dumps taken (more than one: a wait polled).
    pub(crate) dumps: u32,
    /// When it started, device time since the flow began, in ms.
    pub(crate) started_ms: u64,
    /// How long it held the device, in ms.
    pub(crate) took_ms: u64,
    /// Why it could not be done.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) failed: Option<String>,
}

/// `flow.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct FlowRecord {
    /// 1.
    pub(crate) format_version: u32,
    /// The flow's name.
    pub(crate) flow: String,
    /// Its steps, as far as it got.
    pub(crate) steps: Vec<StepRecord>,
}
