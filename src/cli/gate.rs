//! `dwpipe gate --pack LOCK --audit AUDIT.json`: recompute an outside auditor's verdicts.

use std::path::Path;

use crate::assertion::{Decimal, UnitContext};
use crate::diagnostic::Diagnostic;
use crate::error::Error;
use crate::exit_code;
use crate::gate::{Verdict, load_auditor_report, recompute};
use crate::output::publish_numbered;
use crate::pack::load_lock;
use crate::report::AuditReport;
use crate::template::render;

use super::print;

/// Gates an auditor's report; returns `Ok(exit code)`: 0 pass, 1 fail.
pub(super) fn run(
    lock_path: &Path,
    audit_path: &Path,
    out: &Path,
    json: bool,
) -> Result<i32, Error> {
    let frozen = load_lock(lock_path).map_err(Error::Invalid)?;
    let auditor = load_auditor_report(audit_path)?;
    if let Some(theirs) = auditor
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
        .fix("gate the audit against the lock it was made for")
        .into());
    }
    let density = match &auditor.density {
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
    let outcome = recompute(
        &frozen.pack,
        &auditor.checks(),
        &[],
        UnitContext { density },
    );
    let report = AuditReport::of_gate(&frozen.lock.sha256, outcome);
    let report_json = report.to_json();
    let markdown = render("audit.md", &report)?;
    let (_, paths) = publish_numbered(
        out,
        "audit",
        &[
            ("json", report_json.as_bytes()),
            ("md", markdown.as_bytes()),
        ],
    )?;
    if json {
        print::json(&report);
    } else {
        print::diagnostics(&report.diagnostics);
        let s = report.summary;
        print::out(&format!(
            "gate: {} — {} criteria: {} pass, {} fail, {} unverified; {} assertion failure(s); {} error(s), {} warning(s)",
            match report.verdict {
                Verdict::Pass => "PASS",
                Verdict::Fail => "FAIL",
            },
            s.criteria,
            s.pass,
            s.fail,
            s.unverified,
            s.assertion_failures,
            s.errors,
            s.warnings
        ));
        let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        print::out(&format!("wrote {}", shown.join(", ")));
    }
    Ok(match report.verdict {
        Verdict::Pass => exit_code::OK,
        Verdict::Fail => exit_code::VERDICT_FAILED,
    })
}
