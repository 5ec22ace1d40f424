//! One audit report verified, as `verify-evidence` and `attest` both need it: held to the
//! lock given (anchored) or the one it names, rebuilt from its folder, and its published
//! forms rendered again.

use std::path::Path;

use crate::diagnostic::Diagnostic;
use crate::schema::{AuditReport, Verification, Verified};

use super::{forms, recheck};

/// Rebuilds the report at `report_path` (read as `report`) against `pack`, else the lock it
/// names: what differs. The lock's own notes are the verification's diagnostics.
pub(crate) fn verify_audit(
    report_path: &Path,
    report: &AuditReport,
    pack: Option<&Path>,
) -> Result<Verification, Vec<Diagnostic>> {
    let lock = match pack {
        Some(lock) => lock.to_owned(),
        None => {
            let named = report.lock.as_deref().ok_or_else(|| {
                vec![
                    Diagnostic::error(
                        "E_EVIDENCE_INVALID",
                        format!(
                            "`{}` names no lock; pass the lock it was audited against with --pack",
                            report_path.display()
                        ),
                    )
                    .fix("pass an audit-<n>.json written by `dwpipe audit`"),
                ]
            })?;
            crate::output::dir_or_dot(report_path.parent()).join(named)
        }
    };
    let frozen = crate::pack::load_lock(&lock)?;
    let mut found = recheck(report_path, report, &frozen).map_err(|d| vec![d])?;
    let (forms, differ) = forms(report_path, &found.rebuilt, &found.figures, &frozen.pack);
    found.differences.extend(differ);
    Ok(Verification {
        report: crate::text::doc_path(report_path),
        kind: Verified::Audit,
        verified: found.differences.is_empty(),
        lock: crate::text::doc_path(&lock),
        lock_sha256: frozen.lock.sha256.clone(),
        anchored: pack.is_some(),
        bound: None,
        files: found.files,
        measurements: found.measurements,
        criteria: 0,
        differences: found.differences,
        diagnostics: frozen.found,
        audits: Vec::new(),
        forms,
    })
}
