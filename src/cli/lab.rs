//! `dwpipe audit` over many devices (`--device` repeated or `--devices all`, on one or many
//! hdc servers), and `dwpipe report merge`: the criterion × device matrix, printed.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use crate::device::DeviceError;
use crate::diagnostic::{Diagnostic, chain};
use crate::exit_code;
use crate::history::Recorder;
use crate::lab::{LabEvent, LabPlan, audit_lab, interrupted, publish};
use crate::playbook::Playbooks;
use crate::process::Cancel;
use crate::report::{LabReport, merge as merge_shards};
use crate::target::{HdcClient, Opened, Target};

use super::args::AuditArgs;
use super::error::Error;
use super::load_lock;
use super::print;
use super::runtime::block_on;

/// A line on stderr when a device starts and ends.
pub(super) fn report_event(json: bool, event: &LabEvent<'_>) {
    if json {
        return;
    }
    match event {
        LabEvent::Started(serial) => print::note(&format!("{serial}: auditing…")),
        LabEvent::Finished(serial, Ok(verdict)) => print::note(&format!("{serial}: {verdict}")),
        LabEvent::Finished(serial, Err(error)) => {
            print::note(&format!("{serial}: {}", chain(*error)));
        }
    }
}

/// Runs the lab audit; exit 0 when every device passed, 1 when one failed, 3 when none failed
/// but one could not be audited.
pub(super) fn run(hdc: &HdcClient, target: &Target, args: &AuditArgs) -> Result<i32, Error> {
    if args.record.is_some() || args.auditor_report.is_some() {
        return Err(Diagnostic::error(
            "E_LAB_OPTION",
            "--record and --auditor-report take one device",
        )
        .fix("audit that device on its own")
        .into());
    }
    let (lock, out, json) = (args.lock.as_path(), args.out.as_path(), args.json);
    let frozen = load_lock(lock)?;
    let playbooks = Playbooks::load(args.playbooks.as_deref())?;
    std::fs::create_dir_all(out).map_err(Error::folder(out))?;
    let history = args.history.as_deref().map(Recorder::at);
    let cancel = Cancel::new();
    let plan = LabPlan {
        workspace: None,
        hdc,
        frozen: &frozen,
        lock,
        playbooks: &playbooks,
        runs: args.runs,
        haps: &[],
        history: history.as_ref(),
    };
    let (seats, unreachable) = block_on(&cancel, async {
        let checks = crate::preflight::playbooks(&frozen.pack, &playbooks);
        let opened = crate::preflight::open(checks, target, hdc, &cancel).await.1;
        let Opened::Lab(roster) = opened.map_err(Error::from)? else {
            unreachable!("a lab target opens a roster");
        };
        print::unreachable_servers(&roster.unreachable);
        if roster.members.is_empty() && roster.absent.is_empty() {
            return Ok((Vec::new(), Vec::new()));
        }
        let events = |event: LabEvent<'_>| report_event(json, &event);
        let seats = audit_lab(&plan, &roster, out, &cancel, &events).await;
        Ok::<_, Error>((seats, roster.unreachable))
    })?;
    if seats.is_empty() {
        return Err(no_devices());
    }
    if interrupted(&seats) {
        print::note(&format!(
            "interrupted; the devices' evidence so far is under {}",
            out.display()
        ));
        return Err(Error::Device(DeviceError::Cancelled));
    }
    let (report, written) = publish(&frozen, &seats, &unreachable, out)?;
    show(&report, &written, json)
}

/// A lab that found no device to audit.
pub(super) fn no_devices() -> Error {
    Diagnostic::error("E_LAB_NO_DEVICES", "no connected device on the hdc servers")
        .fix("check `dwpipe devices` (and --server for remote hosts)")
        .into()
}

/// Shows the matrix; exit 0 every device passed, 1 one failed, 3 none failed but one could
/// not be audited.
fn show(report: &LabReport, written: &[PathBuf], json: bool) -> Result<i32, Error> {
    if json {
        print::json(report);
    } else {
        print::out(&matrix(report));
        let written: Vec<String> = written.iter().map(|p| p.display().to_string()).collect();
        print::out(&format!("wrote {}", written.join(", ")));
    }
    Ok(exit_code::of_lab(report.verdict))
}

/// `dwpipe report merge RUN…`.
pub(super) fn merge(runs: &[PathBuf], out: &Path, json: bool) -> Result<i32, Error> {
    std::fs::create_dir_all(out).map_err(Error::folder(out))?;
    let (report, junit) = merge_shards(runs, out)?;
    let written = report.publish(&junit, out)?;
    show(&report, &written, json)
}

/// The criterion × device matrix as a terminal table.
fn matrix(report: &LabReport) -> String {
    let shown: Vec<Vec<String>> = report
        .rows
        .iter()
        .map(|row| (0..report.devices.len()).map(|i| row.shown(i)).collect())
        .collect();
    let width = report
        .devices
        .iter()
        .map(|d| d.serial.len())
        .chain(shown.iter().flatten().map(|c| c.chars().count()))
        .max()
        .unwrap_or(0)
        .max(10);
    let mut text = format!("  {:<9} {:<13} {:<6}", "criterion", "dimension", "weight");
    for device in &report.devices {
        let _ = write!(text, " {:<width$}", device.serial);
    }
    let _ = write!(text, "\n  {:<30}", "");
    for device in &report.devices {
        let _ = write!(
            text,
            " {:<width$}",
            device.model.as_deref().unwrap_or(&device.server)
        );
    }
    for (row, cells) in report.rows.iter().zip(&shown) {
        let _ = write!(
            text,
            "\n  {:<9} {:<13} {:<6}",
            row.criterion_id, row.dimension, row.weight
        );
        for cell in cells {
            let _ = write!(text, " {cell:<width$}");
        }
    }
    let _ = write!(text, "\n  {:<30}", "device verdict");
    for device in &report.devices {
        let _ = write!(text, " {:<width$}", device.verdict.as_str());
    }
    for device in report.devices.iter().filter(|d| d.error.is_some()) {
        let _ = write!(
            text,
            "\n  {}: {}",
            device.serial,
            device.error.as_deref().unwrap_or_default()
        );
    }
    for server in &report.unreachable {
        let _ = write!(
            text,
            "\n  hdc server {} did not answer: {}",
            server.server, server.reason
        );
    }
    let _ = write!(
        text,
        "\nlab audit of {} device(s): {}",
        report.devices.len(),
        report.verdict.as_str().to_uppercase()
    );
    text
}
