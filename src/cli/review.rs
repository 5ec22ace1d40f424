//! `dwpipe review LOCK`: the built-in adversarial rules, then the optional outside reviewer.

use std::path::Path;
use std::time::Instant;

use crate::config::{Config, Review};
use crate::diagnostic::Diagnostic;
use crate::error::Error;
use crate::exit_code;
use crate::ledger::{Entry, append};
use crate::output::publish_numbered;
use crate::pack::load_lock;
use crate::process::Cancel;
use crate::review::{earlier, review};
use crate::template::render;

use super::print;
use super::runtime::block_on;

/// Reviews a lock; exit 0 when delivery may go on, 1 when the pack must change or the review
/// blocks, 2 for invalid input (a waiver refused under `closed` among them).
pub(super) fn run(
    lock: &Path,
    config: Option<&Path>,
    out: &Path,
    waive: bool,
    json: bool,
) -> Result<i32, Error> {
    let started = Instant::now();
    let frozen = load_lock(lock).map_err(Error::Invalid)?;
    let settings = match config {
        Some(path) => Config::load(path)?.review,
        None => Review::default(),
    };
    let ledger_error = |e: std::io::Error| {
        Error::from(Diagnostic::error(
            "E_LEDGER",
            format!("cannot append to the ledger: {e}"),
        ))
    };
    let (same, revises) = earlier(out, &frozen.lock.sha256);
    if let Some((name, report)) = same {
        // A lock is reviewed once: the receipt stands until the pack changes.
        if !json {
            let verdict = serde_json::to_value(report.verdict)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default();
            print::out(&format!(
                "{}: already reviewed in {name}: {verdict} (change the pack to review again)",
                lock.display()
            ));
        } else {
            print::json(&report);
        }
        return Ok(if report.verdict.allows_dispatch() {
            exit_code::OK
        } else {
            exit_code::VERDICT_FAILED
        });
    }
    let cancel = Cancel::new();
    let report = match block_on(&cancel, review(&frozen, &settings, revises, waive, &cancel)) {
        Ok(report) => report,
        Err(_) => {
            let mut entry = Entry::new("review", "waiver-refused", started.elapsed());
            entry.inputs.insert("pack", frozen.lock.sha256.clone());
            append(out, &entry).map_err(ledger_error)?;
            return Err(Diagnostic::error(
                "E_REVIEW_WAIVER_REFUSED",
                "--no-review is refused under fail-mode closed",
            )
            .fix("set review.allow-waiver-when-closed: true in dwpipe.yaml to allow it")
            .into());
        }
    };
    let text = serde_json::to_string_pretty(&report).expect("a review serializes") + "\n";
    let markdown = render("review.md", &report)?;
    let (_, paths) = publish_numbered(
        out,
        "review",
        &[("json", text.as_bytes()), ("md", markdown.as_bytes())],
    )?;
    let outcome = serde_json::to_value(report.verdict)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    let mut entry = Entry::new("review", &outcome, started.elapsed());
    entry.round = Some(report.round);
    entry.inputs.insert("pack", frozen.lock.sha256.clone());
    entry.reason =
        (report.reviewer != "not-configured").then(|| format!("reviewer: {}", report.reviewer));
    append(out, &entry).map_err(ledger_error)?;
    if json {
        print::json(&report);
    } else {
        print::diagnostics(&report.diagnostics);
        let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        print::out(&format!(
            "review: {outcome} (round {}, reviewer: {}) — wrote {}",
            report.round,
            report.reviewer,
            shown.join(", ")
        ));
    }
    Ok(if report.verdict.allows_dispatch() {
        exit_code::OK
    } else {
        exit_code::VERDICT_FAILED
    })
}
