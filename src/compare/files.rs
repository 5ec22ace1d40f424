//! Comparisons of report files, as `dwpipe compare` makes them and `verify-evidence`
//! recomputes them: each audit read back typed from its path (a report of a newer format
//! refused with the version that wrote it), the lock found, the comparison made.

use std::path::Path;

use crate::diagnostic::Diagnostic;
use crate::input::{MAX_REPORT_BYTES, parse_json, read_bounded};
use crate::output::{dir_or_dot, relative_to};
use crate::pack::{Frozen, load_lock};
use crate::schema::{AuditReport, Comparison};

use super::compare;

/// An `audit-<n>.json`, read and parsed; what does not read is `code`.
pub(crate) fn read_audit(path: &Path, code: &str) -> Result<AuditReport, Diagnostic> {
    read_audit_hashed(path, code).map(|(report, _)| report)
}

/// An `audit-<n>.json`, read and parsed, and the SHA-256 of its bytes.
pub(crate) fn read_audit_hashed(
    path: &Path,
    code: &str,
) -> Result<(AuditReport, String), Diagnostic> {
    let fix = "pass an audit-<n>.json written by `dwpipe audit`";
    let bytes = read_bounded(path, MAX_REPORT_BYTES, "an audit report")
        .map_err(|e| e.diagnostic(code, fix))?;
    let sha256 = crate::hash::sha256_hex(&bytes);
    let text = String::from_utf8(bytes).map_err(|_| {
        Diagnostic::error(code, format!("`{}` is not UTF-8", path.display())).fix(fix)
    })?;
    let report: AuditReport = parse_json(path, &text).map_err(|d| d.recode(code, fix))?;
    report.readable(path, code)?;
    Ok((report, sha256))
}

/// The comparison of the audits at `base_path` and `cand_path` — recorded by their names
/// relative to `out`, where `compare.json` lives — by the criteria of `lock` (relative to
/// `out` too; default: the lock the candidate names), with the lock as loaded (its notes
/// for the user to read).
pub(crate) fn from_files(
    out: &Path,
    (base_path, baseline): (&Path, &str),
    (cand_path, candidate): (&Path, &str),
    lock: Option<&str>,
) -> Result<(Comparison, Frozen), Vec<Diagnostic>> {
    let one = |d: Diagnostic| vec![d];
    let (base_report, base_sha) = read_audit_hashed(base_path, "E_COMPARE_INVALID").map_err(one)?;
    let (cand_report, cand_sha) = read_audit_hashed(cand_path, "E_COMPARE_INVALID").map_err(one)?;
    // A baseline is never the candidate: not the same report, however it was copied or
    // re-serialized, nor another report of the same run.
    let (base_id, cand_id) = (base_report.identity(), cand_report.identity());
    if base_id.report_id == cand_id.report_id
        || (base_id.run_key.is_some() && base_id.run_key == cand_id.run_key)
    {
        return Err(one(Diagnostic::error(
            "E_COMPARE_SAME_AUDIT",
            format!(
                "`{}` and `{}` are the same audit: a candidate compared with itself shows nothing",
                base_path.display(),
                cand_path.display()
            ),
        )
        .fix(
            "compare the candidate with the last release's audit of the same device model",
        )));
    }
    let lock = match lock {
        Some(lock) => lock.to_owned(),
        None => {
            let named = cand_report
                .lock
                .as_deref()
                .ok_or_else(|| {
                    Diagnostic::error(
                        "E_COMPARE_INVALID",
                        format!("`{}` names no lock", cand_path.display()),
                    )
                    .fix("pass the lock with --pack")
                })
                .map_err(one)?;
            relative_to(&dir_or_dot(cand_path.parent()).join(named), out)
        }
    };
    let frozen = load_lock(&out.join(&lock))?;
    let mut comparison = compare(
        &base_report,
        &cand_report,
        &frozen,
        (baseline, candidate),
        &lock,
    )
    .map_err(|e| one(Diagnostic::error(e.code(), e.to_string()).fix(e.fix())))?;
    comparison.baseline.report_sha256 = Some(base_sha);
    comparison.candidate.report_sha256 = Some(cand_sha);
    Ok((comparison, frozen))
}
