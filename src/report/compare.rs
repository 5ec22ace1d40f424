//! `compare.md`: the regression verdict for people, one row per criterion with both arms'
//! medians, the delta, its interval, p and the floor.

use std::fmt::Write;

use crate::schema::Comparison;

/// A number as a row shows it (three decimals at most, no trailing zeros).
fn num(value: Option<f64>) -> String {
    value.map_or_else(
        || "—".to_owned(),
        |v| {
            let text = format!("{v:.3}");
            text.trim_end_matches('0').trim_end_matches('.').to_owned()
        },
    )
}

/// The Markdown of a comparison.
pub fn markdown(comparison: &Comparison) -> String {
    let mut md = format!(
        "# Regression check: {}\n\nBaseline `{}` (pack `{}`), candidate `{}` (pack `{}`).\n\n",
        comparison.verdict.as_str(),
        comparison.baseline.report,
        &comparison.baseline.pack_sha256[..comparison.baseline.pack_sha256.len().min(12)],
        comparison.candidate.report,
        &comparison.candidate.pack_sha256[..comparison.candidate.pack_sha256.len().min(12)],
    );
    md.push_str("| criterion | weight | verdict | baseline median (n) | candidate median (n) | delta | 95% interval | p | floor | why |\n|---|---|---|---|---|---|---|---|---|---|\n");
    for c in &comparison.criteria {
        let unit = c.unit.as_deref().unwrap_or("");
        let _ = writeln!(
            md,
            "| {} | {} | {} | {}{unit} ({}) | {}{unit} ({}) | {}{} | {} | {} | {}{} | {} |",
            c.criterion_id,
            c.weight.as_str(),
            c.verdict.as_str(),
            num(c.baseline.median),
            c.baseline.n,
            num(c.candidate.median),
            c.candidate.n,
            num(c.delta),
            c.delta_pct
                .map_or_else(String::new, |p| format!(" ({p:+.1}%)")),
            c.ci95.map_or_else(
                || "—".to_owned(),
                |[lo, hi]| format!("[{}, {}]", num(Some(lo)), num(Some(hi)))
            ),
            num(c.p),
            num(c.floor),
            if c.floor.is_some() { unit } else { "" },
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
