//! A flow's first run as a filmstrip (each step's screen after it, the tapped point marked, a
//! swipe drawn as an arrow, the step's device time), and its response criteria on a time axis,
//! each against its own threshold from the lock.

use std::fmt::Write;

use super::view::{FlowStrip, Timing};
use super::{CHART_WIDTH, base64, escape, scrolling, svg_open};
use crate::report::numbers::{num, quantity};

pub(super) fn strip(strip: &FlowStrip<'_>) -> String {
    let record = &strip.figure.record;
    let mut html = format!(
        "<section><h2>Flow {}</h2><p><small>first run; times are device time since the flow began</small></p><div tabindex=\"0\" style=\"display:flex;gap:12px;overflow-x:auto;align-items:flex-start\">",
        escape(&record.flow)
    );
    for (step, screen) in record.steps.iter().zip(&strip.figure.screens) {
        let _ = write!(
            html,
            "<figure style=\"margin:0;width:{}px;flex:none\">",
            screen.as_ref().map_or(180, |s| s.width)
        );
        match screen {
            Some(screen) => {
                let _ = write!(
                    html,
                    "<svg width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"screen after step {n}\" style=\"border:1px solid #d0d7de\"><image href=\"data:image/png;base64,{png}\" width=\"{w}\" height=\"{h}\"/>",
                    w = screen.width,
                    h = screen.height,
                    n = step.step,
                    png = base64(&screen.png)
                );
                let scale = |p: i64| p as f64 / screen.factor as f64;
                if let (Some([x, y]), Some([tx, ty])) = (step.at, step.to) {
                    let _ = write!(
                        html,
                        "<line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"#cf222e\" stroke-width=\"3\"/><circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"6\" fill=\"#cf222e\"/>",
                        scale(x),
                        scale(y),
                        scale(tx),
                        scale(ty),
                        scale(tx),
                        scale(ty)
                    );
                } else if let Some([x, y]) = step.at {
                    let _ = write!(
                        html,
                        "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"9\" fill=\"none\" stroke=\"#cf222e\" stroke-width=\"3\"/><circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"2\" fill=\"#cf222e\"/>",
                        scale(x),
                        scale(y),
                        scale(x),
                        scale(y)
                    );
                }
                html.push_str("</svg>");
            }
            None => html.push_str(
                "<div style=\"height:120px;border:1px dashed #cf222e;display:flex;align-items:center;justify-content:center\"><small>no screen</small></div>",
            ),
        }
        let name = step
            .name
            .as_ref()
            .map_or_else(String::new, |n| format!(" ({})", escape(n)));
        let _ = write!(
            html,
            "<figcaption><small><b>{}.</b> {}{name}<br>at {:.3} s, took {} ms{}</small></figcaption></figure>",
            step.step,
            escape(&step.action),
            step.started_ms as f64 / 1000.0,
            step.took_ms,
            step.failed.as_ref().map_or_else(String::new, |f| format!(
                "<br><span style=\"color:#cf222e\">{}</span>",
                escape(f)
            ))
        );
    }
    html.push_str("</div>");
    if !strip.timings.is_empty() {
        html.push_str(&timings(&strip.timings));
    }
    html.push_str("</section>");
    html
}

/// The response criteria on one time axis: every run a dot, the aggregate a bar (red when its
/// check failed), and each criterion's own threshold from the lock across its row; then the
/// same numbers as a table.
fn timings(timings: &[Timing<'_>]) -> String {
    let longest = timings
        .iter()
        .flat_map(|t| t.runs.iter().copied().chain(t.value).chain(t.limit_ms))
        .fold(1.0, f64::max)
        * 1.15;
    // Each row's name on its own line above its bar: the time axis has the chart's width,
    // less room right of the longest bar for its label.
    let (left, width) = (8.0, CHART_WIDTH - 8.0 - 140.0);
    let x = |ms: f64| left + ms / longest * width;
    let row_height = 58;
    let height = 40 + timings.len() * row_height;
    let mut svg = svg_open(
        CHART_WIDTH,
        height as f64,
        "response times of the flow's criteria",
    );
    for (row, timing) in timings.iter().enumerate() {
        let y = 6 + row * row_height;
        let colour = if timing.failed { "#cf222e" } else { "#1a7f37" };
        let _ = write!(
            svg,
            "<text x=\"{left}\" y=\"{}\" font-size=\"13\">{} {}</text>",
            y + 13,
            escape(timing.criterion_id),
            timing.what
        );
        let bar = y + 20;
        if let Some(limit) = timing.limit_ms {
            let _ = write!(
                svg,
                "<line x1=\"{0:.1}\" y1=\"{1}\" x2=\"{0:.1}\" y2=\"{2}\" stroke=\"#a40e26\" stroke-width=\"2\" stroke-dasharray=\"4 3\"><title>threshold: at most {3} ms</title></line><text x=\"{5:.1}\" y=\"{4}\" font-size=\"13\" text-anchor=\"middle\" fill=\"#a40e26\">≤ {3} ms</text>",
                x(limit),
                bar - 2,
                bar + 20,
                num(Some(limit)),
                bar + 34,
                // Centred under the line, kept whole inside the chart.
                x(limit).clamp(36.0, CHART_WIDTH - 36.0)
            );
        }
        if let Some(value) = timing.value {
            // The label goes right of the bar, of every run's dot and of the threshold.
            let end = timing
                .runs
                .iter()
                .copied()
                .chain(timing.limit_ms)
                .fold(value, f64::max);
            let _ = write!(
                svg,
                "<rect x=\"{left}\" y=\"{}\" width=\"{:.1}\" height=\"18\" fill=\"{colour}\" opacity=\"0.35\"/><text x=\"{:.1}\" y=\"{}\" font-size=\"14\">{} ms{}</text>",
                bar,
                x(value) - left,
                x(end) + 8.0,
                bar + 14,
                num(Some(value)),
                if timing.failed { " (failed)" } else { "" }
            );
        }
        for run in &timing.runs {
            let _ = write!(
                svg,
                "<circle cx=\"{:.1}\" cy=\"{}\" r=\"4\" fill=\"{colour}\"><title>{} ms</title></circle>",
                x(*run),
                bar + 9,
                num(Some(*run))
            );
        }
    }
    let _ = write!(
        svg,
        "<line x1=\"{left}\" y1=\"{0}\" x2=\"{1}\" y2=\"{0}\" stroke=\"#57606a\"/><text x=\"{left}\" y=\"{2}\" font-size=\"13\">0</text><text x=\"{1}\" y=\"{2}\" font-size=\"13\" text-anchor=\"end\">{3:.0} ms</text></svg></div>",
        height - 20,
        left + width,
        height - 4,
        longest
    );
    let mut table = String::from(
        "<table><tr><th>criterion</th><th>measured</th><th>runs (ms)</th><th>threshold</th><th>result</th></tr>",
    );
    for t in timings {
        let runs: Vec<String> = t.runs.iter().map(|r| num(Some(*r))).collect();
        let _ = write!(
            table,
            "<tr><td>{} {}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(t.criterion_id),
            t.what,
            escape(&quantity(t.value, Some("ms"))),
            runs.join(", "),
            t.limit_ms
                .map_or_else(|| "—".to_owned(), |l| format!("≤ {} ms", num(Some(l)))),
            if t.failed { "fail" } else { "pass" }
        );
    }
    table.push_str("</table>");
    let _ = write!(
        svg,
        "<details><summary>the response times as a table</summary>{}</details>",
        scrolling(&table)
    );
    svg
}
