//! `dwpipe audit` over many devices: `--device` repeated or `--devices all`, on one or many
//! hdc servers. Finds each device's server, audits them in parallel, prints the matrix.

use std::path::{Path, PathBuf};

use crate::device::{CallTimeouts, DeviceError, Hdc, Server};
use crate::diagnostic::Diagnostic;
use crate::error::Error;
use crate::exit_code;
use crate::lab::{
    INTERRUPTED, LabEvent, LabPlan, LabReport, Member, Seat, audit_lab, junit, publish,
};
use crate::pack::load_lock;
use crate::playbook::Playbooks;
use crate::process::Cancel;

use super::print;
use super::runtime::block_on;

/// Which devices the lab audits.
pub(super) enum Pick {
    /// Every connected device on the servers.
    All,
    /// These connect keys, wherever they are.
    Serials(Vec<String>),
}

/// Everything a lab audit was asked.
pub(super) struct LabArgs {
    pub lock: PathBuf,
    pub pick: Pick,
    pub servers: Vec<Server>,
    pub runs: Option<u32>,
    pub out: PathBuf,
    pub jobs: usize,
    pub playbooks: Option<PathBuf>,
    pub timeouts: CallTimeouts,
    pub json: bool,
}

/// Lists every server and picks the members; a device on no server is a seat of its own
/// that fails with why, so the matrix still shows it.
pub(super) async fn members(
    hdc: &Path,
    pick: &Pick,
    servers: &[Server],
    timeouts: CallTimeouts,
    cancel: &Cancel,
) -> Result<(Vec<Member>, Vec<Seat>), DeviceError> {
    let servers: Vec<Option<Server>> = if servers.is_empty() {
        vec![None]
    } else {
        servers.iter().cloned().map(Some).collect()
    };
    let mut listed = Vec::new();
    let mut unreachable = Vec::new();
    for server in servers {
        let client = Hdc::new(hdc.to_owned(), server.clone(), timeouts, cancel.clone());
        match client.list_targets().await {
            Ok(targets) => listed.extend(targets.into_iter().map(|t| (server.clone(), t))),
            Err(e @ (DeviceError::HdcNotFound { .. } | DeviceError::Cancelled)) => return Err(e),
            Err(e) => {
                eprintln!("dwpipe: hdc server {}: {e}", client.server_name());
                unreachable.push(e);
            }
        }
    }
    if listed.is_empty()
        && let Some(error) = unreachable.pop()
    {
        return Err(error);
    }
    let mut found = Vec::new();
    let mut missing = Vec::new();
    match pick {
        Pick::All => found.extend(listed.into_iter().filter(|(_, t)| t.is_connected()).map(
            |(server, t)| Member {
                serial: t.serial,
                server,
            },
        )),
        Pick::Serials(serials) => {
            for serial in serials {
                match listed.iter().find(|(_, t)| &t.serial == serial) {
                    Some((server, t)) if t.is_connected() => found.push(Member {
                        serial: serial.clone(),
                        server: server.clone(),
                    }),
                    other => missing.push(Seat {
                        member: Member {
                            serial: serial.clone(),
                            server: other.and_then(|(s, _)| s.clone()),
                        },
                        outcome: Err(match other {
                            Some((_, t)) => format!("the device is {}", t.status),
                            None => "the device is on no hdc server".to_owned(),
                        }),
                    }),
                }
            }
        }
    }
    Ok((found, missing))
}

fn report_event(json: bool, event: LabEvent) {
    if json {
        return;
    }
    match event {
        LabEvent::Started(serial) => eprintln!("dwpipe: {serial}: auditing…"),
        LabEvent::Finished(serial, outcome) => eprintln!("dwpipe: {serial}: {outcome}"),
        LabEvent::Audit(..) => {}
    }
}

