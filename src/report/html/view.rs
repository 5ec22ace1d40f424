//! What the HTML page shows, computed in one place from the report, the figures the audit
//! decoded and the pack: the rows of the verdict table, the charts' data and the shapes drawn
//! over the screenshot. The markup in the sibling modules only lays these out.

use std::collections::HashMap;

use crate::audit::{Figures, FlowFigure, FrameSeries, MeasurementRecord};
use crate::gate::{AssertionVerdict, CheckResult};
use crate::pack::{Aggregate, Criterion, Pack};
use crate::probe::hitrace::ColdStart;
use crate::probe::layout::Rect;

use crate::schema::AuditReport;

mod screens;
use screens::{flows, screen};

/// The whole page.
pub(crate) struct Page<'a> {
    pub(super) verdict: &'static str,
    /// The verdict in one line.
    pub(super) headline: crate::report::headline::Headline,
    /// What the audit was, where and when, as far as the report knows: label and text.
    pub(super) facts: Vec<(&'static str, String)>,
    /// The lock and the spec beside it, relative to the page.
    pub(super) lock: Option<Links>,
    pub(super) rows: Vec<Row<'a>>,
    /// The criteria that failed, each with what was measured against what, and its evidence.
    pub(super) failures: Vec<Failing<'a>>,
    pub(super) cold_starts: Vec<ColdStartChart<'a>>,
    pub(super) frames: Vec<FramesChart<'a>>,
    pub(super) screen: Option<ScreenView<'a>>,
    pub(super) flows: Vec<FlowStrip<'a>>,
    /// Each criterion's trend over the history, in pack order.
    pub(super) trends: Vec<super::trends::TrendView<'a>>,
    /// The criteria not verified, each with why.
    pub(super) unverified: Vec<(&'a str, &'a str)>,
    /// Every error and warning of the audit, errors first.
    pub(super) diagnostics: Vec<&'a crate::diagnostic::Diagnostic>,
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
    /// The most the criterion allows, in ms, when its assertion sets an upper bound.
    pub(super) limit_ms: Option<f64>,
    /// Whether its check failed.
    pub(super) failed: bool,
}

/// Where the page's lock and spec are, relative to it.
pub(super) struct Links {
    pub(super) lock: String,
    pub(super) spec: String,
}

/// A failed criterion, for the list under the table.
pub(super) struct Failing<'a> {
    pub(super) criterion_id: &'a str,
    pub(super) statement: Option<&'a str>,
    pub(super) actual: Option<&'a str>,
    pub(super) expected: Option<&'a str>,
    pub(super) reason: Option<&'a str>,
    /// Each run's evidence files (relative to the page).
    pub(super) files: Vec<(u32, Vec<&'a str>)>,
}

/// A criterion's row of the verdict table.
pub(super) struct Row<'a> {
    pub(super) criterion_id: &'a str,
    pub(super) statement: Option<&'a str>,
    pub(super) dimension: &'static str,
    pub(super) weight: &'static str,
    pub(super) result: &'static str,
    pub(super) recomputed: &'static str,
    pub(super) actual: Option<&'a str>,
    pub(super) expected: Option<&'a str>,
    pub(super) reason: Option<&'a str>,
    pub(super) evidence: &'a str,
    /// The warnings said of it, by code (an unstable measurement).
    pub(super) warnings: Vec<&'a str>,
}

