//! `dwpipe brief LOCK`: the Goal brief, or with `--repair-from` the repair brief of a failed
//! audit or verification, read as the typed report it is.

use std::path::Path;

use crate::brief::{
    CRASHES_SOURCE, crashes_from_audit, failures_from_audit, failures_from_verify, goal, repair,
};
use crate::config::Config;
use crate::diagnostic::Diagnostic;
use crate::exit_code;
use crate::input::{MAX_REPORT_BYTES, read_bounded, top_level_keys};
use crate::output::write_atomic;
use crate::pack::Frozen;

use super::load_lock;
use crate::schema::AuditReport;
use crate::schema::VerifyReport;

use super::error::Error;
use super::print;
use super::{Edge, Run};
use std::path::PathBuf;

impl Run for BriefArgs {
    fn execute(self, _: &Edge) -> Result<i32, Error> {
        run(&self)
    }
}

/// Renders a brief to stdout, or into `--out`.
fn run(args: &BriefArgs) -> Result<i32, Error> {
    let frozen = load_lock(&args.lock)?;
    let config = args.config.as_deref().map(Config::load).transpose()?;
    let text = match &args.repair_from {
        None => goal(&frozen, config.as_ref(), None)?,
        Some(path) => repair_brief(&frozen, config.as_ref(), args.round, path)?,
    };
    match &args.out {
        Some(path) => write_atomic(path, text.as_bytes())?,
        None => print::out(text.trim_end()),
    }
    Ok(exit_code::OK)
}

/// A passing report has nothing for an agent to repair: no brief is written for it.
fn nothing_to_repair(path: &Path) -> Error {
    Diagnostic::error(
        "E_BRIEF_NOTHING_TO_REPAIR",
        format!("`{}` passes: there is nothing to repair", path.display()),
    )
    .fix("pass the failed audit-<n>.json or verify-<n>.json, or write the Goal brief without --repair-from")
    .into()
}

/// The repair brief of an `audit-<n>.json` or a `verify-<n>.json`.
fn repair_brief(
    frozen: &Frozen,
    config: Option<&Config>,
    round: u32,
    path: &Path,
) -> Result<String, Error> {
    let invalid = |m: String| {
        Error::from(
            Diagnostic::error("E_BRIEF_INVALID", m)
                .fix("pass an audit-<n>.json or verify-<n>.json dwpipe wrote"),
        )
    };
    let bytes = read_bounded(path, MAX_REPORT_BYTES, "a report").map_err(|e| {
        Error::from(e.diagnostic(
            "E_BRIEF_INVALID",
            "pass a failed audit-<n>.json or verify-<n>.json",
        ))
    })?;
    let not_a = |what: &str, e: serde_json::Error| {
        invalid(format!("`{}` is not {what}: {e}", path.display()))
    };
    // Which report it is, by its top-level keys (read without building the document); then
    // read straight into that report's shape, so a wrong file gets the error of the field
    // that is wrong and a large one costs its shape, not a generic value of every number.
    let keys = top_level_keys(&bytes).map_err(|e| invalid(format!("`{}`: {e}", path.display())))?;
    let has = |key: &str| keys.iter().any(|k| k == key);
    let source = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    if has("checks") {
        let report: AuditReport =
            serde_json::from_slice(&bytes).map_err(|e| not_a("an audit report", e))?;
        let failures = failures_from_audit(frozen, &report);
        if failures.is_empty() {
            return Err(nothing_to_repair(path));
        }
        let crashes = crashes_from_audit(&report, None);
        let quoted = (!crashes.is_empty()).then_some((CRASHES_SOURCE, crashes.as_str()));
        Ok(repair(frozen, config, round, failures, quoted, None)?)
    } else if has("commands") {
        let report: VerifyReport =
            serde_json::from_slice(&bytes).map_err(|e| not_a("a verification report", e))?;
        let (failures, output) = failures_from_verify(&report);
        if failures.is_empty() {
            return Err(nothing_to_repair(path));
        }
        Ok(repair(
            frozen,
            config,
            round,
            failures,
            Some((&source, &output)),
            None,
        )?)
    } else {
        Err(invalid(format!(
            "`{}` is neither an audit nor a verification report",
            path.display()
        )))
    }
}

#[derive(Debug, clap::Args)]
pub(super) struct BriefArgs {
    /// The frozen pack (pack.lock.json).
    pub(super) lock: PathBuf,
    /// The project config (workspace and verification commands).
    #[arg(long)]
    pub(super) config: Option<PathBuf>,
    /// The repair round this brief is for.
    #[arg(long, default_value_t = 1)]
    pub(super) round: u32,
    /// Write a repair brief from this audit-<n>.json or verify-<n>.json.
    #[arg(long, value_name = "REPORT")]
    pub(super) repair_from: Option<PathBuf>,
    /// Write the brief here instead of stdout.
    #[arg(long)]
    pub(super) out: Option<PathBuf>,
}
