//! `dwpipe gate --pack LOCK --audit AUDIT.json`: recompute an outside auditor's verdicts.

use std::path::Path;

use crate::exit_code;
use crate::gate::load_auditor_report;
use crate::report::publish;
use crate::schema::AuditReport;

use super::error::Error;
use super::load_lock;
use super::print;
use super::shared::Json;
use super::{Edge, Run};
use std::path::PathBuf;

impl Run for GateArgs {
    fn json(&self) -> bool {
        self.output.json
    }

    fn execute(self, _: &Edge) -> Result<i32, Error> {
        let out = crate::output::default_out(self.out.as_deref(), "gate");
        run(&self.lock, &self.audit, &out, self.output.json)
    }
}

/// Gates an auditor's report; returns `Ok(exit code)`: 0 pass, 1 fail.
fn run(lock_path: &Path, audit_path: &Path, out: &Path, json: bool) -> Result<i32, Error> {
    let frozen = load_lock(lock_path)?;
    let outcome = load_auditor_report(audit_path)?.report.gate(&frozen)?;
    let report = AuditReport::of_gate(&frozen.lock.sha256, outcome);
    let paths = publish::audit_numbered(&report, out)?;
    if json {
        print::json(&report);
    } else {
        print::diagnostics(&report.diagnostics);
        let s = report.summary;
        print::out(&format!(
            "gate: {} — {}: {} pass, {} fail, {} unverified; {} assertion failure(s); {} error(s), {} warning(s)",
            report.verdict.as_str().to_uppercase(),
            crate::text::counted(s.criteria, "criterion", "criteria"),
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
    Ok(exit_code::of_verdict(report.verdict))
}

#[derive(Debug, clap::Args)]
#[command(after_help = "\
The audit is JSON: {\"checks\": [{\"criterionId\": \"P-01\", \"result\": \"pass\", \
\"evidence\": \"3 runs\", \"actual\": \"720ms\"}]}, optionally with \"pack-sha256\" and \"density\" \
(the virtual pixel ratio, for px actuals against vp thresholds).

Writes audit-<n>.json and audit-<n>.md, n the next free number in --out. \
Exit 0 pass, 1 fail, 2 invalid input (a tampered lock is E_LOCK_TAMPERED).")]
pub(super) struct GateArgs {
    /// The frozen pack (pack.lock.json).
    #[arg(long = "pack", value_name = "LOCK")]
    pub(super) lock: PathBuf,
    /// The auditor's report (JSON).
    #[arg(long, value_name = "AUDIT.json")]
    pub(super) audit: PathBuf,
    /// Folder for audit-<n>.json and audit-<n>.md (default: a new .dwpipe/gate-<time>/).
    #[arg(long)]
    pub(super) out: Option<PathBuf>,
    #[command(flatten)]
    pub(super) output: Json,
}
