//! A flow's first run as a filmstrip (each step's screen after it, the tapped point marked, a
//! swipe drawn as an arrow, the step's device time), and its response criteria on a time axis
//! against Huawei's click-completion lines (900 ms pass, 1600 ms fail).

use std::fmt::Write;

use super::view::{FlowStrip, Timing};
use super::{base64, escape};

/// Huawei's click-completion lines (rule 0404): pass at or below, warn to, fail above.
const PASS_MS: f64 = 900.0;
const FAIL_MS: f64 = 1600.0;

pub(super) fn strip(strip: &FlowStrip<'_>) -> String {
    let record = &strip.figure.record;
    let mut html = format!(
        "<section><h2>Flow {}</h2><p><small>first run; times are device time since the flow began</small></p><div style=\"display:flex;gap:12px;overflow-x:auto;align-items:flex-start\">",
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
                    "<svg width=\"{w}\" height=\"{h}\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"screen after step {n}\" style=\"border:1px solid #d0d7de\"><image href=\"data:image/png;base64,{png}\" width=\"{w}\" height=\"{h}\"/>",
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
            "<figcaption><small><b>{}.</b> {}{name}<br>at {:.3} s, {} ms{}</small></figcaption></figure>",
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

/// The response criteria on one time axis: every run a dot, the aggregate a bar.
fn timings(timings: &[Timing<'_>]) -> String {
    let longest = timings
        .iter()
        .flat_map(|t| t.runs.iter().copied().chain(t.value))
        .fold(FAIL_MS * 1.1, f64::max);
    let (left, width) = (230.0, 560.0);
    let x = |ms: f64| left + ms / longest * width;
    let height = 50 + timings.len() * 30;
    let mut svg = format!(
        "<svg width=\"820\" height=\"{height}\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"response times\">"
    );
    for (ms, colour, label) in [
        (PASS_MS, "#9a6700", "900 ms pass"),
        (FAIL_MS, "#cf222e", "1600 ms fail"),
    ] {
        let _ = write!(
            svg,
            "<line x1=\"{0:.1}\" y1=\"16\" x2=\"{0:.1}\" y2=\"{1}\" stroke=\"{colour}\" stroke-dasharray=\"4 3\"/><text x=\"{0:.1}\" y=\"12\" font-size=\"11\" text-anchor=\"middle\" fill=\"{colour}\">{label}</text>",
            x(ms),
            height - 20
        );
    }
    for (row, timing) in timings.iter().enumerate() {
        let y = 26 + row * 30;
        let _ = write!(
            svg,
            "<text x=\"0\" y=\"{}\" font-size=\"12\">{} {}</text>",
            y + 14,
            escape(timing.criterion_id),
            timing.what
        );
        if let Some(value) = timing.value {
            // The label goes right of the bar and of every run's dot.
            let end = timing.runs.iter().copied().fold(value, f64::max);
            let _ = write!(
                svg,
                "<rect x=\"{left}\" y=\"{y}\" width=\"{:.1}\" height=\"18\" fill=\"#0969da\" opacity=\"0.35\"/><text x=\"{:.1}\" y=\"{}\" font-size=\"12\">{value} ms</text>",
                x(value) - left,
                x(end) + 10.0,
                y + 14
            );
        }
        for run in &timing.runs {
            let _ = write!(
                svg,
                "<circle cx=\"{:.1}\" cy=\"{}\" r=\"4\" fill=\"#0969da\"><title>{run} ms</title></circle>",
                x(*run),
                y + 9
            );
        }
    }
    let _ = write!(
        svg,
        "<line x1=\"{left}\" y1=\"{0}\" x2=\"{1}\" y2=\"{0}\" stroke=\"#57606a\"/><text x=\"{left}\" y=\"{2}\" font-size=\"11\">0</text><text x=\"{1}\" y=\"{2}\" font-size=\"11\" text-anchor=\"end\">{3:.0} ms</text></svg>",
        height - 20,
        left + width,
        height - 6,
        longest
    );
    svg
}
