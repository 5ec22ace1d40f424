//! `compare.html`: the regression verdict with each criterion's two distributions side by
//! side — every run a dot, each arm's median a tick, the floor a band around the baseline's
//! median — so a reviewer sees the shift and the noise at once.

use std::fmt::Write;

use crate::report::numbers::{ComparedCells, num, quantity};
use crate::schema::{Compared, Comparison, Regression};

use super::{CHART_WIDTH, FOOT, escape, head, scrolling, svg_open};
use crate::report::headline;

/// The page of a comparison.
pub fn compare_html(comparison: &Comparison) -> String {
    let mut page = head(
        "compare",
        "Regression check",
        comparison.verdict.as_str(),
        &headline::comparison(comparison),
    );
    page.push_str("<table class=\"facts\">");
    for (label, side) in [
        ("baseline", &comparison.baseline),
        ("candidate", &comparison.candidate),
    ] {
        // The arm's page first (what a reader opens), its report beside it.
        let page_of = std::path::Path::new(&side.report)
            .with_file_name(crate::schema::files::AUDIT_HTML)
            .to_string_lossy()
            .replace('\\', "/");
        let _ = write!(
            page,
            "<tr><th>{label}</th><td><a href=\"{3}\">its page</a> · <a href=\"{0}\">{0}</a> · {1} · pack sha256:{2}</td></tr>",
            escape(&side.report),
            escape(&headline::side(side)),
            escape(&side.pack_sha256[..side.pack_sha256.len().min(12)]),
            escape(&page_of),
        );
    }
    let _ = write!(
        page,
        "<tr><th>dwpipe</th><td>{}</td></tr></table>",
        escape(&comparison.dwpipe_version)
    );
    page.push_str(&scrolling(&criteria_table(comparison)));
    for c in comparison.criteria.iter().filter(|c| c.floor.is_some()) {
        page.push_str(&distributions(c));
    }
    page.push_str(FOOT);
    page
}

/// One row per criterion: both medians with their n, the delta, its interval, p, the floor.
pub(super) fn criteria_table(comparison: &Comparison) -> String {
    let mut table = String::from(
        "<table><tr><th>criterion</th><th>weight</th><th>verdict</th><th>baseline median (n)</th><th>candidate median (n)</th><th>delta</th><th>95% interval</th><th>p</th><th>floor</th><th>why</th></tr>",
    );
    for c in &comparison.criteria {
        let class = match c.verdict {
            Regression::Regressed => "fail",
            Regression::Inconclusive => "unverified",
            Regression::Same | Regression::Improved => "pass",
        };
        let n = ComparedCells::of(c);
        let _ = write!(
            table,
            "<tr><td>{}</td><td>{}</td><td class=\"{class}\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><small>{}</small></td></tr>",
            escape(&c.criterion_id),
            c.weight.as_str(),
            c.verdict.as_str(),
            escape(&n.baseline),
            escape(&n.candidate),
            escape(&n.delta),
            escape(&n.interval),
            escape(&n.p),
            escape(&n.floor),
            escape(&c.reason)
        );
    }
    table.push_str("</table>");
    table
}

/// Both arms' runs on one axis, and the same runs as a table for a reader who cannot see it.
pub(super) fn distributions(c: &Compared) -> String {
    let all = || c.baseline.runs.iter().chain(&c.candidate.runs).copied();
    let floor = c.floor.unwrap_or(0.0);
    let base = c.baseline.median.unwrap_or(0.0);
    let lo = all().fold(base - floor, f64::min);
    let hi = all().fold(base + floor, f64::max);
    let span = (hi - lo).max(f64::EPSILON);
    // The arms' names above their rows, so that the axis has the chart's whole width.
    let (left, width) = (24.0, CHART_WIDTH - 48.0);
    let x = |v: f64| left + (v - lo) / span * width;
    let unit = c.unit.as_deref();
    let mut svg = format!(
        "<section><h2>{} {}</h2>{}",
        escape(&c.criterion_id),
        c.verdict.as_str(),
        svg_open(
            CHART_WIDTH,
            176.0,
            &format!("{}: every run of both arms on one axis", c.criterion_id)
        )
    );
    let _ = write!(
        svg,
        "<rect x=\"{:.1}\" y=\"8\" width=\"{:.1}\" height=\"132\" fill=\"#fff8c5\" stroke=\"#d4a72c\" stroke-dasharray=\"3 3\"/>",
        x(base - floor),
        x(base + floor) - x(base - floor)
    );
    for (row, (name, arm, colour)) in [
        ("baseline", &c.baseline, "#57606a"),
        ("candidate", &c.candidate, "#0969da"),
    ]
    .into_iter()
    .enumerate()
    {
        // The arm's name on its own line, its median's label on the dots' other side.
        let y = 52 + row * 64;
        let _ = write!(
            svg,
            "<text x=\"{left}\" y=\"{}\" font-size=\"13\">{name} (n={})</text>",
            y - 24,
            arm.n
        );
        for (i, run) in arm.runs.iter().enumerate() {
            // Spread over three lanes, so that equal runs stay countable.
            let lane = (i % 3) as f64 * 5.0 - 5.0;
            let _ = write!(
                svg,
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{colour}\" opacity=\"0.6\"><title>{}</title></circle>",
                x(*run),
                y as f64 + lane,
                escape(&quantity(Some(*run), unit))
            );
        }
        if let Some(median) = arm.median {
            let label = format!("median {}", quantity(Some(median), unit));
            // Kept inside the chart at either end.
            let (text_x, anchor) = if x(median) < CHART_WIDTH / 2.0 {
                (x(median).max(left), "start")
            } else {
                (x(median).min(left + width), "end")
            };
            let _ = write!(
                svg,
                "<line x1=\"{0:.1}\" y1=\"{1}\" x2=\"{0:.1}\" y2=\"{2}\" stroke=\"{colour}\" stroke-width=\"3\"/><text x=\"{3:.1}\" y=\"{4}\" font-size=\"13\" text-anchor=\"{anchor}\">{5}</text>",
                x(median),
                y - 10,
                y + 10,
                text_x,
                y + 24,
                escape(&label)
            );
        }
    }
    let _ = write!(
        svg,
        "<line x1=\"{left}\" y1=\"150\" x2=\"{0}\" y2=\"150\" stroke=\"#57606a\"/><text x=\"{left}\" y=\"168\" font-size=\"13\">{1}</text><text x=\"{0}\" y=\"168\" font-size=\"13\" text-anchor=\"end\">{2}</text></svg></div>",
        left + width,
        escape(&quantity(Some(lo), unit)),
        escape(&quantity(Some(hi), unit))
    );
    let _ = write!(
        svg,
        "<p><small>Each dot is a run, each tick an arm's median; the dashed band is the floor, ±{} around the baseline's median: a move inside it is not a regression.</small></p>",
        escape(&quantity(Some(floor), unit))
    );
    let runs = |arm: &crate::schema::ArmStats| {
        arm.runs
            .iter()
            .map(|r| num(Some(*r)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let _ = write!(
        svg,
        "<details><summary>the runs as a table</summary><table><tr><th>arm</th><th>n</th><th>median</th><th>runs ({})</th></tr><tr><td>baseline</td><td>{}</td><td>{}</td><td>{}</td></tr><tr><td>candidate</td><td>{}</td><td>{}</td><td>{}</td></tr></table></details></section>",
        escape(unit.unwrap_or("")),
        c.baseline.n,
        escape(&num(c.baseline.median)),
        escape(&runs(&c.baseline)),
        c.candidate.n,
        escape(&num(c.candidate.median)),
        escape(&runs(&c.candidate)),
    );
    svg
}
