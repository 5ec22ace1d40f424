//! `dwpipe brief LOCK`: the Goal brief, or with `--repair-from` the repair brief.

use std::path::Path;

use crate::brief::{failures_from_audit, failures_from_verify, goal, repair};
use crate::config::Config;
use crate::diagnostic::Diagnostic;
use crate::error::Error;
use crate::exit_code;
use crate::input::read_bounded;
use crate::output::write_atomic;
use crate::pack::load_lock;

use super::print;

/// Renders a brief to stdout, or into `out`.
pub(super) fn run(
    lock: &Path,
    config: Option<&Path>,
    round: u32,
    repair_from: Option<&Path>,
    out: Option<&Path>,
) -> Result<i32, Error> {
    let frozen = load_lock(lock).map_err(Error::Invalid)?;
    let config = config.map(Config::load).transpose()?;
    let text = match repair_from {
        None => goal(&frozen, config.as_ref(), None)?,
        Some(path) => {
            let invalid = |m: String| {
                Error::from(
                    Diagnostic::error("E_BRIEF_INVALID", m)
                        .fix("pass an audit-<n>.json or verify-<n>.json dwpipe wrote"),
                )
            };
            let bytes = read_bounded(path, 64 * 1024 * 1024, "a report")
                .map_err(|e| invalid(e.to_string()))?;
            let report: serde_json::Value = serde_json::from_slice(&bytes)
                .map_err(|e| invalid(format!("`{}`: {e}", path.display())))?;
            let source = path
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            if report.get("checks").is_some() {
                repair(
                    &frozen,
                    config.as_ref(),
                    round,
                    failures_from_audit(&frozen, &report),
                    None,
                )?
            } else if report.get("commands").is_some() {
                let (failures, output) = failures_from_verify(&report);
                repair(
                    &frozen,
                    config.as_ref(),
                    round,
                    failures,
                    Some((&source, &output)),
                )?
            } else {
                return Err(invalid(format!(
                    "`{}` is neither an audit nor a verification report",
                    path.display()
                )));
            }
        }
    };
    match out {
        Some(path) => write_atomic(path, text.as_bytes())?,
        None => print::out(text.trim_end()),
    }
    Ok(exit_code::OK)
}
