//! `compare.md`: the regression verdict for people, one row per criterion with both arms'
//! medians, the delta, its interval, p and the floor.

use std::fmt::Write;

use crate::report::headline;
use crate::report::numbers::ComparedCells;
use crate::schema::Comparison;

/// The Markdown of a comparison.
pub fn markdown(comparison: &Comparison) -> String {
    let short = |sha: &str| sha[..sha.len().min(12)].to_owned();
    let mut md = format!(
        "# Regression check: {}\n\n**{}**\n\n- Baseline `{}` (pack `{}`): {}\n- Candidate `{}` (pack `{}`): {}\n\n",
        comparison.verdict.as_str(),
        headline::comparison(comparison).text,
        comparison.baseline.report,
        short(&comparison.baseline.pack_sha256),
        headline::side(&comparison.baseline),
        comparison.candidate.report,
        short(&comparison.candidate.pack_sha256),
        headline::side(&comparison.candidate),
    );
    md.push_str("| criterion | weight | verdict | baseline median (n) | candidate median (n) | delta | 95% interval | p | floor | why |\n|---|---|---|---|---|---|---|---|---|---|\n");
    for c in &comparison.criteria {
        let n = ComparedCells::of(c);
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            c.criterion_id,
            c.weight.as_str(),
            c.verdict.as_str(),
            n.baseline,
            n.candidate,
            n.delta,
            n.interval,
            n.p,
            n.floor,
            c.reason.replace('|', "\\|")
        );
    }
    if !comparison.diagnostics.is_empty() {
        md.push_str("\n## Diagnostics\n\n");
        for d in &comparison.diagnostics {
            let _ = writeln!(md, "- `{}`: {}", d.code, d.message);
        }
    }
    md
}
