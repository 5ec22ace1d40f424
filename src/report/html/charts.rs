//! The page's charts as inline SVG: each cold-start run split into its launch phases on a time
//! axis with the criterion's threshold, and the frame-interval histogram against the budget,
//! with both axes labelled. Every number a reviewer needs is written on the chart or in the
//! table under it, not only in tooltips.

use std::fmt::Write;

use super::view::{BINS, ColdStartChart, FramesChart};
use super::{escape, scrolling, svg_open};

/// Phase colours, in phase order.
const COLOURS: [&str; 6] = [
    "#0969da", "#8250df", "#bf3989", "#bc4c00", "#1a7f37", "#9a6700",
];

/// The chart's width; time axes run from `LEFT` to `RIGHT`.
const WIDTH: f64 = super::CHART_WIDTH;
const LEFT: f64 = 56.0;
const RIGHT: f64 = 436.0;
/// Units per character of the 13-unit labels (a generous estimate, so labels fit).
const CHAR_PX: f64 = 7.8;

/// A step of 1, 2, 2.5 or 5 × 10ⁿ giving about `ticks` ticks up to `top`.
fn nice_step(top: f64, ticks: f64) -> f64 {
    let raw = (top / ticks).max(f64::MIN_POSITIVE);
    let magnitude = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0]
        .into_iter()
        .map(|m| m * magnitude)
        .find(|step| *step >= raw)
        .unwrap_or(10.0 * magnitude)
}

/// A duration as the page writes it: whole milliseconds whole, others to a tenth.
fn ms(value: f64) -> String {
    if value.fract().abs() < 0.05 {
        format!("{value:.0}")
    } else {
        format!("{value:.1}")
    }
}

/// Vertical ticks and labels of a time axis from 0 to `top` ms along `y`, mapped by `x`.
fn time_axis(svg: &mut String, top: f64, y: f64, grid_from: f64, x: &dyn Fn(f64) -> f64) {
    let step = nice_step(top, 6.0);
    let _ = write!(
        svg,
        "<line x1=\"{LEFT}\" x2=\"{RIGHT}\" y1=\"{y}\" y2=\"{y}\" stroke=\"#57606a\"/>"
    );
    let mut tick = 0.0;
    while tick <= top + step * 1e-9 {
        let at = x(tick);
        let _ = write!(
            svg,
            "<line x1=\"{at:.1}\" x2=\"{at:.1}\" y1=\"{grid_from}\" y2=\"{y}\" stroke=\"#d0d7de\" stroke-width=\"0.5\"/><line x1=\"{at:.1}\" x2=\"{at:.1}\" y1=\"{y}\" y2=\"{}\" stroke=\"#57606a\"/><text x=\"{at:.1}\" y=\"{}\" font-size=\"13\" text-anchor=\"middle\">{}</text>",
            y + 4.0,
            y + 18.0,
            ms(tick)
        );
        tick += step;
    }
    let _ = write!(
        svg,
        "<text x=\"{}\" y=\"{}\" font-size=\"13\" text-anchor=\"end\">ms</text>",
        WIDTH - 4.0,
        y + 18.0
    );
}

/// A dashed vertical line at `at` from `y1` to `y2`, labelled at `label_y`, the label kept
/// inside the chart (right-aligned to the line when it would run off the edge).
fn marker(
    svg: &mut String,
    at: f64,
    (y1, y2, label_y): (f64, f64, f64),
    colour: &str,
    label: &str,
) {
    let wide = label.chars().count() as f64 * CHAR_PX;
    // Right of the line, else left of it, else as far right as it fits whole.
    let (text_x, anchor) = if at + 4.0 + wide <= WIDTH {
        (at + 4.0, "start")
    } else if at - 4.0 - wide >= 0.0 {
        (at - 4.0, "end")
    } else {
        ((WIDTH - wide).max(0.0), "start")
    };
    let _ = write!(
        svg,
        "<line x1=\"{at:.1}\" x2=\"{at:.1}\" y1=\"{y1}\" y2=\"{y2}\" stroke=\"{colour}\" stroke-width=\"1.5\" stroke-dasharray=\"5 3\"/><text x=\"{text_x:.1}\" y=\"{label_y}\" font-size=\"13\" fill=\"{colour}\" text-anchor=\"{anchor}\">{}</text>",
        escape(label)
    );
}

