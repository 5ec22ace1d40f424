//! `--summary-md FILE`: the outcome of `audit`, `compare` or `deliver` added to a Markdown file
//! that a CI job shows on its page (GitHub's `$GITHUB_STEP_SUMMARY`) or posts on a pull
//! request. The file is appended to, as step summaries are, and rewritten atomically: a reader
//! never sees half a summary.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use crate::input::{MAX_REPORT_BYTES, read_bounded};
use crate::output::write_atomic;
use crate::report::summary;
use crate::schema::{DeliverReport, files};
use crate::session::Outcome;

use super::error::Error;

/// The page among `written` whose name is `name`, as written.
pub(super) fn page<'a>(written: &'a [PathBuf], name: &str) -> Option<std::borrow::Cow<'a, str>> {
    written
        .iter()
        .find(|p| p.file_name().is_some_and(|f| f == name))
        .map(|p| p.to_string_lossy())
}

/// The summary of an audit of any shape.
pub(super) fn of_outcome(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Audit { report, written } => {
            summary::audit(report, page(written, files::AUDIT_HTML).as_deref())
        }
        Outcome::Lab {
            report, written, ..
        } => summary::lab(report, page(written, files::LAB_HTML).as_deref()),
        Outcome::Ab(session) => summary::ab(
            &session.record,
            &session.comparison,
            page(&session.written, files::AB_HTML).as_deref(),
        ),
        Outcome::AbLab {
            report, written, ..
        } => summary::ab_lab(report, page(written, files::AB_LAB_HTML).as_deref()),
    }
}

/// The summary of a delivery: how it ended, then each criterion of its last audit with what
/// was measured against what.
pub(super) fn of_delivery(report: &DeliverReport) -> String {
    let mut text = format!(
        "## dwpipe deliver: {}\n\n**{}{} {}**{}\n\n",
        if report.terminal_reason == crate::schema::TerminalReason::Verified {
            "verified"
        } else {
            "NOT VERIFIED"
        },
        report.terminal_reason,
        if report.replayed() {
            " against a recorded capture"
        } else {
            ""
        },
        report.repairs_said(),
        report
            .detail
            .as_deref()
            .map_or_else(String::new, |d| format!(
                " — {}",
                crate::text::one_line(d, crate::text::LINE)
            ))
    );
    if !report.criteria.is_empty() {
        text.push_str("| criterion | last audit |\n|---|---|\n");
        for (criterion, result) in &report.criteria {
            let _ = writeln!(
                text,
                "| {} | {} |",
                criterion.replace('|', "\\|"),
                crate::text::one_line(result, crate::text::LINE).replace('|', "\\|")
            );
        }
    }
    if !report.unresolved.is_empty() {
        let _ = writeln!(text, "\nStill failing: {}", report.unresolved.join(", "));
    }
    for signed in report.attestations() {
        let _ = writeln!(text, "\nAttested (in-toto, signed): `{signed}`");
    }
    let _ = writeln!(
        text,
        "\nRun folder: `{}`; open `{}`",
        report.run_dir.display(),
        crate::schema::page_to_open()
    );
    text
}

/// Adds `text` to the file at `path` (created when missing).
pub(super) fn add(path: &Path, text: &str) -> Result<(), Error> {
    let mut all = match read_bounded(path, MAX_REPORT_BYTES, "a summary file") {
        Ok(bytes) => bytes,
        Err(_) if !path.exists() => Vec::new(),
        Err(e) => {
            return Err(e
                .diagnostic(
                    "E_SUMMARY_UNREADABLE",
                    "give --summary-md a Markdown file dwpipe may read and replace",
                )
                .into());
        }
    };
    if !all.is_empty() && !all.ends_with(b"\n\n") {
        all.extend_from_slice(if all.ends_with(b"\n") { b"\n" } else { b"\n\n" });
    }
    all.extend_from_slice(text.as_bytes());
    write_atomic(path, &all)?;
    Ok(())
}
