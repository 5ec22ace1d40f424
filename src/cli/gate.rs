//! `dwpipe gate --pack LOCK --audit AUDIT.json`: recompute an outside auditor's verdicts.

use std::path::Path;

use crate::exit_code;
use crate::gate::load_auditor_report;
use crate::report::publish;
use crate::schema::AuditReport;

use super::error::Error;
use super::load_lock;
use super::print;
use super::{Edge, Run, out_or_default};

impl Run for super::args::GateArgs {
    fn json(&self) -> bool {
        self.output.json
    }

    fn execute(self, _: &Edge) -> Result<i32, Error> {
        let out = out_or_default(self.out.as_deref(), "gate");
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
            "gate: {} — {} criteria: {} pass, {} fail, {} unverified; {} assertion failure(s); {} error(s), {} warning(s)",
            report.verdict.as_str().to_uppercase(),
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
    Ok(exit_code::of_verdict(report.verdict))
}