pub(super) fn cold_start(chart: &ColdStartChart<'_>) -> String {
    let runs = chart.runs;
    let longest = runs.iter().map(|(_, c)| c.ms).fold(1.0, f64::max);
    let reach = chart.limit_ms.map_or(longest, |limit| limit.max(longest));
    let step = nice_step(reach * 1.08, 6.0);
    let top = (reach * 1.08 / step).ceil() * step;
    let x = |ms: f64| LEFT + ms / top * (RIGHT - LEFT);
    let (first_row, row_height) = (30.0, 34.0);
    let axis_y = first_row + runs.len() as f64 * row_height + 4.0;
    let mut svg = svg_open(
        WIDTH,
        axis_y + 26.0,
        &format!(
            "{}: each cold start run split into its phases on a time axis (the table below has the numbers)",
            chart.criterion_id
        ),
    );
    time_axis(&mut svg, top, axis_y, first_row - 6.0, &x);
    for (row, (run, cold)) in runs.iter().enumerate() {
        let y = first_row + row as f64 * row_height;
        let _ = write!(
            svg,
            "<text x=\"0\" y=\"{}\" font-size=\"14\">run {run}</text>",
            y + 16.0
        );
        for (i, phase) in cold.phases.iter().enumerate() {
            let (left, width) = (x(phase.start_ms), x(phase.duration_ms) - LEFT);
            let _ = write!(
                svg,
                "<rect x=\"{left:.1}\" y=\"{y}\" width=\"{:.1}\" height=\"22\" fill=\"{}\"><title>{}: {} ms</title></rect>",
                width.max(1.0),
                COLOURS[i % COLOURS.len()],
                escape(phase.name),
                ms(phase.duration_ms)
            );
            // Written on the bar where it fits; every duration is in the table below.
            let label = ms(phase.duration_ms);
            if width >= label.len() as f64 * CHAR_PX + 6.0 {
                let _ = write!(
                    svg,
                    "<text x=\"{:.1}\" y=\"{}\" font-size=\"13\" fill=\"#fff\" text-anchor=\"middle\">{label}</text>",
                    left + width / 2.0,
                    y + 15.0
                );
            }
        }
        let _ = write!(
            svg,
            "<text x=\"{:.1}\" y=\"{}\" font-size=\"14\" font-weight=\"600\">{} ms</text>",
            x(cold.ms) + 6.0,
            y + 16.0,
            ms(cold.ms)
        );
    }
    if let Some(limit) = chart.limit_ms {
        marker(
            &mut svg,
            x(limit),
            (first_row - 12.0, axis_y, 14.0),
            "#cf222e",
            &format!("threshold {} ms", ms(limit)),
        );
    }
    svg.push_str(super::SVG_CLOSE);
    format!(
        "<section><h2>{} cold start: {} ({} of {} runs)</h2>{svg}{}</section>",
        escape(chart.criterion_id),
        escape(chart.actual),
        escape(chart.aggregate.as_str()),
        chart.run_count,
        scrolling(&phase_table(chart))
    )
}

/// Every run's phase durations, the phases as columns in their colours.
fn phase_table(chart: &ColdStartChart<'_>) -> String {
    let mut names: Vec<&str> = Vec::new();
    for (_, cold) in chart.runs {
        for phase in &cold.phases {
            if !names.contains(&phase.name) {
                names.push(phase.name);
            }
        }
    }
    if names.is_empty() {
        return String::new();
    }
    let mut table = String::from("<table><tr><th>run</th>");
    for (i, name) in names.iter().enumerate() {
        let _ = write!(
            table,
            "<th><span style=\"color:{}\">■</span> {} (ms)</th>",
            COLOURS[i % COLOURS.len()],
            escape(name)
        );
    }
    table.push_str("<th>total (ms)</th></tr>");
    for (run, cold) in chart.runs {
        let _ = write!(table, "<tr><td>{run}</td>");
        for name in &names {
            let cell = cold
                .phases
                .iter()
                .find(|p| p.name == *name)
                .map_or_else(|| "—".to_owned(), |p| ms(p.duration_ms));
            let _ = write!(table, "<td>{cell}</td>");
        }
        let _ = write!(table, "<td><b>{}</b></td></tr>", ms(cold.ms));
    }
    table.push_str("</table>");
    table
}

