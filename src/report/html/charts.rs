//! The page's charts as inline SVG: each cold-start run split into its launch phases, and the
//! frame-interval histogram against the budget.

use std::fmt::Write;

use super::escape;
use super::view::{BINS, ColdStartChart, FramesChart};

/// Phase colours, in phase order.
const COLOURS: [&str; 6] = [
    "#0969da", "#8250df", "#bf3989", "#bc4c00", "#1a7f37", "#9a6700",
];

pub(super) fn cold_start(chart: &ColdStartChart<'_>) -> String {
    let runs = chart.runs;
    let longest = runs.iter().map(|(_, c)| c.ms).fold(1.0, f64::max);
    let scale = 600.0 / longest;
    let mut svg = format!(
        "<svg width=\"820\" height=\"{}\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"cold start runs\">",
        40 + runs.len() * 34
    );
    for (row, (run, cold)) in runs.iter().enumerate() {
        let y = 10 + row * 34;
        let _ = write!(
            svg,
            "<text x=\"0\" y=\"{}\" font-size=\"12\">run {run}</text>",
            y + 16
        );
        for (i, phase) in cold.phases.iter().enumerate() {
            let _ = write!(
                svg,
                "<rect x=\"{:.1}\" y=\"{y}\" width=\"{:.1}\" height=\"22\" fill=\"{}\"><title>{}: {} ms</title></rect>",
                60.0 + phase.start_ms * scale,
                (phase.duration_ms * scale).max(1.0),
                COLOURS[i % COLOURS.len()],
                escape(phase.name),
                phase.duration_ms
            );
        }
        let _ = write!(
            svg,
            "<text x=\"{:.1}\" y=\"{}\" font-size=\"12\">{} ms</text>",
            66.0 + cold.ms * scale,
            y + 16,
            cold.ms
        );
    }
    let legend: Vec<String> = runs.first().map_or_else(Vec::new, |(_, c)| {
        c.phases
            .iter()
            .enumerate()
            .map(|(i, p)| {
                format!(
                    "<span style=\"color:{}\">■</span> {}",
                    COLOURS[i % COLOURS.len()],
                    escape(p.name)
                )
            })
            .collect()
    });
    svg.push_str("</svg>");
    format!(
        "<section><h2>{} cold start: {} ({} of {} runs)</h2>{svg}<p><small>{}</small></p></section>",
        escape(chart.criterion_id),
        escape(chart.actual),
        escape(chart.aggregate.as_str()),
        chart.run_count,
        legend.join(" · ")
    )
}

pub(super) fn frames(chart: &FramesChart<'_>) -> String {
    let (top, width, budget) = (chart.top_ms, chart.bin_ms, chart.budget_ms);
    let most = chart.counts.iter().copied().max().unwrap_or(1).max(1) as f64;
    let mut svg = String::from(
        "<svg width=\"820\" height=\"240\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"frame interval distribution\">",
    );
    let x = |ms: f64| 40.0 + ms / top * 740.0;
    for (i, count) in chart.counts.iter().enumerate().filter(|(_, c)| **c > 0) {
        let height = *count as f64 / most * 180.0;
        let _ = write!(
            svg,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{height:.1}\" fill=\"{}\"><title>{} frame(s) at {:.1}–{:.1} ms</title></rect>",
            x(i as f64 * width),
            200.0 - height,
            (740.0 / BINS as f64 - 1.0).max(1.0),
            if (i as f64) * width > budget * 1.5 {
                "#cf222e"
            } else {
                "#0969da"
            },
            count,
            i as f64 * width,
            (i + 1) as f64 * width
        );
    }
    for (ms, label, colour) in [
        (budget, "budget", "#1a7f37"),
        (budget * 1.5, "1.5× budget (dropped past it)", "#cf222e"),
    ] {
        let _ = write!(
            svg,
            "<line x1=\"{0:.1}\" x2=\"{0:.1}\" y1=\"10\" y2=\"200\" stroke=\"{colour}\" stroke-dasharray=\"4 3\"/><text x=\"{1:.1}\" y=\"22\" font-size=\"11\" fill=\"{colour}\">{label} {ms:.2} ms</text>",
            x(ms),
            x(ms) + 4.0
        );
    }
    let _ = write!(
        svg,
        "<line x1=\"40\" x2=\"780\" y1=\"200\" y2=\"200\" stroke=\"#57606a\"/><text x=\"40\" y=\"220\" font-size=\"11\">0 ms</text><text x=\"740\" y=\"220\" font-size=\"11\">{top:.0} ms</text></svg>"
    );
    format!(
        "<section><h2>{} frame intervals: {} frames, {}</h2>{svg}</section>",
        escape(chart.criterion_id),
        chart.frames,
        escape(chart.actual)
    )
}
