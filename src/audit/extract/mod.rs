//! From a session's evidence files to one reading per probe: pure functions over bytes, so
//! `verify-evidence` can run them again offline on the stored files. Each file is decoded at
//! most once per session visit and shared by every probe of the session and by the report's
//! figures.

mod frames;
mod resources;

use std::cell::OnceCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::input::{MAX_REPORT_BYTES, ReadError, open_input, read_bounded};
use crate::pack::{CpuShare, FramesVia, ProbeArgs, ResponseMetric, Selector};

/// Largest evidence file read whole (a layout dump, a screenshot, a reply); traces stream.
const MAX_EVIDENCE_BYTES: u64 = MAX_REPORT_BYTES;
use crate::probe::hidumper::{self, DumpError};
use crate::probe::hitrace::{self, Analysis, FrameTracker, TraceReport};

use super::evidence::{Context, Files};
use super::evidence::{FLOW_RECORD, FlowRecord, StepFile, step_file};

use crate::probe::hypium::{self, HypiumError};
use crate::probe::layout::{Layout, LayoutError, to_vp};
use crate::probe::screenshot::{Image, ScreenshotError, contrast};
use crate::probe::{Evidence, Extractor};
use crate::probe::{proc_cpu, sp_daemon};
use frames::{frame_reading, present_times};

/// A reading's value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Value {
    /// A number in the probe's unit.
    Number(f64),
    /// A word (`pass`/`fail`).
    Text(String),
}

impl Value {
    /// The number, if the value is one.
    pub(crate) fn as_number(&self) -> Option<f64> {
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
        "the trace ends at {ends_s:.3} s of device uptime, before its recording began ({began_s:.3} s): a file left by an earlier run, not this one's"
    )]
    StaleTrace {
        /// The latest event's clock, in seconds.
        ends_s: f64,
        /// The device's uptime just before the recording began, in seconds.
        began_s: f64,
    },
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
}

/// A trace, analysed: the report and every frame interval (for the report's chart).
#[derive(Debug)]
pub struct Trace {
    /// What the analysis found.
    pub(crate) report: TraceReport,
    /// Every interval between consecutive presented frames, in ms.
    pub(crate) intervals_ms: Vec<f64>,
}

/// A screenshot: its bytes (the report embeds them) and its pixels.
#[derive(Debug)]
pub struct Screenshot {
    /// The file as pulled.
    pub(crate) bytes: Vec<u8>,
    /// Decoded.
    pub(crate) image: Image,
}

/// One session visit's evidence, each file decoded on first use and kept for the others.
#[derive(Debug)]
pub struct Decoded<'a> {
    files: &'a Files,
    context: Context<'a>,
    trace: OnceCell<Result<Trace, ExtractError>>,
    layout: OnceCell<Result<Layout, ExtractError>>,
    screen: OnceCell<Result<Screenshot, ExtractError>>,
    steps: OnceCell<BTreeMap<String, Result<Analysis, ExtractError>>>,
}

