//! `dwpipe audit`: measure every criterion that has a probe on a device (or a recorded
//! capture, or every device of a lab), keep the evidence, gate the measurements, print them.

use std::path::Path;

use crate::audit::AuditError;
use crate::device::DeviceError;
use crate::exit_code;
use crate::gate::{Verdict, load_auditor_report};
use crate::history::Recorder;
use crate::lab::{AuditDeviceError, AuditJob, audit_device};
use crate::playbook::Playbooks;
use crate::process::Cancel;
use crate::report::AuditReport;
use crate::target::{HdcClient, Opened, Target};

use super::args::AuditArgs;
use super::error::Error;
use super::load_lock;
use super::print;
use super::progress::AuditProgress;
use super::runtime::block_on;

/// Runs the audit of one device (or capture); `Ok(exit code)`.
pub(super) fn run(hdc: &HdcClient, target: &Target, args: &AuditArgs) -> Result<i32, Error> {
    let json = args.json;
    let frozen = load_lock(&args.lock)?;
    let playbooks = Playbooks::load(args.playbooks.as_deref())?;
    let auditor = args
        .auditor_report
        .as_deref()
        .map(load_auditor_report)
        .transpose()?;
    std::fs::create_dir_all(&args.out).map_err(Error::folder(&args.out))?;
    let history = args.history.as_deref().map(Recorder::at);
    let cancel = Cancel::new();
    let progress = AuditProgress::new(json);
    let job = AuditJob {
        workspace: None,
        frozen: &frozen,
        lock: &args.lock,
        playbooks: &playbooks,
        runs: args.runs,
        auditor: auditor.as_ref(),
        strict: args.strict,
        installed: &[],
        history: history.as_ref(),
    };
    let published = block_on(&cancel, async {
        let checks = crate::preflight::playbooks(&frozen.pack, &playbooks);
        let Opened::One(device) = crate::preflight::open(checks, target, hdc, &cancel)
            .await
            .1?
        else {
            unreachable!("the lab audit is its own command");
        };
        let result = audit_device(&device, &job, &args.out, &|e| progress.event(e)).await;
        device.finish().await?;
        Ok::<_, Error>(result)
    });
    progress.finish();
    let (report, written) = match published? {
        Ok(published) => published,
        Err(AuditDeviceError::Audit(AuditError::Device {
            source: DeviceError::Cancelled,
            ..
        })) => return Err(Error::Device(DeviceError::Cancelled)),
        // Nothing was asked of the device: the capture itself is the error.
        Err(AuditDeviceError::Audit(AuditError::Refused(source))) => {
            return Err(Error::Device(source));
        }
        Err(AuditDeviceError::Audit(AuditError::Device { run, source })) => {
            print::note(&format!(
                "the device failed during run {run}; the evidence gathered so far is in {}",
                args.out.join("evidence").display()
            ));
            return Err(Error::Device(source));
        }
        Err(AuditDeviceError::Audit(error)) => return Err(Error::Audit(error)),
        Err(AuditDeviceError::Publish(error)) => return Err(error.into()),
        Err(AuditDeviceError::History(error)) => return Err(error.into()),
    };
    if json {
        print::json(&report);
    } else {
        print_report(&report, &written, &args.out);
    }
    Ok(exit_code::of_verdict(report.verdict))
}

fn print_report(report: &AuditReport, written: &[std::path::PathBuf], out: &Path) {
    print::diagnostics(&report.diagnostics);
    for entry in &report.checks {
        let c = &entry.check;
        print::out(&format!(
            "  {:<8} {:<13} {:<6} {:<10} {:<12} {}",
            c.criterion_id,
            c.dimension.as_str(),
            c.weight.as_str(),
            c.result.as_str(),
            c.actual.as_deref().unwrap_or("-"),
            c.reason.as_deref().unwrap_or(&c.evidence),
        ));
    }
    let s = report.summary;
    let serial = report.device.as_ref().map_or("-", |d| d.serial.as_str());
    print::out(&format!(
        "audit of {serial}: {} — {} criteria: {} pass, {} fail, {} unverified; {} error(s), {} warning(s)",
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
        out.join("evidence").display()
    ));
}
