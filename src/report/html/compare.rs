//! `compare.html`: the regression verdict with each criterion's two distributions side by
//! side — every run a dot, each arm's median a tick, the floor a band around the baseline's
//! median — so a reviewer sees the shift and the noise at once.

use std::fmt::Write;

use crate::schema::{Compared, Comparison};

use super::{escape, head};

/// The page of a comparison.
pub fn compare_html(comparison: &Comparison) -> String {
    let mut page = head("compare", "Regression check", comparison.verdict.as_str());
    let _ = write!(
        page,
        "<p><small>baseline {} · candidate {} · dwpipe {}</small></p>",
        escape(&comparison.baseline.report),
        escape(&comparison.candidate.report),
        escape(&comparison.dwpipe_version)
    );
    page.push_str("<table><tr><th>criterion</th><th>weight</th><th>verdict</th><th>delta</th><th>95% interval</th><th>p</th><th>floor</th><th>why</th></tr>");
    for c in &comparison.criteria {
        let class = match c.verdict.as_str() {
            "regressed" => "fail",
            "inconclusive" => "unverified",
            _ => "pass",
        };
        let unit = c.unit.as_deref().unwrap_or("");
        let _ = write!(
            page,
            "<tr><td>{}</td><td>{}</td><td class=\"{class}\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><small>{}</small></td></tr>",
            escape(&c.criterion_id),
            c.weight.as_str(),
            c.verdict.as_str(),
            c.delta
                .map_or_else(|| "—".to_owned(), |d| format!("{d:+.3} {unit}")),
            c.ci95.map_or_else(
                || "—".to_owned(),
                |[lo, hi]| format!("[{lo:.3}, {hi:.3}] {unit}")
            ),
            c.p.map_or_else(|| "—".to_owned(), |p| format!("{p:.2e}")),
            c.floor
                .map_or_else(|| "—".to_owned(), |f| format!("±{f} {unit}")),
            escape(&c.reason)
        );
    }
    page.push_str("</table>");
    for c in comparison.criteria.iter().filter(|c| c.floor.is_some()) {
        page.push_str(&distributions(c));
    }
    page.push_str("</body></html>\n");
    page
}

/// Both arms' runs on one axis.
fn distributions(c: &Compared) -> String {
    let all = || c.baseline.runs.iter().chain(&c.candidate.runs).copied();
    let floor = c.floor.unwrap_or(0.0);
    let base = c.baseline.median.unwrap_or(0.0);
    let lo = all().fold(base - floor, f64::min);
    let hi = all().fold(base + floor, f64::max);
    let span = (hi - lo).max(f64::EPSILON);
    let (left, width) = (110.0, 660.0);
    let x = |v: f64| left + (v - lo) / span * width;
    let unit = c.unit.as_deref().unwrap_or("");
    let mut svg = format!(
        "<section><h2>{} {}</h2><svg width=\"820\" height=\"130\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"{} runs of both arms\">",
        escape(&c.criterion_id),
        c.verdict.as_str(),
        escape(&c.criterion_id)
    );
    let _ = write!(
        svg,
        "<rect x=\"{:.1}\" y=\"10\" width=\"{:.1}\" height=\"80\" fill=\"#fff8c5\"><title>floor ±{floor} {unit} around the baseline median</title></rect>",
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
        let y = 30 + row * 40;
        let _ = write!(
            svg,
            "<text x=\"0\" y=\"{}\" font-size=\"12\">{name} (n={})</text>",
            y + 4,
            arm.n
        );
        for run in &arm.runs {
            let _ = write!(
                svg,
                "<circle cx=\"{:.1}\" cy=\"{y}\" r=\"3\" fill=\"{colour}\" opacity=\"0.6\"><title>{run} {unit}</title></circle>",
                x(*run)
            );
        }
        if let Some(median) = arm.median {
            let _ = write!(
                svg,
                "<line x1=\"{0:.1}\" y1=\"{1}\" x2=\"{0:.1}\" y2=\"{2}\" stroke=\"{colour}\" stroke-width=\"3\"/><text x=\"{0:.1}\" y=\"{3}\" font-size=\"11\" text-anchor=\"middle\">median {median} {unit}</text>",
                x(median),
                y - 12,
                y + 12,
                y - 15
            );
        }
    }
    let _ = write!(
        svg,
        "<line x1=\"{left}\" y1=\"105\" x2=\"{0}\" y2=\"105\" stroke=\"#57606a\"/><text x=\"{left}\" y=\"122\" font-size=\"11\">{lo:.1} {unit}</text><text x=\"{0}\" y=\"122\" font-size=\"11\" text-anchor=\"end\">{hi:.1} {unit}</text></svg></section>",
        left + width
    );
    svg
}
