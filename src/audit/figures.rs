//! What the report draws besides the numbers, taken from the evidence while the audit has it
//! decoded, so the report never opens or parses an evidence file again: every cold start with
//! its phases, the first run's frame intervals, and the screen the layout probes measured.

use std::collections::{BTreeMap, HashMap};

use super::{Shrunk, thumbnail_of};
use crate::hash::sha256_hex;
use crate::probe::Extractor;
use crate::probe::hitrace::ColdStart;
use crate::probe::layout::Layout;

use super::evidence::{FlowRecord, StepFile, step_file};
use super::extract::Decoded;

/// The frame budget assumed when the trace names none (60 Hz).
const DEFAULT_BUDGET_MS: f64 = 16.667;

/// A criterion's frame intervals (its first run).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FrameSeries {
    /// Every interval between consecutive presented frames, in ms.
    pub(crate) intervals_ms: Vec<f64>,
    /// The frame budget in force.
    pub(crate) budget_ms: f64,
}

/// The first run's screen, as the layout and accessibility probes measured it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ScreenFigure {
    /// The screenshot file, as pulled.
    pub(crate) png: Vec<u8>,
    /// Its width in px.
    pub(crate) width: usize,
    /// Its height in px.
    pub(crate) height: usize,
    /// The layout dump taken with it.
    pub(crate) layout: Layout,
    /// The density its lengths were read at (the display's own, on a phone with several).
    pub(crate) vpr: Option<f64>,
}

/// The first run of a flow: what each step did, and the screen after it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FlowFigure {
    /// `flow.json`.
    pub(crate) record: FlowRecord,
    /// Per step of the record, the screen after it (none when the step failed).
    pub(crate) screens: Vec<Option<Shrunk>>,
}

/// How wide a filmstrip frame is drawn.
const THUMBNAIL_PX: usize = 180;

/// Everything the report draws.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Figures {
    /// Per flow, its first run.
    pub(crate) flows: BTreeMap<String, FlowFigure>,
    /// Per cold-start criterion, each run's launch (runs without a whole launch left out).
    pub(crate) cold_starts: BTreeMap<String, Vec<(u32, ColdStart)>>,
    /// Per frames criterion, each run's intervals (the page draws the run the verdict took).
    pub(crate) frames: BTreeMap<String, Vec<(u32, FrameSeries)>>,
    /// The screen of the first on-screen criterion's first run.
    pub(crate) screen: Option<ScreenFigure>,
    /// Per numeric criterion, its values over the history (when the audit is recorded in one).
    pub(crate) trends: BTreeMap<String, Trend>,
}

/// A criterion's aggregate across the audits of its device model in the history, this one
/// last, and where the series changed.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Trend {
    /// The device whose series it is.
    pub(crate) serial: String,
    /// The unit.
    pub(crate) unit: Option<String>,
    /// The points, oldest first.
    pub(crate) points: Vec<TrendPoint>,
    /// The indexes of `points` from which the series changed (E-Divisive).
    pub(crate) changes: Vec<usize>,
}

/// One audit in a trend.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TrendPoint {
    /// When it was recorded (or `this audit`).
    pub(crate) label: String,
    /// Its aggregate.
    pub(crate) value: f64,
    /// Whether it is the audit the page shows.
    pub(crate) current: bool,
    /// Its report as the history recorded it (none for the audit the page shows).
    pub(crate) report: Option<String>,
    /// The workspace's commit, when known.
    pub(crate) commit: Option<String>,
    /// Whether it replayed a capture.
    pub(crate) replay: bool,
    /// The A/B arm it was, when it was one.
    pub(crate) arm: Option<String>,
    /// The device it measured.
    pub(crate) serial: String,
    /// Its history row (none for the audit the page shows).
    pub(crate) run: Option<i64>,
    /// Its criterion's result: `pass`, `fail`, `unverified`.
    pub(crate) verdict: String,
}

impl Figures {
    /// Keeps the first run of a flow visit: its record and each step's screen, shrunk.
    pub(super) fn record_flow(&mut self, run: u32, evidence: &Decoded<'_>) {
        if run != 1 {
            return;
        }
        let Some(record) = evidence.flow_record() else {
            return;
        };
        if self.flows.contains_key(&record.flow) {
            return;
        }
        // A screen that did not change between steps (a wait, a tap that opened nothing) is
        // decoded once: decoding is most of what a filmstrip costs.
        let mut shrunk: HashMap<String, Option<Shrunk>> = HashMap::new();
        let screens = (0..record.steps.len())
            .map(|i| {
                let bytes = evidence.file_bytes(&step_file(i, StepFile::Screen))?;
                shrunk
                    .entry(sha256_hex(&bytes))
                    .or_insert_with(|| thumbnail_of(&bytes, THUMBNAIL_PX))
                    .clone()
            })
            .collect();
        self.flows
            .insert(record.flow.clone(), FlowFigure { record, screens });
    }

    /// Keeps what criterion `id` (read by `extractor`) shows of run `run`, from the session
    /// visit's decoded evidence. `draws_screen` says whether this criterion is the one whose
    /// screen the report shows.
    pub(super) fn record(
        &mut self,
        id: &str,
        extractor: Extractor,
        run: u32,
        evidence: &Decoded<'_>,
        draws_screen: bool,
    ) {
        match extractor {
            Extractor::ColdStart => {
                let runs = self.cold_starts.entry(id.to_owned()).or_default();
                if let Some(cold) = evidence
                    .trace()
                    .ok()
                    .and_then(|t| t.report.cold_start.clone())
                {
                    runs.push((run, cold));
                }
            }
            Extractor::Frames => {
                if let Ok(trace) = evidence.trace() {
                    self.frames.entry(id.to_owned()).or_default().push((
                        run,
                        FrameSeries {
                            intervals_ms: trace.intervals_ms.clone(),
                            budget_ms: trace.report.frames.budget_ms.unwrap_or(DEFAULT_BUDGET_MS),
                        },
                    ));
                }
            }
            _ => {}
        }
        if draws_screen
            && run == 1
            && self.screen.is_none()
            && let (Ok(screen), Ok(layout)) = (evidence.screen(), evidence.layout())
        {
            self.screen = Some(ScreenFigure {
                png: screen.bytes.clone(),
                width: screen.image.width,
                height: screen.image.height,
                layout: layout.clone(),
                vpr: evidence.density(),
            });
        }
    }
}