pub(super) fn frames(chart: &FramesChart<'_>) -> String {
    let (top, width, budget) = (chart.top_ms, chart.bin_ms, chart.budget_ms);
    let most = chart.counts.iter().copied().max().unwrap_or(0).max(1);
    let count_step = nice_step(most as f64, 4.0).max(1.0).ceil();
    let count_top = (most as f64 / count_step).ceil() * count_step;
    // Below the two markers' labels, so that the tallest bar's count never meets them.
    let (plot_top, plot_bottom) = (58.0, 236.0);
    let x = |ms: f64| LEFT + ms / top * (RIGHT - LEFT);
    let y = |count: f64| plot_bottom - count / count_top * (plot_bottom - plot_top);
    let mut svg = svg_open(
        WIDTH,
        plot_bottom + 26.0,
        &format!(
            "{}: distribution of the intervals between presented frames",
            chart.criterion_id
        ),
    );
    // The count axis.
    let _ = write!(
        svg,
        "<line x1=\"{LEFT}\" x2=\"{LEFT}\" y1=\"{plot_top}\" y2=\"{plot_bottom}\" stroke=\"#57606a\"/><text x=\"0\" y=\"{}\" font-size=\"13\">frames</text>",
        plot_top - 16.0
    );
    let mut tick = 0.0;
    while tick <= count_top {
        let at = y(tick);
        let _ = write!(
            svg,
            "<line x1=\"{}\" x2=\"{RIGHT}\" y1=\"{at:.1}\" y2=\"{at:.1}\" stroke=\"#d0d7de\" stroke-width=\"0.5\"/><text x=\"{}\" y=\"{:.1}\" font-size=\"13\" text-anchor=\"end\">{tick}</text>",
            LEFT - 4.0,
            LEFT - 6.0,
            at + 4.0
        );
        tick += count_step;
    }
    time_axis(&mut svg, top, plot_bottom, plot_top, &x);
    let bar = ((RIGHT - LEFT) / BINS as f64 - 1.0).max(1.0);
    // A bar's count is written above it where it does not run into the last one written
    // (every count is in the table below and in the bar's tooltip).
    let mut written_to = f64::NEG_INFINITY;
    for (i, count) in chart.counts.iter().enumerate().filter(|(_, c)| **c > 0) {
        let from = i as f64 * width;
        let height = plot_bottom - y(*count as f64);
        let _ = write!(
            svg,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{bar:.1}\" height=\"{height:.1}\" fill=\"{}\"><title>{count} frame(s) at {:.1}–{:.1} ms</title></rect>",
            x(from),
            plot_bottom - height,
            if from >= budget * 1.5 {
                "#cf222e"
            } else {
                "#0969da"
            },
            from,
            from + width,
        );
        let label = count.to_string();
        let half = label.len() as f64 * CHAR_PX / 2.0;
        let centre = x(from) + bar / 2.0;
        if centre - half > written_to + 2.0 {
            written_to = centre + half;
            let _ = write!(
                svg,
                "<text x=\"{centre:.1}\" y=\"{:.1}\" font-size=\"13\" text-anchor=\"middle\">{label}</text>",
                plot_bottom - height - 3.0
            );
        }
    }
    for (ms_at, label, colour, label_y) in [
        (budget, format!("budget {budget:.2} ms"), "#1a7f37", 14.0),
        (
            budget * 1.5,
            format!("1.5× budget {:.2} ms: dropped past it", budget * 1.5),
            "#cf222e",
            30.0,
        ),
    ] {
        marker(
            &mut svg,
            x(ms_at),
            (plot_top - 6.0, plot_bottom, label_y),
            colour,
            &label,
        );
    }
    svg.push_str(super::SVG_CLOSE);
    let mut table = String::from(
        "<details><summary>the histogram as a table</summary><table><tr><th>interval (ms)</th><th>frames</th></tr>",
    );
    for (i, count) in chart.counts.iter().enumerate().filter(|(_, c)| **c > 0) {
        let from = i as f64 * width;
        let _ = write!(
            table,
            "<tr><td>{:.1}–{:.1}</td><td>{count}</td></tr>",
            from,
            from + width
        );
    }
    table.push_str("</table></details>");
    format!(
        "<section><h2>{} frame intervals of run {run}: {} frames; the verdict's reading is {}</h2><p><b>{}</b></p>{svg}<p><small>run {run}'s intervals between presented frames, the run whose reading is the verdict's or nearest it (every run's are in its evidence), {:.2} ms bins from 0 to {:.1} ms</small></p>{table}</section>",
        escape(chart.criterion_id),
        chart.frames,
        escape(chart.actual),
        escape(&chart.runs),
        width,
        top,
        run = chart.run,
    )
}

#[cfg(test)]
mod tests;
