//! A reading (a number or a text, with what it was read from) and why an extractor has none.

use crate::input::ReadError;
use crate::probe::Evidence;
use crate::probe::hidumper::DumpError;
use crate::probe::hypium::HypiumError;
use crate::probe::layout::LayoutError;
use crate::probe::screenshot::ScreenshotError;
use crate::probe::{proc_cpu, sp_daemon};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::sync::Arc;

/// A reading's value.
#[derive(schemars::JsonSchema, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Value {
    /// A number in the probe's unit.
    Number(f64),
    /// A word (`pass`/`fail`).
    Text(String),
}

impl Value {
    /// The number, if the value is one.
    pub fn as_number(&self) -> Option<f64> {
        match self {
            Value::Number(n) => Some(*n),
            Value::Text(_) => None,
        }
    }
}

/// One run's reading of one probe.
#[derive(Clone, Debug, PartialEq)]
pub struct Reading {
    /// The value.
    pub(crate) value: Value,
    /// What it was read from, in words.
    pub(crate) detail: String,
    /// Something about the evidence the criterion should carry as a warning.
    pub(crate) warning: Option<String>,
}

/// Why a probe read nothing from a session's evidence.
#[derive(Clone, Debug, thiserror::Error)]
pub enum ExtractError {
    /// The session did not save the file the extractor reads.
    #[error("the session saved no `{0}`")]
    NotSaved(Evidence),
    /// The file is there but cannot be read.
    #[error("cannot read `{}`", path.display())]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// The cause (shared: a decoded file's error is reported by every probe that needs it).
        #[source]
        source: Arc<ReadError>,
    },
    /// The trace holds no whole launch of the app: why.
    #[error("no whole launch of the app in the trace: {0}")]
    NoLaunch(String),
    /// The trace pulled ends before its recording began: a file an earlier run left on the
    /// device (`hitrace --trace_finish -o` exits 0 having written nothing).
    #[error(
        "the trace ends at {ends_s:.3} s of the device's clock, before its recording began ({began_s:.3} s): a file left by an earlier run, not this one's"
    )]
    StaleTrace {
        /// The latest event's clock, in seconds.
        ends_s: f64,
        /// The device's clock just before the recording began, in seconds.
        began_s: f64,
    },
    /// The trace ends inside a line: the file was cut short, and its window is not all
    /// there (a scroll's late slow frames, a launch's end).
    #[error(
        "the trace `{0}` ends mid-line: the file was cut short (a transfer interrupted, a disk full), so its window is not all there and nothing is read from it"
    )]
    CutTrace(String),
    /// Fewer than two frames were presented.
    #[error("fewer than two frames presented in the trace")]
    TooFewFrames,
    /// The device identity holds no density, so px cannot become vp.
    #[error("the device's density (VirtualPixelRatio) is unknown")]
    NoDensity,
    /// The probe lacks an argument this extractor needs.
    #[error("the probe needs `{0}`")]
    MissingArgument(&'static str),
    /// The measured node is outside the screen.
    #[error("the target is not on screen")]
    OffScreen,
    /// The app window has no clickable node on screen.
    #[error("no clickable node on screen in the app window")]
    NoClickable,
    /// A flow kept no file of this name (it stopped before it could).
    #[error("the flow kept no `{0}`")]
    NotKept(&'static str),
    /// The flow kept no trace of the step a response criterion measures.
    #[error("the flow kept no trace `{0}` of the step measured")]
    StepNotTraced(String),
    /// The step's trace does not show what its input cost: why.
    #[error("{0}")]
    NoResponse(String),
    /// The layout dump does not hold what the probe asks.
    #[error(transparent)]
    Layout(#[from] LayoutError),
    /// The screenshot cannot be measured.
    #[error(transparent)]
    Screenshot(#[from] ScreenshotError),
    /// The hidumper output holds no usable block.
    #[error(transparent)]
    Dump(#[from] DumpError),
    /// The test output has no usable summary.
    #[error(transparent)]
    Hypium(#[from] HypiumError),
    /// SmartPerf's output holds no reading.
    #[error(transparent)]
    SmartPerf(#[from] sp_daemon::SpError),
    /// The two reads of `/proc` hold no load.
    #[error(transparent)]
    ProcCpu(#[from] proc_cpu::ProcCpuError),
    /// What was read is not the reading of this visit: why.
    #[error("{0}")]
    Unmeasured(String),
    /// The app's trace point is not in the trace: which, and what was seen of it.
    #[error("{0}")]
    PointNotFound(String),
}