/// A cold-start criterion's runs, each split into its phases.
pub(super) struct ColdStartChart<'a> {
    pub(super) criterion_id: &'a str,
    pub(super) actual: &'a str,
    /// The most the criterion allows, in ms, when its assertion sets an upper bound.
    pub(super) limit_ms: Option<f64>,
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
    /// The interval the axis ends at: twice the budget, or past the longest interval, so that
    /// every frame is drawn.
    pub(super) top_ms: f64,
    /// The width of one bin, in ms.
    pub(super) bin_ms: f64,
    /// Frames per bin, over `[0, top_ms]`.
    pub(super) counts: Vec<usize>,
    /// Every run's reading and how they are folded (`median`): the histogram draws one run,
    /// the verdict takes them all.
    pub(super) runs: String,
    /// The run drawn: the one whose reading is the verdict's, or nearest it (a median of an
    /// even number of runs falls between two).
    pub(super) run: u32,
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
    Gap {
        from: Rect,
        to: Rect,
        label: String,
        /// Violet, or red when the measurement failed.
        colour: &'static str,
    },
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
        let criteria: HashMap<&str, &Criterion> =
            pack.criteria.iter().map(|c| (c.id.as_str(), c)).collect();
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
            verdict: report.word(),
            headline: crate::report::headline::audit(report),
            facts: facts(report),
            lock: report.lock.as_deref().map(|lock| Links {
                lock: lock.to_owned(),
                // A lock on disk always has its spec beside it (`Frozen::write`).
                spec: std::path::Path::new(lock)
                    .with_file_name(crate::pack::SPEC_FILE)
                    .to_string_lossy()
                    .into_owned(),
            }),
            failures: failures(report),
            rows: rows(report),
            cold_starts: measured_by("perf.cold-start")
                .into_iter()
                .map(|m| ColdStartChart {
                    criterion_id: &m.criterion_id,
                    actual: not_measured(m),
                    limit_ms: criteria
                        .get(m.criterion_id.as_str())
                        .and_then(|c| c.assertion.as_ref())
                        .and_then(|a| a.assertion.upper_bound_in("ms")),
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
                    let (run, series) = decided(m, figures.frames.get(&m.criterion_id)?)?;
                    let mut chart = frames_chart(&m.criterion_id, not_measured(m), series);
                    chart.run = run;
                    chart.runs = every_run(m);
                    Some(chart)
                })
                .collect(),
            unverified: report
                .checks
                .iter()
                .filter(|entry| entry.check.result == CheckResult::Unverified)
                .map(|entry| {
                    (
                        entry.check.criterion_id.as_str(),
                        entry.check.evidence.as_str(),
                    )
                })
                .collect(),
            diagnostics: {
                let mut all: Vec<_> = report.diagnostics.iter().collect();
                all.sort_by_key(|d| d.severity != crate::diagnostic::Severity::Error);
                all
            },
            screen: screen(report, figures, pack),
            flows: flows(report, figures, pack),
            trends: trends(report, figures, &criteria),
        }
    }
}

/// The criteria that failed, each with its files per run.
fn failures(report: &AuditReport) -> Vec<Failing<'_>> {
    report
        .checks
        .iter()
        .filter(|entry| {
            entry.check.result == CheckResult::Fail
                || entry.check.assertion_verdict == AssertionVerdict::Fail
        })
        .map(|entry| Failing {
            criterion_id: &entry.check.criterion_id,
            statement: entry.check.statement.as_deref(),
            actual: entry.check.actual.as_deref(),
            expected: entry.check.expected.as_deref(),
            reason: entry.check.reason.as_deref(),
            files: entry
                .measurements
                .iter()
                .flat_map(|m| &m.runs)
                .map(|r| (r.run, r.files.iter().map(|f| f.path.as_str()).collect()))
                .collect(),
        })
        .collect()
}

/// The table's rows, failing first.
fn rows(report: &AuditReport) -> Vec<Row<'_>> {
    let said = crate::report::headline::by_criterion(report);
    crate::report::failing_first(report)
        .into_iter()
        .map(|entry| {
            let c = &entry.check;
            Row {
                criterion_id: &c.criterion_id,
                statement: c.statement.as_deref(),
                dimension: c.dimension.as_str(),
                weight: c.weight.as_str(),
                result: c.result.as_str(),
                recomputed: c.assertion_verdict.as_str(),
                actual: c.actual.as_deref(),
                expected: c.expected.as_deref(),
                reason: c.reason.as_deref(),
                evidence: &c.evidence,
                warnings: crate::report::headline::warnings_of(&said, &c.criterion_id),
            }
        })
        .collect()
}

/// A trend for each criterion the history has points of, with the assertion's limits.
fn trends<'a>(
    report: &'a AuditReport,
    figures: &'a Figures,
    criteria: &HashMap<&str, &Criterion>,
) -> Vec<super::trends::TrendView<'a>> {
    report
        .checks
        .iter()
        .filter_map(|c| {
            let id = c.check.criterion_id.as_str();
            let trend = figures.trends.get(id)?;
            let assertion = criteria.get(id).and_then(|c| c.assertion.as_ref());
            let unit = trend.unit.as_deref().unwrap_or("");
            Some(super::trends::TrendView {
                criterion_id: id,
                trend,
                limits: (
                    assertion.and_then(|a| a.assertion.lower_bound_in(unit)),
                    assertion.and_then(|a| a.assertion.upper_bound_in(unit)),
                ),
            })
        })
        .collect()
}

