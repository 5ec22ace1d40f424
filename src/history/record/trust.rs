//! How far an imported audit is trusted: its source as its folder kept it, and its verdict rebuilt
//! from its evidence (or re-gated from its own readings) against the lock it names, never taken
//! from the file.

use super::super::VerdictBy;
use crate::diagnostic::Diagnostic;
use crate::hash::sha256_hex;
use crate::input::{MAX_REPORT_BYTES, read_bounded};
use crate::output::dir_or_dot;
use crate::schema::AuditReport;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Refuses an audit whose `source` is not the one its folder kept (`source.json`, hashed
/// among its inputs since format 4): a replay relabelled as a device's audit would otherwise
/// be taken as a baseline.
pub(super) fn source_as_kept(report: &AuditReport, path: &Path) -> Result<(), Diagnostic> {
    let (Some(device), Some(said)) = (&report.device, &report.source) else {
        return Ok(());
    };
    let folder = dir_or_dot(path.parent());
    let recorded = report.inputs.as_ref().and_then(|i| i.source.as_ref());
    let kept_path = match recorded {
        Some(file) => folder.join(&file.path),
        None => {
            crate::audit::evidence_root(folder, &device.serial).join(crate::audit::SOURCE_RECORD)
        }
    };
    let refuse = |why: String| {
        Diagnostic::error("E_HISTORY_IMPORT", format!("`{}`: {why}", path.display())).fix(
            "import audits as dwpipe wrote them (`dwpipe verify-evidence` names what was changed)",
        )
    };
    if recorded.is_none() && report.format_version >= 4 {
        return Err(refuse(
            "it says it is of format 4, which keeps its source record, and names none".to_owned(),
        ));
    }
    let bytes = match read_bounded(&kept_path, MAX_REPORT_BYTES, "a source record") {
        Ok(bytes) => bytes,
        // A report that never kept one (before format 4) is taken as it says.
        Err(_) if recorded.is_none() => return Ok(()),
        Err(e) => return Err(refuse(format!("its source record cannot be read: {e}"))),
    };
    if let Some(file) = recorded
        && sha256_hex(&bytes) != file.sha256
    {
        return Err(refuse(
            "its source record does not hash to what the report says".to_owned(),
        ));
    }
    let kept: crate::device::Source = serde_json::from_slice(&bytes)
        .map_err(|e| refuse(format!("its source record is not one: {e}")))?;
    if kept != *said {
        return Err(refuse(format!(
            "the report says its readings came from {said}, its evidence says {kept}"
        )));
    }
    Ok(())
}

/// Each lock read, by its path.
pub(super) type Apps = HashMap<PathBuf, crate::pack::Frozen>;
/// Whose verdict a report carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Trust {
    /// This dwpipe's, just measured.
    Measured,
    /// Another dwpipe's (an import): checked before it is recorded.
    Checked,
}

/// How the verdict of the audit at `path` holds up, against the lock it names: rebuilt from
/// its evidence with nothing different, else (its evidence absent or unreadable) re-gated
/// from its own readings to the same verdict and checks. Anything else is refused.
pub(super) fn checked(
    path: &Path,
    report: &AuditReport,
    frozen: &crate::pack::Frozen,
) -> Result<VerdictBy, Diagnostic> {
    let refuse = |why: String| {
        Diagnostic::error("E_HISTORY_IMPORT", format!("`{}`: {why}", path.display())).fix(
            "import audits as dwpipe wrote them (`dwpipe verify-evidence` names every difference)",
        )
    };
    if report.device.is_none() {
        // An outside auditor's report: the history does not record it.
        return Ok(VerdictBy::Readings);
    }
    match crate::recheck::recheck(path, report, frozen) {
        Ok(found) => {
            let tampered: Vec<String> = found
                .differences
                .iter()
                .filter(|d| d.cause == crate::recheck::Cause::Tampered)
                .map(ToString::to_string)
                .collect();
            if tampered.is_empty() {
                return Ok(VerdictBy::Rebuilt);
            }
            Err(refuse(format!(
                "it is not what its evidence gives ({} difference(s); first: {}): not recorded",
                tampered.len(),
                tampered[0]
            )))
        }
        // No evidence to rebuild it from: its own readings must give its verdict.
        Err(_) => match crate::recheck::regated(report, frozen) {
            Ok(()) => Ok(VerdictBy::Readings),
            Err(why) => Err(refuse(format!("{why}: not recorded"))),
        },
    }
}

