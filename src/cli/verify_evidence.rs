//! `dwpipe verify-evidence AUDIT.json [--pack LOCK]`: rebuild an audit from its folder,
//! offline, and name every field where the report says otherwise.

use std::path::Path;

use crate::diagnostic::Diagnostic;
use crate::exit_code;
use crate::input::{MAX_REPORT_BYTES, parse_json, read_bounded};
use crate::recheck::{Cause, recheck};
use crate::report::AuditReport;

use super::error::Error;
use super::load_lock;
use super::print;

/// An `audit-<n>.json`, read and parsed; what does not read is `code`.
pub(super) fn read_report(path: &Path, code: &str) -> Result<AuditReport, Error> {
    let fix = "pass an audit-<n>.json written by `dwpipe audit`";
    let bytes = read_bounded(path, MAX_REPORT_BYTES, "an audit report")
        .map_err(|e| e.diagnostic(code, fix))?;
    let text = String::from_utf8(bytes).map_err(|_| {
        Error::from(Diagnostic::error(code, format!("`{}` is not UTF-8", path.display())).fix(fix))
    })?;
    Ok(parse_json(path, &text).map_err(|d| d.recode(code, fix))?)
}

/// Exit 0 when the report is exactly its rebuild, 1 on any difference.
pub(super) fn run(report_path: &Path, pack: Option<&Path>) -> Result<i32, Error> {
    let invalid = |message: String| {
        Error::from(
            Diagnostic::error("E_EVIDENCE_INVALID", message)
                .fix("pass an audit-<n>.json written by `dwpipe audit`"),
        )
    };
    let report = read_report(report_path, "E_EVIDENCE_INVALID")?;
    let frozen = match pack {
        Some(lock) => load_lock(lock)?,
        None => {
            let named = report.lock.as_deref().ok_or_else(|| {
                invalid(format!(
                    "`{}` names no lock; pass the lock it was audited against with --pack",
                    report_path.display()
                ))
            })?;
            let lock = crate::output::dir_or_dot(report_path.parent()).join(named);
            let frozen = load_lock(&lock)?;
            print::out(&format!(
                "UNANCHORED  held to the lock the report names itself, `{}` (sha256 {}); pass --pack with the lock you trust",
                lock.display(),
                frozen.lock.sha256
            ));
            frozen
        }
    };
    let found = recheck(report_path, &report, &frozen)?;
    for difference in &found.differences {
        let label = match difference.cause {
            Cause::Tampered => "DIFFERENT",
            Cause::ExtractorChanged => "EXTRACTOR CHANGED",
        };
        print::out(&format!("{label}  {difference}"));
    }
    let changed = found
        .differences
        .iter()
        .filter(|d| d.cause == Cause::ExtractorChanged)
        .count();
    print::out(&format!(
        "{}: {} evidence file(s) re-hashed, {} measurement(s) rebuilt against lock {}: {} difference(s){}",
        report_path.display(),
        found.files,
        found.measurements,
        &frozen.lock.sha256[..12],
        found.differences.len(),
        if changed > 0 {
            format!(" ({changed} from a changed extractor)")
        } else {
            String::new()
        }
    ));
    Ok(exit_code::of_differences(found.differences.len()))
}
