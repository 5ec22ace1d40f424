//! `--summary-md FILE`: the outcome as Markdown for where reviews happen — a CI job's page
//! (GitHub's step summary) and a pull request's comment. It opens with the banner's line,
//! lists what failed or could not be verified (measured against the threshold) before anything
//! else, folds what passed, names every error and warning with its code, and stays under a PR
//! comment's limit (65,536 characters) however large the pack or the lab.

use std::fmt::Write;

use crate::gate::CheckResult;
use crate::report::headline::{self, Headline, Tone};
use crate::report::numbers::{ComparedCells, delta};
use crate::schema::{AbLabReport, AbRecord, AuditReport, Comparison, LabReport, Regression};

/// The most a summary holds: below GitHub's 65,536-character comment limit, with room for
/// whatever a CI job adds around it.
pub(crate) const MAX_CHARS: usize = 60_000;

/// A Markdown table cell: one line, bounded, text that stays text (its `<`, `&` and pipes
/// escaped; a backtick would open code).
fn cell(text: &str) -> String {
    crate::text::markdown_cell(&text.replace(['\n', '\r'], " "), crate::text::LINE)
        .replace('`', "'")
}

/// `## dwpipe audit: FAIL` and the banner's line.
fn opening(what: &str, headline: &Headline) -> String {
    let word = match headline.tone {
        Tone::Pass => "passed",
        Tone::Warned => "passed with warnings",
        Tone::Fail => "FAILED",
        Tone::Amber => "NOT SHOWN TO PASS",
    };
    format!(
        "## dwpipe {what}: {word}\n\n**{}**\n\n",
        cell(&headline.text)
    )
}

/// Rows until the limit, then a line saying how many were left out.
fn bounded(out: &mut String, rows: impl IntoIterator<Item = String>, noun: &str) {
    let rows: Vec<String> = rows.into_iter().collect();
    for (i, row) in rows.iter().enumerate() {
        if out.len() + row.len() > MAX_CHARS - 500 {
            let _ = writeln!(
                out,
                "\n… {} more {noun} left out to stay under a comment's size: see the report.",
                rows.len() - i
            );
            return;
        }
        out.push_str(row);
    }
}

/// Where the full report is.
fn see(out: &mut String, page: Option<&str>) {
    if let Some(page) = page {
        let _ = writeln!(out, "\nFull report: `{}`", cell(page));
    }
}

/// An audit: failed and unverified criteria first, the passes folded, every diagnostic.
pub(crate) fn audit(report: &AuditReport, page: Option<&str>) -> String {
    let mut out = opening("audit", &headline::audit(report));
    let said = headline::by_criterion(report);
    let (open, passed): (Vec<_>, Vec<_>) = crate::report::failing_first(report)
        .into_iter()
        // A pass with a warning is shown with the open rows: it is what a reviewer looks at.
        .partition(|c| {
            c.check.result != CheckResult::Pass
                || !headline::warnings_of(&said, &c.check.criterion_id).is_empty()
        });
    let row = |c: &crate::schema::ReportCheck| {
        let check = &c.check;
        format!(
            "| {} ({}) | {} | {} | {} | {} |\n",
            cell(&check.criterion_id),
            check.weight,
            cell(check.statement.as_deref().unwrap_or("—")),
            match headline::warnings_of(&said, &check.criterion_id).as_slice() {
                [] => check.result.as_str().to_owned(),
                codes => format!("{} ⚠ {}", check.result.as_str(), codes.join(", ")),
            },
            cell(&match (check.result, check.actual.as_deref()) {
                // Why it could not be verified is what a reviewer needs.
                (CheckResult::Unverified, _) => format!("not measured: {}", check.evidence),
                (_, Some(actual)) => actual.to_owned(),
                (_, None) => "nothing measured".to_owned(),
            }),
            cell(
                check
                    .reason
                    .as_deref()
                    .or(check.expected.as_deref())
                    .unwrap_or(&check.evidence)
            ),
        )
    };
    const HEADER: &str = "| criterion | statement | result | measured | against the threshold |\n|---|---|---|---|---|\n";
    if !open.is_empty() {
        out.push_str(HEADER);
        bounded(&mut out, open.iter().map(|c| row(c)), "criteria");
    }
    if !passed.is_empty() {
        let _ = write!(
            out,
            "\n<details><summary>{} passed</summary>\n\n{HEADER}",
            passed.len()
        );
        bounded(&mut out, passed.iter().map(|c| row(c)), "criteria");
        out.push_str("\n</details>\n");
    }
    if !report.diagnostics.is_empty() {
        out.push_str("\n**Errors and warnings**\n\n");
        bounded(
            &mut out,
            report.diagnostics.iter().map(|d| {
                format!(
                    "- `{}`{}: {}{}\n",
                    d.code,
                    d.criterion_id
                        .as_deref()
                        .map_or_else(String::new, |c| format!(" ({})", cell(c))),
                    cell(&d.message),
                    d.fix
                        .as_deref()
                        .map_or_else(String::new, |f| format!(" — fix: {}", cell(f)))
                )
            }),
            "diagnostics",
        );
    }
    see(&mut out, page);
    out
}

