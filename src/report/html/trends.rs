//! Each criterion's trend over the history of this one device (never another device of its
//! model, never an A/B arm): with three audits or more,
//! an inline SVG — each audit a dot on a line (this audit filled, a failing audit red), each
//! naming its device and run and linking to its report, the pack's threshold dashed, every
//! change point E-Divisive found in this series marked, the first and last audit labelled by
//! date and commit, and the same points as a table; shorter histories say nothing a chart
//! would, and are one line each.

use std::fmt::Write;

use crate::audit::{Trend, TrendPoint};
use crate::report::numbers::quantity;

use super::{escape, scrolling, svg_open_as};

const WIDTH: f64 = super::CHART_WIDTH;
const HEIGHT: f64 = 200.0;
const LEFT: f64 = 72.0;
const TOP: f64 = 14.0;
const BOTTOM: f64 = 42.0;

/// A chart needs this many points to show a direction.
const CHARTED: usize = 3;

/// A criterion's trend and the pack's limits on it, in the trend's unit.
pub(crate) struct TrendView<'a> {
    pub(crate) criterion_id: &'a str,
    pub(crate) trend: &'a Trend,
    /// The least and the most the criterion allows.
    pub(crate) limits: (Option<f64>, Option<f64>),
}

/// Every trend: the short ones folded into one list, then a chart for each longer one.
pub(super) fn trends(views: &[TrendView<'_>]) -> String {
    let (short, long): (Vec<_>, Vec<_>) =
        views.iter().partition(|v| v.trend.points.len() < CHARTED);
    let mut html = String::new();
    if !short.is_empty() {
        html.push_str("<section><h2>History</h2><p><small>Fewer than three audits of this device in the history: no trend yet.</small></p><ul>");
        for view in short {
            let points: Vec<String> = view
                .trend
                .points
                .iter()
                .map(|p| {
                    format!(
                        "{} ({})",
                        escape(&quantity(Some(p.value), view.trend.unit.as_deref())),
                        escape(&describe(p))
                    )
                })
                .collect();
            let _ = write!(
                html,
                "<li><b>{}</b>: {}</li>",
                escape(view.criterion_id),
                points.join(", ")
            );
        }
        html.push_str("</ul></section>");
    }
    for view in long {
        html.push_str(&chart(view));
    }
    html
}

/// `2026-12-01T10:00:00Z · FMR0223C13000649 run 12 · commit 1a2b3c4d · replay · fail`.
fn describe(p: &TrendPoint) -> String {
    let mut words = vec![p.label.clone()];
    words.push(match p.run {
        Some(run) => format!("{} run {run}", p.serial),
        None => p.serial.clone(),
    });
    words.extend(p.commit.as_ref().map(|c| format!("commit {}", short(c))));
    if p.replay {
        words.push("replay".to_owned());
    }
    words.extend(p.arm.as_ref().map(|a| format!("A/B {a}")));
    words.push(p.verdict.clone());
    words.join(" · ")
}

/// Whether the audit failed the criterion.
fn failing(p: &TrendPoint) -> bool {
    p.verdict == "fail"
}

fn short(commit: &str) -> &str {
    &commit[..commit.len().min(8)]
}

fn chart(view: &TrendView<'_>) -> String {
    let trend = view.trend;
    let points = &trend.points;
    let unit = trend.unit.as_deref();
    let limits = [view.limits.0, view.limits.1];
    // The thresholds are in the range, so that the distance to them is seen.
    let (low, high) = points
        .iter()
        .map(|p| p.value)
        .chain(limits.iter().flatten().copied())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    let span = (high - low).max(f64::EPSILON);
    let step = (WIDTH - LEFT - 20.0) / (points.len().max(2) - 1) as f64;
    let x = |i: usize| LEFT + step * i as f64;
    let y = |v: f64| TOP + (HEIGHT - TOP - BOTTOM) * (1.0 - (v - low) / span);
    let mut svg = format!(
        "<section><h2>Trend of {id} on {serial}</h2><p><small>{n} audits of this device in the history, oldest first; {c} change point(s) in its series. Each point links to its report. The model's other devices and A/B arms are series of their own, not drawn here.</small></p>{}",
        svg_open_as(
            "group",
            WIDTH,
            HEIGHT,
            &format!(
                "trend of {} over {} audits",
                view.criterion_id,
                points.len()
            )
        ),
        id = escape(view.criterion_id),
        serial = escape(&trend.serial),
        n = points.len(),
        c = trend.changes.len(),
    );
    let mut labelled: Vec<f64> = Vec::new();
    for v in [high, low] {
        if labelled.iter().all(|l| (y(*l) - y(v)).abs() > 15.0) {
            labelled.push(v);
            let _ = write!(
                svg,
                "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"13\" text-anchor=\"end\" dominant-baseline=\"middle\">{}</text>",
                LEFT - 6.0,
                y(v),
                escape(&quantity(Some(v), unit))
            );
        }
    }
    for (limit, word) in [(view.limits.0, "at least"), (view.limits.1, "at most")] {
        let Some(limit) = limit else { continue };
        let _ = write!(
            svg,
            "<line x1=\"{LEFT}\" y1=\"{0:.1}\" x2=\"{1}\" y2=\"{0:.1}\" stroke=\"#cf222e\" stroke-dasharray=\"6 4\"/><text x=\"{1}\" y=\"{2:.1}\" font-size=\"13\" text-anchor=\"end\" fill=\"#a40e26\">threshold: {word} {3}</text>",
            y(limit),
            WIDTH - 20.0,
            // Above the line, or below it when the line is at the top.
            if y(limit) - 4.0 < TOP + 13.0 {
                y(limit) + 15.0
            } else {
                y(limit) - 4.0
            },
            escape(&quantity(Some(limit), unit))
        );
    }
    for &at in &trend.changes {
        let cx = (x(at - 1) + x(at)) / 2.0;
        let _ = write!(
            svg,
            "<line x1=\"{cx:.1}\" y1=\"{TOP}\" x2=\"{cx:.1}\" y2=\"{:.1}\" stroke=\"#8250df\" stroke-dasharray=\"4 3\"><title>changed from {}</title></line>",
            HEIGHT - BOTTOM,
            escape(&points[at].label)
        );
    }
    let line: Vec<String> = points
        .iter()
        .enumerate()
        .map(|(i, p)| format!("{:.1},{:.1}", x(i), y(p.value)))
        .collect();
    let _ = write!(
        svg,
        "<polyline points=\"{}\" fill=\"none\" stroke=\"#57606a\"/>",
        line.join(" ")
    );
    for (i, p) in points.iter().enumerate() {
        svg.push_str(&point(p, (x(i), y(p.value)), unit));
    }
    // The first and the last audit, by date and commit.
    for (i, anchor) in [(0, "start"), (points.len() - 1, "end")] {
        let p = &points[i];
        let date = p.label.split('T').next().unwrap_or(&p.label);
        let commit = p
            .commit
            .as_ref()
            .map_or_else(String::new, |c| format!(" · {}", short(c)));
        let _ = write!(
            svg,
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"13\" text-anchor=\"{anchor}\">{}{}</text>",
            x(i),
            HEIGHT - 12.0,
            escape(date),
            escape(&commit)
        );
    }
    svg.push_str(super::SVG_CLOSE);
    svg.push_str(&legend(trend));
    svg.push_str("<details><summary>the points as a table</summary>");
    svg.push_str(&scrolling(&table(points, unit)));
    svg.push_str("</details></section>");
    svg
}

/// One audit's mark at `(cx, cy)`: a circle, a square for a replay, a diamond for an A/B
/// arm; filled for this audit; linked to its report.
fn point(p: &TrendPoint, (cx, cy): (f64, f64), unit: Option<&str>) -> String {
    let colour = if failing(p) { "#cf222e" } else { "#0969da" };
    let fill = if p.current { colour } else { "#ffffff" };
    let title = format!(
        "<title>{}: {}</title>",
        escape(&describe(p)),
        escape(&quantity(Some(p.value), unit))
    );
    let mark = if p.replay {
        format!(
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"8\" height=\"8\" fill=\"{fill}\" stroke=\"{colour}\">{title}</rect>",
            cx - 4.0,
            cy - 4.0
        )
    } else if p.arm.is_some() {
        format!(
            "<path d=\"M{cx:.1} {:.1} l5 5 l-5 5 l-5 -5 z\" fill=\"{fill}\" stroke=\"{colour}\">{title}</path>",
            cy - 5.0
        )
    } else {
        format!(
            "<circle cx=\"{cx:.1}\" cy=\"{cy:.1}\" r=\"{}\" fill=\"{fill}\" stroke=\"{colour}\" stroke-width=\"{}\">{title}</circle>",
            if p.current { 5 } else { 4 },
            if failing(p) { 2 } else { 1 }
        )
    };
    match &p.report {
        Some(report) => format!("<a href=\"{}\">{mark}</a>", escape(report)),
        None => mark,
    }
}

/// What the marks mean, for the kinds this chart draws.
fn legend(trend: &Trend) -> String {
    let points = &trend.points;
    let kinds = [
        (
            points.iter().any(failing),
            "red: the audit failed this criterion",
        ),
        (points.iter().any(|p| p.replay), "square: a replay"),
        (
            points.iter().any(|p| p.arm.is_some()),
            "diamond: an A/B arm",
        ),
        (
            !trend.changes.is_empty(),
            "violet dashed line: a change point",
        ),
    ];
    let legend: Vec<&str> = std::iter::once("filled: this audit")
        .chain(kinds.iter().filter(|(shown, _)| *shown).map(|(_, w)| *w))
        .collect();
    format!("<p><small>{}</small></p>", legend.join(" · "))
}

/// The points as a table, each linked to its report.
fn table(points: &[TrendPoint], unit: Option<&str>) -> String {
    let mut table = String::from("<table><tr><th>audit</th><th>value</th><th>result</th></tr>");
    for p in points {
        let what = match &p.report {
            Some(report) => format!(
                "<a href=\"{}\">{}</a>",
                escape(report),
                escape(&describe(p))
            ),
            None => escape(&describe(p)),
        };
        let _ = write!(
            table,
            "<tr><td>{what}</td><td>{}</td><td class=\"{}\">{}</td></tr>",
            escape(&quantity(Some(p.value), unit)),
            if failing(p) { "fail" } else { "pass" },
            escape(&p.verdict)
        );
    }
    table.push_str("</table>");
    table
}