impl<'a> Decoded<'a> {
    /// The evidence of one session visit.
    pub fn new(files: &'a Files, context: Context<'a>) -> Decoded<'a> {
        Decoded {
            files,
            context,
            trace: OnceCell::new(),
            layout: OnceCell::new(),
            screen: OnceCell::new(),
            steps: OnceCell::new(),
        }
    }

    /// Every flow step's trace of the visit, streamed once, by file name.
    pub(crate) fn step_traces(&self) -> &BTreeMap<String, Result<Analysis, ExtractError>> {
        self.steps.get_or_init(|| {
            self.files
                .iter()
                .filter(|(name, _)| name.starts_with("step-") && name.ends_with(".ftrace"))
                .map(|(name, path)| {
                    let analysis =
                        stream(path, Analysis::of_step()).and_then(|a| self.fresh(name, a));
                    (name.clone(), analysis)
                })
                .collect()
        })
    }

    /// `analysis` of the trace `name`, unless it ends before the device's uptime its
    /// recording began at (kept beside it, [`clock_file`]); a visit recorded before dwpipe
    /// kept that clock is taken as it is.
    fn fresh(&self, name: &str, analysis: Analysis) -> Result<Analysis, ExtractError> {
        let Some(path) = self.files.get(&clock_file(name)) else {
            return Ok(analysis);
        };
        let text = String::from_utf8_lossy(&read(path)?).into_owned();
        let Some(began_ns) = uptime_ns(&text) else {
            return Ok(analysis);
        };
        match analysis.last_ns {
            Some(ends) if ends < began_ns => Err(ExtractError::StaleTrace {
                ends_s: ends as f64 / 1e9,
                began_s: began_ns as f64 / 1e9,
            }),
            _ => Ok(analysis),
        }
    }

    fn path(&self, evidence: Evidence) -> Result<&PathBuf, ExtractError> {
        self.files
            .get(evidence.as_str())
            .ok_or(ExtractError::NotSaved(evidence))
    }

    fn bytes(&self, evidence: Evidence) -> Result<Vec<u8>, ExtractError> {
        read(self.path(evidence)?)
    }

    fn text(&self, evidence: Evidence) -> Result<String, ExtractError> {
        Ok(String::from_utf8_lossy(&self.bytes(evidence)?).replace('\r', ""))
    }

    /// A reply a flow kept under `name`, as text.
    pub(super) fn named_text(&self, name: &'static str) -> Result<String, ExtractError> {
        let path = self.files.get(name).ok_or(ExtractError::NotKept(name))?;
        Ok(String::from_utf8_lossy(&read(path)?).replace('\r', ""))
    }

    /// The trace, streamed once through the analysis.
    pub(crate) fn trace(&self) -> Result<&Trace, ExtractError> {
        self.trace
            .get_or_init(|| {
                let analysis = stream(
                    self.path(Evidence::Trace)?,
                    Analysis::new(Some(self.context.bundle.to_owned())),
                )?;
                let analysis = self.fresh(Evidence::Trace.as_str(), analysis)?;
                Ok(Trace {
                    report: hitrace::report(&analysis),
                    intervals_ms: analysis.frames.intervals_ms(),
                })
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The flow's record of a flow visit, when it kept one that reads.
    pub(crate) fn flow_record(&self) -> Option<FlowRecord> {
        serde_json::from_slice(&read(self.files.get(FLOW_RECORD)?).ok()?).ok()
    }

    /// The bytes of another file of the visit (a flow step's screen), when it reads.
    pub(crate) fn file_bytes(&self, name: &str) -> Option<Vec<u8>> {
        read(self.files.get(name)?).ok()
    }

    /// The layout dump, parsed once.
    pub(crate) fn layout(&self) -> Result<&Layout, ExtractError> {
        self.layout
            .get_or_init(|| Ok(Layout::parse(&self.bytes(Evidence::Layout)?)?))
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The screenshot, decoded once.
    pub(crate) fn screen(&self) -> Result<&Screenshot, ExtractError> {
        self.screen
            .get_or_init(|| {
                let bytes = self.bytes(Evidence::Screen)?;
                let image = Image::decode(&bytes)?;
                Ok(Screenshot { bytes, image })
            })
            .as_ref()
            .map_err(Clone::clone)
    }
}

/// The file that keeps the device's uptime at the start of the trace `trace`
/// (`trace.ftrace` → `trace.clock`, `step-02.ftrace` → `step-02.clock`).
pub(crate) fn clock_file(trace: &str) -> String {
    format!("{}.clock", trace.strip_suffix(".ftrace").unwrap_or(trace))
}

/// `/proc/uptime`'s first field (seconds since boot, the clock hitrace stamps events with) in
/// nanoseconds.
fn uptime_ns(text: &str) -> Option<u64> {
    let seconds = text.split_whitespace().next()?;
    let (whole, fraction) = seconds.split_once('.').unwrap_or((seconds, ""));
    let whole: u64 = whole.parse().ok()?;
    let digits = fraction.get(..fraction.len().min(9))?;
    let fraction: u64 = if digits.is_empty() {
        0
    } else {
        digits.parse::<u64>().ok()? * 10u64.pow(9 - digits.len() as u32)
    };
    whole.checked_mul(1_000_000_000)?.checked_add(fraction)
}

/// An evidence file read whole, within the evidence bound.
fn read(path: &Path) -> Result<Vec<u8>, ExtractError> {
    read_bounded(path, MAX_EVIDENCE_BYTES, "an evidence file").map_err(|source| {
        ExtractError::Unreadable {
            path: path.to_owned(),
            source: Arc::new(source),
        }
    })
}

/// A trace streamed through `analysis` in bounded memory.
fn stream(path: &Path, mut analysis: Analysis) -> Result<Analysis, ExtractError> {
    let unreadable = |source| ExtractError::Unreadable {
        path: path.to_owned(),
        source: Arc::new(source),
    };
    let file = open_input(path, "a trace").map_err(unreadable)?;
    analysis.feed(file).map_err(|source| {
        unreadable(ReadError::Io {
            path: path.to_owned(),
            source,
        })
    })?;
    Ok(analysis)
}

fn selector<'p>(
    selector: &'p Option<Selector>,
    name: &'static str,
) -> Result<&'p Selector, ExtractError> {
    selector.as_ref().ok_or(ExtractError::MissingArgument(name))
}

fn number(value: f64, detail: String) -> Result<Reading, ExtractError> {
    Ok(Reading {
        value: Value::Number(value),
        detail,
        warning: None,
    })
}

/// Runs an extractor over a session's evidence.
pub fn extract(
    extractor: Extractor,
    evidence: &Decoded<'_>,
    probe: &ProbeArgs,
) -> Result<Reading, ExtractError> {
    match extractor {
        Extractor::ColdStart => {
            let report = &evidence.trace()?.report;
            let cold = report.cold_start.as_ref().ok_or_else(|| {
                ExtractError::NoLaunch(report.cold_start_missing.clone().unwrap_or_default())
            })?;
            number(
                cold.ms,
                format!(
                    "from `{}` to the end of the first present fence",
                    cold.start_marker
                ),
            )
        }
        Extractor::Frames if probe.via == FramesVia::Hidumper => {
            let (stats, surface, warning) = present_times(evidence)?;
            let mut reading = frame_reading(
                &stats,
                probe.metric,
                &format!(", from RenderService's records of {surface}"),
            )?;
            reading.warning = warning;
            Ok(reading)
        }
        Extractor::Frames => {
            let flow_frames;
            let f = if probe.flow.is_some() {
                let mut windows = Vec::new();
                for analysis in evidence.step_traces().values() {
                    windows.push(&analysis.as_ref().map_err(Clone::clone)?.frames);
                }
                flow_frames = FrameTracker::combined(&windows);
                &flow_frames
            } else {
                &evidence.trace()?.report.frames
            };
            frame_reading(f, probe.metric, "")
        }
        Extractor::Memory => {
            let total = hidumper::memory_total(&evidence.text(Evidence::Memory)?)?;
            number(total.pss_kb as f64, total.evidence)
        }
        Extractor::Cpu => {
            let cpu = proc_cpu::proc_cpu(&evidence.text(Evidence::Cpu)?)?;
            let value = match probe.cpu {
                CpuShare::AllCores => cpu.all_cores_percent,
                CpuShare::OneCore => (cpu.one_core_percent() * 100.0).round() / 100.0,
            };
            number(value, cpu.evidence())
        }
        Extractor::GpuLoad | Extractor::GpuFrequency => {
            let gpu = sp_daemon::gpu(&evidence.text(Evidence::Gpu)?)?;
            let detail = format!(
                "SmartPerf, {} sample(s): the system's GPU load {}% (every app's, not this one's alone) at {} MHz (SmartPerf 6.0 and later stops any other SmartPerf running on the phone)",
                gpu.samples, gpu.load_percent, gpu.frequency_mhz
            );
            if extractor == Extractor::GpuLoad {
                number(gpu.load_percent, detail)
            } else {
                number(gpu.frequency_mhz, detail)
            }
        }
        Extractor::Power => {
            let battery = hidumper::battery(&evidence.text(Evidence::Battery)?)?;
            resources::drawing_from_battery(&battery, evidence.context.charging_off)?;
            let power = sp_daemon::power(&evidence.text(Evidence::Power)?)?;
            let detail = format!(
                "SmartPerf, {} sample(s): {} mA drawn from the battery at {} V; the battery {} ({} plugged) as the visit began (SmartPerf 6.0 and later stops any other SmartPerf running on the phone)",
                power.samples,
                power.current_ma,
                power.voltage_v,
                battery.charging.unwrap_or("unknown"),
                battery.plugged.unwrap_or("unknown")
            );
            number(power.milliwatts, detail)
        }
        Extractor::Temperature => {
            let (hottest, detail) = resources::hottest_zone(
                &evidence.text(Evidence::ThermalStart)?,
                &evidence.text(Evidence::Thermal)?,
            )?;
            number(hottest, detail)
        }
        Extractor::Hypium => {
            let report = hypium::parse(&evidence.text(Evidence::TestOutput)?)?;
            let judged =
                report.judge(probe.suite.as_deref(), probe.case.as_deref(), &probe.expect)?;
            Ok(Reading {
                value: Value::Text(judged.verdict.to_owned()),
                detail: judged.detail,
                warning: judged.warning,
            })
        }
        Extractor::Response => {
            let step = probe.step.ok_or(ExtractError::MissingArgument("step"))?;
            let name = step_file(step.index, StepFile::Trace);
            let analysis = evidence
                .step_traces()
                .get(&name)
                .ok_or_else(|| ExtractError::StepNotTraced(name.clone()))?
                .as_ref()
                .map_err(Clone::clone)?;
            let tracker = analysis
                .response
                .as_ref()
                .ok_or_else(|| ExtractError::StepNotTraced(name.clone()))?;
            let response = tracker
                .response(step.input)
                .map_err(ExtractError::NoResponse)?;
            match probe.response {
                ResponseMetric::Response => number(
                    response.response_ms,
                    format!(
                        "from `{}` to {}",
                        response.input_marker, response.response_end
                    ),
                ),
                ResponseMetric::Complete => number(
                    response.complete.map_err(ExtractError::NoResponse)?,
                    format!(
                        "trace-based: from `{}` to the last composed frame before 300 ms of stillness, plus 32 ms display time",
                        response.input_marker
                    ),
                ),
            }
        }
        Extractor::Text
        | Extractor::LayoutGap
        | Extractor::LayoutSize
        | Extractor::LayoutAlign
        | Extractor::TouchTarget
        | Extractor::Labels
        | Extractor::Contrast => on_screen(extractor, evidence, probe),
    }
}

/// The extractors that read the layout dump (and, for contrast, the screenshot), in vp.
fn on_screen(
    extractor: Extractor,
    evidence: &Decoded<'_>,
    probe: &ProbeArgs,
) -> Result<Reading, ExtractError> {
    let layout = evidence.layout()?;
    let window = layout.app_window(Some(evidence.context.bundle))?;
    let vpr = evidence.context.vpr.ok_or(ExtractError::NoDensity)?;
    let vp = |px: i64| to_vp(px, vpr);
    match extractor {
        Extractor::Text => {
            let node = layout.select(window, selector(&probe.target, "target")?)?;
            let text = layout.text_of(node);
            Ok(Reading {
                detail: format!("the text of {}", layout.selector_of(node)),
                value: Value::Text(text),
                warning: None,
            })
        }
        Extractor::LayoutGap => {
            let from = layout.select(window, selector(&probe.from, "from")?)?;
            let to = layout.select(window, selector(&probe.to, "to")?)?;
            let px = layout.gap_px(from, to, probe.axis)?;
            number(
                vp(px),
                format!(
                    "{px} px between {} and {}",
                    layout.selector_of(from),
                    layout.selector_of(to)
                ),
            )
        }
        Extractor::LayoutSize => {
            let node = layout.select(window, selector(&probe.target, "target")?)?;
            let px = layout.size_px(node, probe.side)?;
            number(
                vp(px),
                format!("{px} px {} of {}", probe.side, layout.selector_of(node)),
            )
        }
        Extractor::LayoutAlign => {
            let from = layout.select(window, selector(&probe.from, "from")?)?;
            let to = layout.select(window, selector(&probe.to, "to")?)?;
            let px = layout.misalignment_px(from, to, probe.edge)?;
            number(vp(px), format!("{px} px between the {} edges", probe.edge))
        }
        Extractor::TouchTarget => {
            let candidates = match &probe.target {
                Some(target) => vec![layout.select(window, target)?],
                None => layout.clickables(window),
            };
            // A target passes or fails on its own size; what is hidden of it is only said.
            let (side, node) = candidates
                .iter()
                .filter_map(|i| {
                    let own = layout.node(*i).rect?;
                    Some((own.width().min(own.height()), *i))
                })
                .min()
                .ok_or(ExtractError::NoClickable)?;
            let hidden = match layout.visible_rect(node) {
                Some(visible) if layout.partly_hidden(node) => format!(
                    ", partly hidden: {}×{} px visible",
                    visible.width(),
                    visible.height()
                ),
                _ => String::new(),
            };
            number(
                vp(side),
                format!(
                    "smallest side of {} ({side} px{hidden})",
                    layout.selector_of(node)
                ),
            )
        }
        Extractor::Labels => {
            let unlabeled: Vec<String> = layout
                .unlabeled(window)
                .into_iter()
                .map(|i| layout.selector_of(i))
                .collect();
            number(
                unlabeled.len() as f64,
                if unlabeled.is_empty() {
                    "none".to_owned()
                } else {
                    unlabeled.join(", ")
                },
            )
        }
        _ => {
            let node = layout.select(window, selector(&probe.target, "target")?)?;
            let bounds = layout
                .visible_rect(node)
                .filter(|r| !r.is_empty())
                .ok_or(ExtractError::OffScreen)?;
            let measured = contrast(&evidence.screen()?.image, bounds)?;
            number(
                measured.ratio,
                format!(
                    "{} on {} inside {}",
                    measured.foreground,
                    measured.background,
                    layout.selector_of(node)
                ),
            )
        }
    }
}
