//! `dwpipe audit`: measure every criterion that has a probe on a device (or a recorded
//! capture), keep the evidence, and gate the measurements.

use std::path::{Path, PathBuf};

use crate::audit::{self, AuditError, AuditRun};
use crate::device::{
    AnyDevice, CallTimeouts, Device, DeviceError, Hdc, RecordingDevice, ReplayDevice, Server,
};
use crate::diagnostic::{Diagnostic, chain};
use crate::error::Error;
use crate::exit_code;
use crate::gate::{Verdict, load_auditor_report};
use crate::output::relative_to;
use crate::pack::{Pack, load_lock};
use crate::playbook::Playbooks;
use crate::process::Cancel;
use crate::report::AuditReport;

use super::print;
use super::progress::AuditProgress;
use super::runtime::block_on;

/// Where the device comes from.
pub(super) enum Source {
    /// A live device behind hdc.
    Device {
        serial: String,
        server: Option<Server>,
        record: Option<PathBuf>,
    },
    /// A recorded capture.
    Replay(PathBuf),
}

/// Everything `dwpipe audit` was asked.
pub(super) struct AuditPlan {
    pub lock: PathBuf,
    pub source: Source,
    pub runs: Option<u32>,
    pub out: PathBuf,
    pub json: bool,
    pub auditor_report: Option<PathBuf>,
    pub playbooks: Option<PathBuf>,
    pub timeouts: CallTimeouts,
}

/// Opens the device a plan names: a capture to replay, or a live device (recorded as it goes
/// when asked).
pub(super) fn open(
    hdc: &Path,
    source: &Source,
    timeouts: CallTimeouts,
    cancel: &Cancel,
) -> Result<AnyDevice, DeviceError> {
    Ok(match source {
        Source::Replay(capture) => AnyDevice::Replay(ReplayDevice::open(capture)?),
        Source::Device {
            serial,
            server,
            record,
        } => {
            let live = Hdc::new(hdc.to_owned(), server.clone(), timeouts, cancel.clone())
                .device(serial)
                .map_err(DeviceError::from)?;
            match record {
                None => AnyDevice::Hdc(live),
                Some(capture) => AnyDevice::Recording(RecordingDevice::new(live, capture)?),
            }
        }
    })
}

async fn measure(
    device: &impl Device,
    pack: &Pack,
    playbooks: &Playbooks,
    plan: &AuditPlan,
    progress: &AuditProgress,
) -> Result<AuditRun, AuditError> {
    audit::run(device, pack, playbooks, plan.runs, &plan.out, &|event| {
        progress.event(event)
    })
    .await
}

/// Runs the audit; `Ok(exit code)`.
pub(super) fn run(hdc: &Path, plan: AuditPlan) -> Result<i32, Error> {
    let frozen = load_lock(&plan.lock).map_err(Error::Invalid)?;
    let playbooks = Playbooks::load(plan.playbooks.as_deref())?;
    let auditor = match &plan.auditor_report {
        Some(path) => load_auditor_report(path)?.checks(),
        None => Vec::new(),
    };
    std::fs::create_dir_all(&plan.out).map_err(|e| {
        Error::from(Diagnostic::error(
            "E_AUDIT_OUT",
            format!("cannot create `{}`: {e}", plan.out.display()),
        ))
    })?;
    let cancel = Cancel::new();
    let progress = AuditProgress::new(plan.json);
    let measured = block_on(&cancel, async {
        let device = open(hdc, &plan.source, plan.timeouts, &cancel)?;
        let result = measure(&device, &frozen.pack, &playbooks, &plan, &progress).await;
        device.finish().await?;
        Ok(result)
    })
    .map_err(|e: DeviceError| Error::Device(e));
    progress.finish();
    let measured = measured?;
    let run = match measured {
        Ok(run) => run,
        Err(AuditError::Device { run, source }) => {
            eprintln!(
                "dwpipe: the device failed during run {run}; the evidence gathered so far is in {}",
                plan.out.join("evidence").display()
            );
            return Err(Error::Device(source));
        }
        Err(error) => {
            return Err(Diagnostic::error("E_AUDIT_LOCAL", chain(&error)).into());
        }
    };
    let audited = run.gate(&frozen.pack, &auditor);
    let lock = relative_to(&plan.lock, &plan.out);
    let report = AuditReport::of_audit(&frozen.lock.sha256, &audited, Some(lock));
    let written = report.publish(&frozen.pack, &audited.figures, &plan.out)?;
    if plan.json {
        print::json(&report);
    } else {
        print::diagnostics(&report.diagnostics);
        for entry in &report.checks {
            let c = &entry.check;
            print::out(&format!(
                "  {:<8} {:<13} {:<6} {:<10} {:<12} {}",
                c.criterion_id,
                c.dimension.as_str(),
                c.weight.as_str(),
                format!("{:?}", c.result).to_lowercase(),
                c.actual.as_deref().unwrap_or("-"),
                c.reason.as_deref().unwrap_or(&c.evidence),
            ));
        }
        let s = report.summary;
        print::out(&format!(
            "audit of {}: {} — {} criteria: {} pass, {} fail, {} unverified; {} error(s), {} warning(s)",
            audited.device.serial,
            if report.verdict == Verdict::Pass {
                "PASS"
            } else {
                "FAIL"
            },
            s.criteria,
            s.pass,
            s.fail,
            s.unverified,
            s.errors,
            s.warnings
        ));
        let written: Vec<String> = written.iter().map(|p| p.display().to_string()).collect();
        print::out(&format!(
            "wrote {}; evidence in {}",
            written.join(", "),
            plan.out.join("evidence").display()
        ));
    }
    Ok(if report.verdict == Verdict::Pass {
        exit_code::OK
    } else {
        exit_code::VERDICT_FAILED
    })
}
