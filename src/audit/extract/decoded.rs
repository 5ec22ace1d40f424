//! One session visit's evidence files, each decoded on first use (a trace streamed, a layout,
//! a screenshot) and kept for every probe of the visit and the report's figures.

use super::super::evidence::{Context, Files};
use super::super::evidence::{FLOW_RECORD, FLOW_TRACE, FlowRecord};
use super::ExtractError;
use super::{Placement, placement};
use crate::input::{MAX_REPORT_BYTES, ReadError, open_input, read_bounded};
use crate::pack::Point;
use crate::probe::Evidence;
use crate::probe::hitrace::{self, Analysis, Found, TraceReport};
use crate::probe::layout::Layout;
use crate::probe::screenshot::Image;
use std::cell::OnceCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Largest evidence file read whole (a layout dump, a screenshot, a reply); traces stream.
pub(super) const MAX_EVIDENCE_BYTES: u64 = MAX_REPORT_BYTES;
/// A trace, analysed: the report and every frame interval (for the report's chart).
#[derive(Debug)]
pub struct Trace {
    /// What the analysis found.
    pub(crate) report: TraceReport,
    /// Every interval between consecutive presented frames, in ms.
    pub(crate) intervals_ms: Vec<f64>,
    /// What the app's trace points the visit asks about found.
    pub(crate) points: Vec<(Point, Found)>,
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
    pub(super) context: Context<'a>,
    trace: OnceCell<Result<Trace, ExtractError>>,
    layout: OnceCell<Result<Layout, ExtractError>>,
    screen: OnceCell<Result<Screenshot, ExtractError>>,
    steps: OnceCell<BTreeMap<String, Result<Analysis, ExtractError>>>,
    window: OnceCell<Result<Analysis, ExtractError>>,
    placement: OnceCell<Option<Placement>>,
    /// The app's trace points the visit's criteria ask about, answered as each trace streams.
    points: Vec<Point>,
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
            window: OnceCell::new(),
            placement: OnceCell::new(),
            points: Vec::new(),
        }
    }

    /// The density the visit's lengths in vp are read at.
    pub(crate) fn density(&self) -> Option<f64> {
        self.context.vpr
    }

    /// Where the visit's readiness poll found the app's window (a session's `ready.txt`, a
    /// flow launch's `step-01-ready.txt`), when it says.
    pub(crate) fn placement(&self) -> Option<&Placement> {
        self.placement
            .get_or_init(|| {
                self.files
                    .iter()
                    .filter(|(name, _)| name.ends_with(crate::playbook::READY))
                    .filter_map(|(_, path)| std::fs::read_to_string(path).ok())
                    .find_map(|said| placement(&said))
            })
            .as_ref()
    }

    /// The same evidence, its lengths in vp read at `vpr` when that is known (the density of
    /// the display the visit's app window was on).
    pub(crate) fn read_at(mut self, vpr: Option<f64>) -> Decoded<'a> {
        if vpr.is_some() {
            self.context.vpr = vpr;
        }
        self
    }

    /// The same evidence, its traces also answering `points`.
    pub(crate) fn asking(self, points: Vec<Point>) -> Decoded<'a> {
        Decoded { points, ..self }
    }

    /// The trace a flow kept over its steps, streamed once.
    pub(crate) fn window_trace(&self) -> Result<&Analysis, ExtractError> {
        self.window
            .get_or_init(|| {
                let path = self
                    .files
                    .get(FLOW_TRACE)
                    .ok_or(ExtractError::NotKept(FLOW_TRACE))?;
                let analysis = stream(path, Analysis::of_step().asking(&self.points))?;
                self.fresh(FLOW_TRACE, analysis)
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Every flow step's trace of the visit, streamed once, by file name.
    pub(crate) fn step_traces(&self) -> &BTreeMap<String, Result<Analysis, ExtractError>> {
        self.steps.get_or_init(|| {
            self.files
                .iter()
                .filter(|(name, _)| name.starts_with("step-") && name.ends_with(".ftrace"))
                .map(|(name, path)| {
                    let analysis = stream(path, Analysis::of_step().asking(&self.points))
                        .and_then(|a| self.fresh(name, a));
                    (name.clone(), analysis)
                })
                .collect()
        })
    }

    /// `analysis` of the trace `name`, unless it ends before the device's clock its
    /// recording began at (kept beside it, [`clock_file`]), or that clock does not read (then
    /// whether the trace is this visit's cannot be told); a visit recorded before dwpipe kept
    /// that clock is taken as it is.
    fn fresh(&self, name: &str, analysis: Analysis) -> Result<Analysis, ExtractError> {
        // A file cut short is not the window it was asked for: what it lacks (a late slow
        // frame, the launch's end) is not there to count, whatever reads it.
        if analysis.cut_mid_line {
            return Err(ExtractError::CutTrace(name.to_owned()));
        }
        let Some(path) = self.files.get(&clock_file(name)) else {
            return Ok(analysis);
        };
        let text = String::from_utf8_lossy(&read(path)?).into_owned();
        let Some(began_ns) = clock_ns(&text) else {
            return Err(ExtractError::Unmeasured(format!(
                "the device's clock before the trace began did not read (`{}`): whether the trace is this visit's, not a file an earlier run left, cannot be told",
                crate::text::one_line(&text, 120)
            )));
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

    pub(crate) fn text(&self, evidence: Evidence) -> Result<String, ExtractError> {
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
                    Analysis::new(Some(self.context.bundle.to_owned())).asking(&self.points),
                )?;
                let analysis = self.fresh(Evidence::Trace.as_str(), analysis)?;
                Ok(Trace {
                    report: hitrace::report(&analysis),
                    intervals_ms: analysis.frames.intervals_ms(),
                    points: analysis
                        .points
                        .found()
                        .map(|(p, f)| (p.clone(), f.clone()))
                        .collect(),
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

/// The file that keeps the device's clock at the start of the trace `trace`
/// (`trace.ftrace` → `trace.clock`, `step-02.ftrace` → `step-02.clock`).
pub(crate) fn clock_file(trace: &str) -> String {
    format!("{}.clock", trace.strip_suffix(".ftrace").unwrap_or(trace))
}

/// The device's clock a clock file keeps, in nanoseconds since boot: the start of the `cat`
/// that read `/proc/self/stat` (field 22, ticks of USER_HZ, 100 a second), or in a visit
/// recorded before dwpipe read that, `/proc/uptime`'s first field (seconds).
pub(super) fn clock_ns(text: &str) -> Option<u64> {
    let line = text.lines().map(str::trim).find(|l| !l.is_empty())?;
    if let Some((_, fields)) = line.rsplit_once(')') {
        let start: u64 = fields.split_whitespace().nth(22 - 3)?.parse().ok()?;
        return start.checked_mul(10_000_000);
    }
    let seconds = line.split_whitespace().next()?;
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
pub(super) fn read(path: &Path) -> Result<Vec<u8>, ExtractError> {
    read_bounded(path, MAX_EVIDENCE_BYTES, "an evidence file").map_err(|source| {
        ExtractError::Unreadable {
            path: path.to_owned(),
            source: Arc::new(source),
        }
    })
}

/// A trace streamed through `analysis` in bounded memory.
pub(super) fn stream(path: &Path, mut analysis: Analysis) -> Result<Analysis, ExtractError> {
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
