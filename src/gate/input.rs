//! An outside auditor's report: `checks[]` of `{criterionId, result, evidence, actual}`.

use std::path::Path;

use serde::Deserialize;
use serde_json::Number;

use crate::diagnostic::Diagnostic;
use crate::input::{parse_json, read_bounded};

use crate::assertion::{Decimal, UnitContext};
use crate::pack::Frozen;

use super::recompute::{CheckInput, CheckResult, GateOutcome, recompute};

const AUDIT_FIX: &str = "write the audit as JSON: {\"checks\": [{\"criterionId\", \"result\", \"evidence\", \"actual\"}]}";

/// Largest auditor report dwpipe reads.
const MAX_AUDITOR_REPORT_BYTES: u64 = 16 * 1024 * 1024;

/// The report as an auditor writes it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct AuditorReport {
    /// The pack hash the auditor audited against; when given it must match the lock.
    #[serde(default)]
    pub(crate) pack_sha256: Option<String>,
    /// The device's virtual pixel ratio, which lets `px` actuals meet `vp` thresholds.
    #[serde(default)]
    pub(crate) density: Option<Number>,
    /// One check per criterion.
    pub(crate) checks: Vec<AuditorCheck>,
}

/// One check as an auditor writes it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct AuditorCheck {
    criterion_id: String,
    result: CheckResult,
    #[serde(default)]
    evidence: Option<String>,
    #[serde(default)]
    actual: Option<ActualDoc>,
}

/// An actual may be written as text (`"720ms"`) or as a bare number.
#[derive(Debug, Deserialize)]
#[serde(untagged, expecting = "a string or a number")]
enum ActualDoc {
    Text(String),
    Number(Number),
}

impl AuditorReport {
    /// Gates the report against `frozen`: refused when it names another pack or an unusable
    /// density, else every verdict recomputed.
    pub(crate) fn gate(&self, frozen: &Frozen) -> Result<GateOutcome, Diagnostic> {
        if let Some(theirs) = self
            .pack_sha256
            .as_deref()
            .filter(|h| *h != frozen.lock.sha256)
        {
            return Err(Diagnostic::error(
                "E_AUDIT_PACK_MISMATCH",
                format!(
                    "the audit was made against pack {theirs}, the lock is {}",
                    frozen.lock.sha256
                ),
            )
            .fix("gate the audit against the lock it was made for"));
        }
        let density = match &self.density {
            None => None,
            Some(number) => Some(
                Decimal::parse(&number.to_string())
                    .ok()
                    .filter(|d| *d > Decimal::ZERO)
                    .ok_or_else(|| {
                        Diagnostic::error("E_AUDIT_INVALID", "`density` must be a positive number")
                            .fix("give the device's virtual pixel ratio, like 3.25")
                    })?,
            ),
        };
        Ok(recompute(
            &frozen.pack,
            &self.checks(),
            &[],
            UnitContext { density },
        ))
    }

    /// The checks in the gate's terms.
    pub(crate) fn checks(&self) -> Vec<CheckInput> {
        self.checks
            .iter()
            .map(|c| CheckInput {
                criterion_id: c.criterion_id.clone(),
                result: c.result,
                evidence: c.evidence.clone().unwrap_or_default(),
                actual: c.actual.as_ref().map(|a| match a {
                    ActualDoc::Text(t) => t.clone(),
                    ActualDoc::Number(n) => n.to_string(),
                }),
            })
            .collect()
    }
}

/// An auditor's report as read: the bytes (an audit keeps them as evidence) and what they say.
#[derive(Debug)]
pub struct AuditorFile {
    /// The file's bytes.
    pub(crate) bytes: Vec<u8>,
    /// The report.
    pub(crate) report: AuditorReport,
}

/// Reads an auditor's report; any failure is one `E_AUDIT_INVALID` diagnostic.
pub fn load_auditor_report(path: &Path) -> Result<AuditorFile, Diagnostic> {
    let bytes = read_bounded(path, MAX_AUDITOR_REPORT_BYTES, "an audit")
        .map_err(|e| e.diagnostic("E_AUDIT_INVALID", AUDIT_FIX))?;
    parse_auditor_report(path, bytes)
}

/// Parses the bytes of an auditor's report read from `path`.
pub(crate) fn parse_auditor_report(path: &Path, bytes: Vec<u8>) -> Result<AuditorFile, Diagnostic> {
    let invalid = |message: String| Diagnostic::error("E_AUDIT_INVALID", message).fix(AUDIT_FIX);
    let text = std::str::from_utf8(&bytes)
        .map_err(|_| invalid(format!("`{}` is not UTF-8", path.display())))?;
    if text.trim().is_empty() {
        return Err(invalid(format!("`{}` is empty", path.display())));
    }
    let report = parse_json(path, text).map_err(|d| d.recode("E_AUDIT_INVALID", AUDIT_FIX))?;
    Ok(AuditorFile { bytes, report })
}