/// Runs the lab audit; exit 0 when every device passed, 1 when one failed, 3 when none failed
/// but one could not be audited.
pub(super) fn run(hdc: &Path, args: LabArgs) -> Result<i32, Error> {
    let frozen = load_lock(&args.lock).map_err(Error::Invalid)?;
    let playbooks = Playbooks::load(args.playbooks.as_deref())?;
    std::fs::create_dir_all(&args.out)
        .map_err(|e| Error::Local(format!("cannot create `{}`: {e}", args.out.display())))?;
    let cancel = Cancel::new();
    let plan = LabPlan {
        hdc,
        frozen: &frozen,
        lock: &args.lock,
        playbooks: &playbooks,
        runs: args.runs,
        jobs: args.jobs,
        timeouts: args.timeouts,
    };
    let seats = block_on(&cancel, async {
        let (members, mut missing) =
            members(hdc, &args.pick, &args.servers, args.timeouts, &cancel).await?;
        if members.is_empty() && missing.is_empty() {
            return Ok(Vec::new());
        }
        let events = |event| report_event(args.json, event);
        let mut seats = audit_lab(&plan, &members, &args.out, &cancel, &events).await;
        seats.append(&mut missing);
        Ok::<_, DeviceError>(seats)
    })?;
    if seats.is_empty() {
        return Err(Diagnostic::error(
            "E_LAB_NO_DEVICES",
            "no connected device on the hdc servers",
        )
        .fix("check `dwpipe devices` (and --server for remote hosts)")
        .into());
    }
    if seats
        .iter()
        .any(|s| s.outcome.as_ref().is_err_and(|e| e == INTERRUPTED))
    {
        eprintln!(
            "dwpipe: interrupted; the devices' evidence so far is under {}",
            args.out.display()
        );
        return Err(Error::Device(DeviceError::Cancelled));
    }
    let report = LabReport::new(&frozen, &seats, "audit-1.json");
    finish(&report, &junit(&seats), &args.out, args.json)
}

/// Writes the matrix, shows it; exit 0 every device passed, 1 one failed, 3 none failed but
/// one could not be audited.
fn finish(report: &LabReport, junit: &str, out: &Path, json: bool) -> Result<i32, Error> {
    let written = publish(report, junit, out).map_err(Error::Local)?;
    if json {
        print::json(report);
    } else {
        print::out(&matrix(report));
        let written: Vec<String> = written.iter().map(|p| p.display().to_string()).collect();
        print::out(&format!("wrote {}", written.join(", ")));
    }
    Ok(match report.verdict.as_str() {
        "pass" => exit_code::OK,
        "fail" => exit_code::VERDICT_FAILED,
        _ => exit_code::ENVIRONMENT,
    })
}

/// `dwpipe report merge RUN…`.
pub(super) fn merge(runs: &[PathBuf], out: &Path, json: bool) -> Result<i32, Error> {
    std::fs::create_dir_all(out)
        .map_err(|e| Error::Local(format!("cannot create `{}`: {e}", out.display())))?;
    let (report, junit) = crate::lab::merge::merge(runs, out)?;
    finish(&report, &junit, out, json)
}

/// The criterion × device matrix as a terminal table.
fn matrix(report: &LabReport) -> String {
    let width = report
        .devices
        .iter()
        .map(|d| d.serial.len())
        .max()
        .unwrap_or(0)
        .max(10);
    let mut text = format!("  {:<9} {:<13} {:<6}", "criterion", "dimension", "weight");
    for device in &report.devices {
        text.push_str(&format!(" {:<width$}", device.serial));
    }
    for row in &report.rows {
        text.push_str(&format!(
            "\n  {:<9} {:<13} {:<6}",
            row.criterion_id, row.dimension, row.weight
        ));
        for result in &row.results {
            text.push_str(&format!(" {result:<width$}"));
        }
    }
    text.push_str(&format!("\n  {:<30}", "device verdict"));
    for device in &report.devices {
        text.push_str(&format!(" {:<width$}", device.verdict));
    }
    for device in report.devices.iter().filter(|d| d.error.is_some()) {
        text.push_str(&format!(
            "\n  {}: {}",
            device.serial,
            device.error.as_deref().unwrap_or_default()
        ));
    }
    text.push_str(&format!(
        "\nlab audit of {} device(s): {}",
        report.devices.len(),
        report.verdict.to_uppercase()
    ));
    text
}
