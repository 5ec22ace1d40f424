//! A criterion's trend over the history as an inline SVG: each audit of the same device model
//! a dot on a line (this audit filled), and every change point E-Divisive found as a dashed
//! line where the series shifted.

use std::fmt::Write;

use crate::audit::Trend;

use super::escape;

const WIDTH: f64 = 720.0;
const HEIGHT: f64 = 160.0;
const LEFT: f64 = 70.0;
const TOP: f64 = 12.0;
const BOTTOM: f64 = 28.0;

pub(super) fn trend(criterion_id: &str, trend: &Trend) -> String {
    let points = &trend.points;
    let unit = trend.unit.as_deref().unwrap_or("");
    let (low, high) = points
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
            (lo.min(p.value), hi.max(p.value))
        });
    let span = (high - low).max(f64::EPSILON);
    let step = (WIDTH - LEFT - 10.0) / (points.len().max(2) - 1) as f64;
    let x = |i: usize| LEFT + step * i as f64;
    let y = |v: f64| TOP + (HEIGHT - TOP - BOTTOM) * (1.0 - (v - low) / span);
    let mut svg = format!(
        "<section><h2>Trend of {id}</h2><p><small>{n} audit(s) of this device model in the history, oldest first; {c} change point(s)</small></p><svg width=\"{WIDTH}\" height=\"{HEIGHT}\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"trend of {id}\">",
        id = escape(criterion_id),
        n = points.len(),
        c = trend.changes.len(),
    );
    for (v, anchor) in [(high, "hanging"), (low, "auto")] {
        let _ = write!(
            svg,
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"end\" dominant-baseline=\"{anchor}\">{v:.1}{}</text>",
            LEFT - 6.0,
            y(v),
            escape(unit)
        );
    }
    for &at in &trend.changes {
        let cx = (x(at - 1) + x(at)) / 2.0;
        let _ = write!(
            svg,
            "<line x1=\"{cx:.1}\" y1=\"{TOP}\" x2=\"{cx:.1}\" y2=\"{:.1}\" stroke=\"#cf222e\" stroke-dasharray=\"4 3\"/><text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" fill=\"#cf222e\">changed from {}</text>",
            HEIGHT - BOTTOM,
            cx + 4.0,
            HEIGHT - 8.0,
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
        let _ = write!(
            svg,
            "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"{}\" fill=\"{}\" stroke=\"#0969da\"><title>{}: {:.1}{}</title></circle>",
            x(i),
            y(p.value),
            if p.current { 5 } else { 3 },
            if p.current { "#0969da" } else { "#ffffff" },
            escape(&p.label),
            p.value,
            escape(unit)
        );
    }
    svg.push_str("</svg></section>");
    svg
}
