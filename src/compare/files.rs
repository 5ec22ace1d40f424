//! Comparisons of report files, as `dwpipe compare` makes them and `verify-evidence` and
//! `history import` recompute them: each audit read back typed from its path (a report of a
//! newer format refused with the version that wrote it) and rebuilt from its evidence as
//! `verify-evidence` does — an audit whose numbers are not its evidence's is refused, never
//! compared at its word — the lock found, the comparison made.

use std::path::Path;

use crate::diagnostic::Diagnostic;
use crate::input::{MAX_REPORT_BYTES, parse_json, read_bounded};
use crate::output::{dir_or_dot, relative_to};
use crate::pack::{Frozen, load_lock};
use crate::schema::{AuditReport, Comparison};

use super::compare;
use crate::recheck::{Cause, recheck};

/// How the audits a comparison is made of are taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Given {
    /// Each rebuilt from its evidence (as `verify-evidence` does), and refused when it says
    /// otherwise or cannot be rebuilt: what `compare` and an import take.
    Rebuilt,
    /// Already held to their evidence by the caller, who names their differences itself
    /// (`verify-evidence COMPARE.json`).
    Verified,
}

/// How a caller refuses an audit its evidence does not give: its codes and its fix.
pub(crate) struct Refusing {
    /// An audit that cannot be rebuilt (no lock, a lock or evidence that does not read).
    pub(crate) unverified: &'static str,
    /// An audit whose numbers differ from what its evidence gives.
    pub(crate) tampered: &'static str,
    /// What to do instead.
    pub(crate) fix: &'static str,
}

/// How `compare` (and an import's comparisons) refuse.
const COMPARING: Refusing = Refusing {
    unverified: "E_COMPARE_UNVERIFIED",
    tampered: "E_COMPARE_TAMPERED",
    fix: "compare audits as dwpipe wrote them, in their folders with their evidence (`dwpipe verify-evidence AUDIT` names every difference)",
};

/// The audit at `path` held to its evidence, against the lock it names (returned): nothing
/// but a changed extractor's reading may differ.
pub(crate) fn held_to_evidence(
    path: &Path,
    report: &AuditReport,
    refusing: &Refusing,
) -> Result<Frozen, Diagnostic> {
    let refuse = |why: String| {
        Diagnostic::error(refusing.unverified, format!("`{}` {why}", path.display()))
            .fix(refusing.fix)
    };
    let named = report.lock.as_deref().ok_or_else(|| {
        refuse("names no lock: it cannot be rebuilt from its evidence".to_owned())
    })?;
    let frozen = load_lock(&dir_or_dot(path.parent()).join(named)).map_err(|found| {
        refuse(format!(
            "names a lock that does not read ({}): it cannot be rebuilt from its evidence",
            found.first().map(|d| d.message.clone()).unwrap_or_default()
        ))
    })?;
    let found = recheck(path, report, &frozen).map_err(|why| {
        refuse(format!(
            "cannot be rebuilt from its evidence: {}",
            why.message
        ))
    })?;
    let tampered: Vec<String> = found
        .differences
        .iter()
        .filter(|d| d.cause == Cause::Tampered)
        .map(ToString::to_string)
        .collect();
    if tampered.is_empty() {
        return Ok(frozen);
    }
    let shown: Vec<&str> = tampered.iter().take(5).map(String::as_str).collect();
    Err(Diagnostic::error(
        refusing.tampered,
        format!(
            "`{}` is not what its evidence gives: {} difference(s): {}{}",
            path.display(),
            tampered.len(),
            shown.join("; "),
            if tampered.len() > shown.len() {
                "; …"
            } else {
                ""
            }
        ),
    )
    .fix(refusing.fix))
}

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
    given: Given,
) -> Result<(Comparison, Frozen), Vec<Diagnostic>> {
    let one = |d: Diagnostic| vec![d];
    let (base_report, base_sha) = read_audit_hashed(base_path, "E_COMPARE_INVALID").map_err(one)?;
    let (cand_report, cand_sha) = read_audit_hashed(cand_path, "E_COMPARE_INVALID").map_err(one)?;
    if given == Given::Rebuilt {
        let refused: Vec<Diagnostic> = [(base_path, &base_report), (cand_path, &cand_report)]
            .into_iter()
            .filter_map(|(path, report)| held_to_evidence(path, report, &COMPARING).err())
            .collect();
        if !refused.is_empty() {
            return Err(refused);
        }
    }
    // A baseline is never the candidate: not the same report, however it was copied or
    // re-serialized, nor another report of the same run.
    let (base_id, cand_id) = (base_report.identity(), cand_report.identity());
    if base_id.report_id == cand_id.report_id || base_id.same_run(&cand_id) {
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

/// The comparison at `path` (read as `recorded`) made again from the audits it names, by the
/// lock it was judged by — or by `trusted`, which must be that lock — with what only the
/// recorded one can say (the dwpipe that wrote it, the lock's path, keys added since) taken
/// from it: field for field what it should say.
pub(crate) fn remade(
    path: &Path,
    recorded: &Comparison,
    trusted: Option<&Path>,
    given: Given,
) -> Result<(Comparison, Frozen), Vec<Diagnostic>> {
    let out = dir_or_dot(path.parent());
    let lock = match trusted {
        Some(trusted) => relative_to(trusted, out),
        None => recorded.lock.clone(),
    };
    let (baseline, candidate) = (&recorded.baseline.report, &recorded.candidate.report);
    let (mut remade, frozen) = from_files(
        out,
        (&out.join(baseline), baseline),
        (&out.join(candidate), candidate),
        Some(&lock),
        given,
    )?;
    // Recorded facts, not readings: which dwpipe wrote it, the lock's path (its hash binds it).
    remade.dwpipe_version.clone_from(&recorded.dwpipe_version);
    remade.lock.clone_from(&recorded.lock);
    if recorded.lock_sha256.is_none() {
        remade.format_version = recorded.format_version;
        remade.lock_sha256 = None;
        remade.baseline.report_sha256 = None;
        remade.candidate.report_sha256 = None;
    }
    // Optional keys added since the comparison was written are not in it: a comparison
    // recorded without a criterion's statement or device time is held to what it recorded.
    for (mine, theirs) in remade.criteria.iter_mut().zip(&recorded.criteria) {
        if theirs.statement.is_none() {
            mine.statement = None;
        }
        if theirs.device_seconds.is_none() {
            mine.device_seconds = None;
        }
    }
    Ok((remade, frozen))
}