/// The page's heading facts: the pack, dwpipe, when, the device, the workspace.
fn facts(report: &AuditReport) -> Vec<(&'static str, String)> {
    let mut facts = vec![
        ("pack", format!("sha256:{}", report.pack_sha256)),
        (
            "dwpipe",
            format!(
                "{} · report format {}",
                report.dwpipe_version, report.format_version
            ),
        ),
    ];
    if let (Some(started), Some(ended)) = (&report.started, &report.ended) {
        facts.push(("audited", format!("{started} to {ended}")));
    }
    if let Some(device_time) = &report.device_time {
        facts.push(("device time", device_time.summary()));
    }
    if let Some(d) = &report.device {
        let mut words = vec![d.serial.clone()];
        words.extend(d.model.clone());
        words.extend(d.software_version.clone());
        words.extend(d.virtual_pixel_ratio.map(|v| format!("density {v}")));
        words.extend(d.refresh_rate.map(|hz| format!("{hz} Hz")));
        words.extend(d.server.as_ref().map(|s| format!("hdc server {s}")));
        facts.push(("device", words.join(" · ")));
    }
    if let Some(source) = report.source.as_ref().filter(|s| s.is_replay()) {
        facts.push((
            "replay",
            format!("measured from {source}, not a live device"),
        ));
    }
    if let Some(states) = &report.device_state {
        facts.push(("state before", states.before.summary()));
        if let Some(after) = &states.after {
            facts.push(("state after", after.summary()));
        }
    }
    if let Some(why) = &report.unrecorded {
        facts.push(("not in the history", why.clone()));
    }
    if let Some(w) = &report.workspace {
        let commit = w
            .commit
            .as_ref()
            .map_or_else(String::new, |c| format!(" · commit {c}"));
        facts.push((
            "workspace",
            format!("fingerprint {}{commit}", w.fingerprint),
        ));
    }
    facts
}

fn frames_chart<'a>(
    criterion_id: &'a str,
    actual: &'a str,
    series: &FrameSeries,
) -> FramesChart<'a> {
    let budget = series.budget_ms;
    let intervals = &series.intervals_ms;
    let longest = intervals.iter().copied().fold(0.0, f64::max);
    // Past the longest interval by a bin, so that it is drawn inside the axis.
    let top = (budget * 2.0).max(longest * (BINS as f64 + 1.0) / BINS as f64);
    let width = top / BINS as f64;
    let mut counts = vec![0usize; BINS];
    for interval in intervals {
        counts[((interval / width) as usize).min(BINS - 1)] += 1;
    }
    FramesChart {
        criterion_id,
        actual,
        frames: intervals.len() + 1,
        budget_ms: budget,
        top_ms: top,
        bin_ms: width,
        counts,
        runs: String::new(),
        run: 1,
    }
}

/// The run the verdict took, and its intervals: the run whose reading is the aggregate's
/// (or nearest it); the first run kept when no reading is a number.
fn decided<'s>(
    m: &MeasurementRecord,
    runs: &'s [(u32, FrameSeries)],
) -> Option<(u32, &'s FrameSeries)> {
    let aggregate = m.value.as_ref().and_then(crate::audit::Value::as_number);
    let reading = |run: u32| {
        m.runs
            .iter()
            .find(|r| r.run == run)
            .and_then(|r| r.value.as_ref()?.as_number())
    };
    let distance = |run: u32| match (reading(run), aggregate) {
        (Some(r), Some(a)) => (r - a).abs(),
        _ => f64::INFINITY,
    };
    runs.iter()
        .min_by(|a, b| distance(a.0).total_cmp(&distance(b.0)))
        .map(|(run, series)| (*run, series))
}

/// Each run's reading of a measurement, `run 1: 26.7 ms/s · run 2: 55.206 ms/s …`, and the
/// aggregate the verdict takes.
fn every_run(m: &MeasurementRecord) -> String {
    let unit = m.unit.as_deref().unwrap_or("");
    let runs: Vec<String> = m
        .runs
        .iter()
        .map(
            |r| match r.value.as_ref().and_then(crate::audit::Value::as_number) {
                Some(value) => format!("run {}: {value}{unit}", r.run),
                None => format!("run {}: not measured", r.run),
            },
        )
        .collect();
    if runs.len() == 1 {
        return format!("{}; the verdict takes this run's reading", runs.join(""));
    }
    format!(
        "{}; the verdict takes their {}",
        runs.join(" · "),
        m.aggregate.as_str()
    )
}
