//! `dwpipe review LOCK`: the built-in adversarial rules, then the optional outside reviewer;
//! the receipt and a ledger line in `--out` (default: beside the lock).

use std::time::Instant;

use crate::config::{Config, Review};
use crate::diagnostic::Diagnostic;
use crate::exit_code;
use crate::pipeline::ledger::{Entry, Input, Ledger, Outcome, Stage};
use crate::process::Cancel;
use crate::review::{ReceiptError, ReviewerOutcome, receipt};

use super::error::Error;
use super::load_lock;
use super::print;
use super::runtime::block_on;
use super::shared::Json;
use super::{Edge, Run};
use std::path::PathBuf;

impl Run for ReviewArgs {
    fn json(&self) -> bool {
        self.output.json
    }

    fn drives_children(&self) -> bool {
        true
    }

    fn execute(self, _: &Edge) -> Result<i32, Error> {
        run(&self)
    }
}

/// Reviews a lock; exit 0 when delivery may go on, 1 when the pack must change or the review
/// blocks, 2 for invalid input (a waiver refused under `closed` among them).
fn run(args: &ReviewArgs) -> Result<i32, Error> {
    let started = Instant::now();
    let frozen = load_lock(&args.lock)?;
    let settings = match &args.config {
        Some(path) => Config::load(path)?.review,
        None => Review::default(),
    };
    let sha = frozen.lock.sha256.clone();
    // Beside the lock unless told otherwise: a review belongs with what it reviewed.
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| crate::output::dir_or_dot(args.lock.parent()).to_owned());
    if out.join(crate::pipeline::RUN_FILE).is_file() {
        return Err(Diagnostic::error(
            "E_REVIEW_IN_RUN",
            format!(
                "`{}` is a delivery's run folder: its ledger is `deliver`'s alone",
                out.display()
            ),
        )
        .fix("pass --out DIR for this review's files")
        .into());
    }
    let cancel = Cancel::new();
    let reviewed = block_on(
        &cancel,
        receipt(&frozen, &settings, &out, args.no_review, &cancel),
    );
    let receipt = match reviewed {
        Ok(receipt) => receipt,
        Err(ReceiptError::Waiver(refused)) => {
            let mut entry = Entry::new(Stage::Review, Outcome::WaiverRefused, started.elapsed());
            entry.inputs.insert(Input::Pack, sha);
            record(&out, &entry)?;
            return Err(
                Diagnostic::error("E_REVIEW_WAIVER_REFUSED", refused.to_string())
                    .fix("set review.allow-waiver-when-closed: true in dwpipe.yaml to allow it")
                    .into(),
            );
        }
        Err(ReceiptError::Interrupted) => {
            return Err(Error::Device(crate::device::DeviceError::Cancelled));
        }
        Err(ReceiptError::Publish(error)) => return Err(error.into()),
    };
    let report = &receipt.report;
    if receipt.written.is_empty() {
        // A lock is reviewed once: the receipt stands until the pack changes.
        if args.output.json {
            print::json(report);
        } else {
            let name = receipt
                .path
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            print::out(&format!(
                "{}: already reviewed in {name}: {} (change the pack to review again)",
                args.lock.display(),
                report.verdict
            ));
        }
        return Ok(exit_code::of_review(report.verdict));
    }
    let mut entry = Entry::new(
        Stage::Review,
        Outcome::Review(report.verdict),
        started.elapsed(),
    );
    entry.round = Some(report.round);
    entry.inputs.insert(Input::Pack, sha);
    entry.reason = (report.reviewer != ReviewerOutcome::NotConfigured)
        .then(|| format!("reviewer: {}", report.reviewer));
    record(&out, &entry)?;
    if args.output.json {
        print::json(report);
    } else {
        print::diagnostics(&report.diagnostics);
        let shown: Vec<String> = receipt
            .written
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        print::out(&format!(
            "review: {} (round {}, reviewer: {}) — wrote {}",
            report.verdict,
            report.round,
            report.reviewer,
            shown.join(", ")
        ));
    }
    Ok(exit_code::of_review(report.verdict))
}

/// Appends `entry` to the ledger in `out`, chained to its last line.
fn record(out: &std::path::Path, entry: &Entry) -> Result<(), Error> {
    let (ledger, _) = Ledger::open(out, None).map_err(|e| {
        Diagnostic::error("E_LEDGER_INVALID", crate::diagnostic::chain(&e))
            .fix("move the damaged ledger.jsonl aside; dwpipe starts a new one")
    })?;
    ledger.append(entry)?;
    Ok(())
}

#[derive(Debug, clap::Args)]
#[command(after_help = "\
Writes review-<n>.json and review-<n>.md and appends to ledger.jsonl in --out. A lock is reviewed \
once: its receipt stands until the pack changes. Exit 0 when delivery may go on (pass, waived, \
incomplete under fail-mode open/warn), 1 when the pack must change or the review blocks.")]
pub(super) struct ReviewArgs {
    /// The frozen pack (pack.lock.json).
    pub(super) lock: PathBuf,
    /// The project config (review settings and the outside reviewer).
    #[arg(long)]
    pub(super) config: Option<PathBuf>,
    /// Folder for the review reports, the receipts and the ledger (default: the lock's folder).
    #[arg(long)]
    pub(super) out: Option<PathBuf>,
    /// Waive the outside reviewer for this run (recorded; refused under fail-mode closed).
    #[arg(long)]
    pub(super) no_review: bool,
    #[command(flatten)]
    pub(super) output: Json,
}