/// A lab: each device's verdict, with what failed on it.
pub(crate) fn lab(report: &LabReport, page: Option<&str>) -> String {
    let mut out = opening("lab audit", &headline::lab(report));
    out.push_str("| device | verdict | failed | not verified |\n|---|---|---|---|\n");
    let rows = report.devices.iter().enumerate().map(|(i, device)| {
        let with = |wanted: crate::schema::Cell| {
            report
                .rows
                .iter()
                .filter(|row| row.results.get(i) == Some(&wanted))
                .map(|row| row.criterion_id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let about = device
            .model
            .as_deref()
            .map_or_else(String::new, |m| format!(" ({})", cell(m)));
        format!(
            "| {}{about} | {} | {} | {} |\n",
            cell(&device.name()),
            cell(device.said()),
            cell(&with(crate::schema::Cell::Fail)),
            cell(&with(crate::schema::Cell::Unverified)),
        )
    });
    bounded(&mut out, rows, "devices");
    see(&mut out, page);
    out
}

/// A comparison's rows: both medians with their n, the delta, p.
fn compared(out: &mut String, comparison: &Comparison) {
    out.push_str("| criterion | verdict | baseline median (n) | candidate median (n) | delta | p | why |\n|---|---|---|---|---|---|---|\n");
    let mut rows: Vec<_> = comparison.criteria.iter().collect();
    rows.sort_by_key(|c| match c.verdict {
        Regression::Regressed => 0,
        Regression::Inconclusive => 1,
        Regression::Improved | Regression::Same => 2,
    });
    let rows = rows.into_iter().map(|c| {
        let n = ComparedCells::of(c);
        format!(
            "| {} ({}) | {} | {} | {} | {} | {} | {} |\n",
            cell(&c.criterion_id),
            c.weight,
            c.verdict.as_str(),
            n.baseline,
            n.candidate,
            n.delta,
            n.p,
            cell(&c.reason),
        )
    });
    bounded(out, rows, "criteria");
}

/// A comparison of two audits.
pub(crate) fn comparison(comparison: &Comparison, page: Option<&str>) -> String {
    let mut out = opening("regression check", &headline::comparison(comparison));
    let _ = writeln!(
        out,
        "Baseline `{}`: {}  \nCandidate `{}`: {}\n",
        cell(&comparison.baseline.report),
        cell(&headline::side(&comparison.baseline)),
        cell(&comparison.candidate.report),
        cell(&headline::side(&comparison.candidate)),
    );
    compared(&mut out, comparison);
    see(&mut out, page);
    out
}

/// A same-device A/B session.
pub(crate) fn ab(record: &AbRecord, comparison: &Comparison, page: Option<&str>) -> String {
    let mut out = opening("same-device A/B", &headline::ab(record));
    for (label, arm) in [
        ("Baseline", &record.baseline),
        ("Candidate", &record.candidate),
    ] {
        let _ = writeln!(
            out,
            "{label} `{}`{} (sha256 {})  ",
            cell(&arm.hap),
            arm.version
                .as_ref()
                .map_or_else(String::new, |v| format!(", {}", cell(&v.to_string()))),
            &arm.sha256[..arm.sha256.len().min(12)],
        );
    }
    out.push('\n');
    compared(&mut out, comparison);
    see(&mut out, page);
    out
}

/// A lab's A/B sessions: each device against the pack and against its baseline.
pub(crate) fn ab_lab(report: &AbLabReport, page: Option<&str>) -> String {
    let mut out = opening("same-device A/B lab", &headline::ab_lab(report));
    out.push_str(
        "| device | against the pack | against the baseline | regressed | inconclusive (measure more runs) |\n|---|---|---|---|---|\n",
    );
    let rows = report.devices.iter().map(|d| {
        let regressed: Vec<String> = d
            .criteria
            .iter()
            .filter(|c| c.verdict == Regression::Regressed)
            .map(|c| {
                format!(
                    "{} {}",
                    c.criterion_id,
                    delta(c.delta, c.delta_pct, c.unit.as_deref())
                )
            })
            .collect();
        let inconclusive: Vec<&str> = d
            .criteria
            .iter()
            .filter(|c| c.verdict == Regression::Inconclusive)
            .map(|c| c.criterion_id.as_str())
            .collect();
        format!(
            "| {} | {} | {} | {} | {} |\n",
            cell(&d.serial),
            d.absolute.map_or("stopped", |v| v.as_str()),
            d.regression.map_or("stopped", |v| v.as_str()),
            cell(&regressed.join(", ")),
            cell(&inconclusive.join(", ")),
        )
    });
    bounded(&mut out, rows, "devices");
    see(&mut out, page);
    out
}

#[cfg(test)]
mod tests;
