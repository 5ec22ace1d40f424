//! `dwpipe verify-evidence AUDIT.json`: recompute an audit from its evidence, offline.

use std::path::Path;

use crate::audit::verify;
use crate::diagnostic::Diagnostic;
use crate::exit_code;
use crate::input::{MAX_REPORT_BYTES, read_bounded};

use super::error::Error;
use super::load_lock;
use super::print;

/// Exit 0 when every file and number checks out, 1 on any difference.
pub(super) fn run(report: &Path) -> Result<i32, Error> {
    let invalid = |message: String| {
        Error::from(
            Diagnostic::error("E_EVIDENCE_INVALID", message)
                .fix("pass an audit-<n>.json written by `dwpipe audit`"),
        )
    };
    let bytes = read_bounded(report, MAX_REPORT_BYTES, "an audit report")
        .map_err(|e| invalid(crate::diagnostic::chain(&e)))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| invalid(format!("`{}` is not UTF-8", report.display())))?;
    let lock = serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|v| v.get("lock")?.as_str().map(str::to_owned))
        .ok_or_else(|| {
            invalid(format!(
                "`{}` names no lock (only dwpipe's own audits can be verified)",
                report.display()
            ))
        })?;
    let lock_path = report.parent().unwrap_or(Path::new(".")).join(lock);
    let frozen = load_lock(&lock_path)?;
    let found =
        verify(report, &text, &frozen).map_err(|e| invalid(crate::diagnostic::chain(&e)))?;
    for difference in &found.differences {
        print::out(&format!("DIFFERENT  {difference}"));
    }
    print::out(&format!(
        "{}: {} evidence file(s) re-hashed, {} measurement(s) recomputed, {} difference(s)",
        report.display(),
        found.files,
        found.measurements,
        found.differences.len()
    ));
    Ok(exit_code::of_differences(found.differences.len()))
}
