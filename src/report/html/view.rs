//! What the HTML page shows, computed in one place from the report, the figures the audit
//! decoded and the pack: the rows of the verdict table, the charts' data and the shapes drawn
//! over the screenshot. The markup in the sibling modules only lays these out.

use std::collections::HashMap;

use crate::audit::{Figures, FlowFigure, FrameSeries, MeasurementRecord, Trend};
use crate::pack::{Aggregate, Criterion, Pack, ResponseMetric};
use crate::probe::hitrace::ColdStart;
use crate::probe::layout::{Rect, to_vp};

use super::super::AuditReport;
use super::TOUCH_BASELINE_VP;

/// The whole page.
pub(crate) struct Page<'a> {
    pub(super) verdict: &'static str,
    pub(super) pack_sha256: &'a str,
    pub(super) device: String,
    pub(super) dwpipe_version: &'a str,
    pub(super) rows: Vec<Row<'a>>,
    pub(super) cold_starts: Vec<ColdStartChart<'a>>,
    pub(super) frames: Vec<FramesChart<'a>>,
    pub(super) screen: Option<ScreenView<'a>>,
    pub(super) flows: Vec<FlowStrip<'a>>,
    /// Each criterion's trend over the history, in pack order.
    pub(super) trends: Vec<(&'a str, &'a Trend)>,
}

/// A flow's first run as a filmstrip, with the response times of the criteria measured in it.
pub(super) struct FlowStrip<'a> {
    pub(super) figure: &'a FlowFigure,
    pub(super) timings: Vec<Timing<'a>>,
}

/// One `perf.response` criterion's runs.
pub(super) struct Timing<'a> {
    pub(super) criterion_id: &'a str,
    /// `response`, or `complete (trace-based)`.
    pub(super) what: &'static str,
    /// Every run's reading, in ms.
    pub(super) runs: Vec<f64>,
    /// The aggregate, in ms.
    pub(super) value: Option<f64>,
}

/// A criterion's row of the verdict table.
pub(super) struct Row<'a> {
    pub(super) criterion_id: &'a str,
    pub(super) dimension: &'static str,
    pub(super) weight: &'static str,
    pub(super) result: &'static str,
    pub(super) recomputed: &'static str,
    pub(super) actual: Option<&'a str>,
    pub(super) expected: Option<&'a str>,
    pub(super) reason: Option<&'a str>,
    pub(super) evidence: &'a str,
}

/// A cold-start criterion's runs, each split into its phases.
pub(super) struct ColdStartChart<'a> {
    pub(super) criterion_id: &'a str,
    pub(super) actual: &'a str,
    pub(super) aggregate: Aggregate,
    pub(super) run_count: usize,
    pub(super) runs: &'a [(u32, ColdStart)],
}

/// The histogram of a frames criterion's first run.
pub(super) struct FramesChart<'a> {
    pub(super) criterion_id: &'a str,
    pub(super) actual: &'a str,
    pub(super) frames: usize,
    pub(super) budget_ms: f64,
    /// The interval the axis ends at (twice the budget, or the longest interval).
    pub(super) top_ms: f64,
    /// The width of one bin, in ms.
    pub(super) bin_ms: f64,
    /// Frames per bin; the last bin holds everything beyond the axis.
    pub(super) counts: Vec<usize>,
}

/// Bins of the frame histogram.
pub(super) const BINS: usize = 40;

/// Something drawn over the screenshot.
pub(super) enum Shape {
    /// A node's box, labelled.
    Node {
        rect: Rect,
        colour: &'static str,
        label: String,
    },
    /// A measured gap between two nodes, labelled with the criterion's reading.
    Gap { from: Rect, to: Rect, label: String },
}

/// The screenshot with what was measured on it.
pub(super) struct ScreenView<'a> {
    pub(super) png: &'a [u8],
    pub(super) width: usize,
    pub(super) height: usize,
    pub(super) shapes: Vec<Shape>,
}

impl<'a> Page<'a> {
    /// The page of a report.
    pub(crate) fn new(report: &'a AuditReport, figures: &'a Figures, pack: &'a Pack) -> Page<'a> {
        let device = report.device.as_ref().map_or_else(String::new, |d| {
            format!(
                "{} · {} · density {}",
                d.serial,
                d.model.clone().unwrap_or_default(),
                d.virtual_pixel_ratio
                    .map_or_else(|| "?".to_owned(), |v| v.to_string())
            )
        });
        let measured_by = |probe: &str| -> Vec<&'a MeasurementRecord> {
            report
                .checks
                .iter()
                .flat_map(|c| &c.measurements)
                .filter(|m| m.probe == probe)
                .collect()
        };
        let not_measured = |m: &'a MeasurementRecord| m.actual.as_deref().unwrap_or("not measured");
        Page {
            verdict: report.verdict.as_str(),
            pack_sha256: &report.pack_sha256,
            device,
            dwpipe_version: &report.dwpipe_version,
            rows: report
                .checks
                .iter()
                .map(|entry| {
                    let c = &entry.check;
                    Row {
                        criterion_id: &c.criterion_id,
                        dimension: c.dimension.as_str(),
                        weight: c.weight.as_str(),
                        result: c.result.as_str(),
                        recomputed: c.assertion_verdict.as_str(),
                        actual: c.actual.as_deref(),
                        expected: c.expected.as_deref(),
                        reason: c.reason.as_deref(),
                        evidence: &c.evidence,
                    }
                })
                .collect(),
            cold_starts: measured_by("perf.cold-start")
                .into_iter()
                .map(|m| ColdStartChart {
                    criterion_id: &m.criterion_id,
                    actual: not_measured(m),
                    aggregate: m.aggregate,
                    run_count: m.runs.len(),
                    runs: figures
                        .cold_starts
                        .get(&m.criterion_id)
                        .map_or(&[][..], Vec::as_slice),
                })
                .collect(),
            frames: measured_by("perf.frames")
                .into_iter()
                .filter_map(|m| {
                    let series = figures.frames.get(&m.criterion_id)?;
                    Some(frames_chart(&m.criterion_id, not_measured(m), series))
                })
                .collect(),
            screen: screen(report, figures, pack),
            flows: flows(report, figures, pack),
            trends: report
                .checks
                .iter()
                .filter_map(|c| {
                    let id = c.check.criterion_id.as_str();
                    Some((id, figures.trends.get(id)?))
                })
                .collect(),
        }
    }
}