/// The lock an audit names, as a path.
pub(super) fn lock_of(report: &AuditReport, path: &Path) -> Result<PathBuf, Diagnostic> {
    let lock = report
        .lock
        .as_deref()
        .ok_or_else(|| no_lock(path, "is not named"))?;
    let lock = dir_or_dot(path.parent()).join(lock);
    Ok(std::fs::canonicalize(&lock).unwrap_or(lock))
}

/// The app an audit measured: the bundle of the lock it names.
pub(crate) fn app_of(report: &AuditReport, path: &Path) -> Result<String, Diagnostic> {
    let frozen = frozen_in(&lock_of(report, path)?, path)?;
    Ok(frozen.pack.doc.app.bundle.value.clone())
}

/// The lock `lock`, named by the audit at `path`.
pub(super) fn frozen_in(lock: &Path, path: &Path) -> Result<crate::pack::Frozen, Diagnostic> {
    crate::pack::load_lock(lock).map_err(|found| {
        no_lock(
            path,
            &format!(
                "(`{}`) cannot be read: {}",
                lock.display(),
                found.first().map(ToString::to_string).unwrap_or_default()
            ),
        )
    })
}

pub(super) fn no_lock(path: &Path, why: &str) -> Diagnostic {
    Diagnostic::error(
        "E_HISTORY_IMPORT",
        format!("`{}`: the lock it was held against {why}", path.display()),
    )
    .fix("import the run folder as dwpipe wrote it, its pack.lock.json included")
}

/// Holds an imported comparison to the audits it names: made again from them (each rebuilt
/// from its evidence) by the lock it was judged by, field for field; one that says otherwise,
/// or cannot be made again, is refused with why, never recorded at its word.
pub(super) fn checked_comparison(
    path: &Path,
    recorded: &crate::schema::Comparison,
) -> Result<(), Diagnostic> {
    let refuse = |why: String| {
        Diagnostic::error("E_HISTORY_IMPORT", format!("`{}`: {why}", path.display())).fix(
            "import comparisons as dwpipe wrote them, beside the audits they name (`dwpipe verify-evidence COMPARE.json` names every difference)",
        )
    };
    let (remade, _) = crate::compare::remade(path, recorded, None, crate::compare::Given::Rebuilt)
        .map_err(|found| {
            refuse(format!(
                "it cannot be made again from the audits it names: {}: not recorded",
                found.first().map(|d| d.message.clone()).unwrap_or_default()
            ))
        })?;
    let as_value = |c: &crate::schema::Comparison| serde_json::to_value(c).unwrap_or_default();
    let differences = crate::recheck::tampered(&as_value(recorded), &as_value(&remade));
    match differences.first() {
        None => Ok(()),
        Some(first) => Err(refuse(format!(
            "it is not what its audits give ({} difference(s); first: {first}): not recorded",
            differences.len()
        ))),
    }
}

/// Holds an A/B session's record to what it names: its regression verdict to its comparison
/// made again, each arm's verdict to that arm's audit. Its arms are taken only when it holds.
pub(super) fn checked_ab(path: &Path, record: &crate::schema::AbRecord) -> Result<(), String> {
    let dir = dir_or_dot(path.parent());
    let comparison_path = dir.join(&record.comparison);
    let bytes = read_bounded(&comparison_path, MAX_REPORT_BYTES, "a comparison")
        .map_err(|e| format!("its comparison cannot be read: {e}"))?;
    let recorded: crate::schema::Comparison =
        serde_json::from_slice(&bytes).map_err(|e| format!("its comparison is not one: {e}"))?;
    let (remade, _) = crate::compare::remade(
        &comparison_path,
        &recorded,
        None,
        crate::compare::Given::Rebuilt,
    )
    .map_err(|found| {
        format!(
            "its comparison cannot be made again from its arms' audits: {}",
            found.first().map(|d| d.message.clone()).unwrap_or_default()
        )
    })?;
    if remade.verdict != record.regression {
        return Err(format!(
            "it says the candidate {}, its arms' audits give {}",
            record.regression.as_str(),
            remade.verdict.as_str()
        ));
    }
    for arm in [&record.baseline, &record.candidate] {
        let audit = crate::compare::read_audit(&dir.join(&arm.report), "E_HISTORY_IMPORT")
            .map_err(|d| d.message)?;
        if audit.verdict != arm.verdict {
            return Err(format!(
                "it says {} ended {}, that audit says {}",
                arm.report,
                arm.verdict.as_str(),
                audit.verdict.as_str()
            ));
        }
    }
    Ok(())
}