/// Every flow the audit ran, with the response criteria measured in it.
fn flows<'a>(report: &'a AuditReport, figures: &'a Figures, pack: &Pack) -> Vec<FlowStrip<'a>> {
    let args: HashMap<&str, &crate::pack::ProbeArgs> = pack
        .criteria
        .iter()
        .filter_map(|c| Some((c.id.as_str(), &c.assertion.as_ref()?.probe.as_ref()?.args)))
        .collect();
    figures
        .flows
        .values()
        .map(|figure| FlowStrip {
            figure,
            timings: report
                .checks
                .iter()
                .flat_map(|c| &c.measurements)
                .filter_map(|m| {
                    let args = args.get(m.criterion_id.as_str())?;
                    (m.probe == "perf.response"
                        && args.flow.as_deref() == Some(figure.record.flow.as_str()))
                    .then(|| Timing {
                        criterion_id: &m.criterion_id,
                        what: match args.response {
                            ResponseMetric::Response => "response",
                            ResponseMetric::Complete => "complete (trace-based)",
                        },
                        runs: m
                            .runs
                            .iter()
                            .filter_map(|r| r.value.as_ref()?.as_number())
                            .collect(),
                        value: m.value.as_ref().and_then(crate::audit::Value::as_number),
                    })
                })
                .collect(),
        })
        .collect()
}

fn frames_chart<'a>(
    criterion_id: &'a str,
    actual: &'a str,
    series: &FrameSeries,
) -> FramesChart<'a> {
    let budget = series.budget_ms;
    let intervals = &series.intervals_ms;
    let top = intervals.iter().copied().fold(budget * 2.0, f64::max);
    let width = top / BINS as f64;
    let mut counts = vec![0usize; BINS + 1];
    for interval in intervals {
        counts[((interval / width) as usize).min(BINS)] += 1;
    }
    FramesChart {
        criterion_id,
        actual,
        frames: intervals.len() + 1,
        budget_ms: budget,
        top_ms: top,
        bin_ms: width,
        counts,
    }
}

/// The screen of the first on-screen criterion: every touch target (green at or above the
/// platform's 48 vp, red below), then each layout or accessibility criterion's nodes.
fn screen<'a>(report: &AuditReport, figures: &'a Figures, pack: &Pack) -> Option<ScreenView<'a>> {
    let figure = figures.screen.as_ref()?;
    let layout = &figure.layout;
    let window = layout.app_window(Some(&pack.doc.app.bundle.value)).ok()?;
    let vpr = report
        .device
        .as_ref()
        .and_then(|d| d.virtual_pixel_ratio)
        .unwrap_or(1.0);
    let mut shapes = Vec::new();
    for node in layout.clickables(window) {
        // Drawn where it is visible, coloured by its own size (the touch-target rule).
        let (Some(own), Some(rect)) = (layout.node(node).rect, layout.visible_rect(node)) else {
            continue;
        };
        let side = to_vp(own.width().min(own.height()), vpr);
        shapes.push(Shape::Node {
            rect,
            colour: if side < TOUCH_BASELINE_VP {
                "#cf222e"
            } else {
                "#1a7f37"
            },
            label: format!("{} {side} vp", layout.selector_of(node)),
        });
    }
    let on_screen = report
        .checks
        .iter()
        .flat_map(|c| &c.measurements)
        .filter(|m| m.probe.starts_with("layout.") || m.probe.starts_with("a11y."));
    let criteria: HashMap<&str, &Criterion> =
        pack.criteria.iter().map(|c| (c.id.as_str(), c)).collect();
    for measurement in on_screen {
        let Some(args) = criteria
            .get(measurement.criterion_id.as_str())
            .and_then(|c| c.assertion.as_ref()?.probe.as_ref())
            .map(|p| &p.args)
        else {
            continue;
        };
        let node = |selector: &Option<crate::pack::Selector>| {
            selector
                .as_ref()
                .and_then(|s| layout.select(window, s).ok())
        };
        let label = format!(
            "{}: {}",
            measurement.criterion_id,
            measurement.actual.as_deref().unwrap_or("?")
        );
        match (node(&args.from), node(&args.to), node(&args.target)) {
            (Some(from), Some(to), _) => {
                if let (Some(from), Some(to)) = (layout.node(from).rect, layout.node(to).rect) {
                    shapes.push(Shape::Gap { from, to, label });
                }
            }
            (_, _, Some(target)) => {
                if let Some(rect) = layout.visible_rect(target) {
                    shapes.push(Shape::Node {
                        rect,
                        colour: "#8250df",
                        label,
                    });
                }
            }
            _ => {}
        }
    }
    Some(ScreenView {
        png: &figure.png,
        width: figure.width,
        height: figure.height,
        shapes,
    })
}
