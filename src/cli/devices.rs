//! `dwpipe devices`: every device on every hdc server, identified in parallel.

use std::path::Path;

use serde::Serialize;
use tokio::task::JoinSet;

use crate::device::{CallTimeouts, Device, DeviceError, DeviceInfo, Hdc, Server, Target};
use crate::error::Error;
use crate::exit_code;
use crate::process::Cancel;

use super::print;
use super::runtime::block_on;

#[derive(Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
struct DevicesOutput {
    format_version: u32,
    servers: Vec<ServerReport>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
struct ServerReport {
    server: String,
    reachable: bool,
    error: Option<String>,
    devices: Vec<DeviceReport>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
struct DeviceReport {
    serial: String,
    transport: String,
    status: String,
    name: Option<String>,
    model: Option<String>,
    software_version: Option<String>,
    api_level: Option<u32>,
    virtual_pixel_ratio: Option<f64>,
    error: Option<String>,
}

/// Lists and identifies devices; exit 3 only when no server could be reached at all.
pub(super) fn run(
    binary: &Path,
    servers: &[Server],
    timeouts: CallTimeouts,
    json: bool,
) -> Result<i32, Error> {
    let cancel = Cancel::new();
    let hdcs: Vec<Hdc> = if servers.is_empty() {
        vec![Hdc::new(binary.to_owned(), None, timeouts, cancel.clone())]
    } else {
        servers
            .iter()
            .map(|s| Hdc::new(binary.to_owned(), Some(s.clone()), timeouts, cancel.clone()))
            .collect()
    };
    let reports = block_on(&cancel, survey(hdcs))?;
    let none_reachable = reports.iter().all(|r| !r.reachable);
    if json {
        print::json(&DevicesOutput {
            format_version: crate::format::DEVICES,
            servers: reports,
        });
    } else {
        print::out(&table(&reports));
    }
    Ok(if none_reachable {
        exit_code::ENVIRONMENT
    } else {
        exit_code::OK
    })
}

/// Lists every server, then identifies every connected device, all concurrently.
async fn survey(hdcs: Vec<Hdc>) -> Result<Vec<ServerReport>, Error> {
    let mut listings = JoinSet::new();
    for (index, hdc) in hdcs.iter().enumerate() {
        let hdc = hdc.clone();
        listings.spawn(async move { (index, hdc.list_targets().await) });
    }
    let mut reports: Vec<ServerReport> = hdcs
        .iter()
        .map(|hdc| ServerReport {
            server: hdc.server_name(),
            reachable: false,
            error: None,
            devices: Vec::new(),
        })
        .collect();
    let mut identities = JoinSet::new();
    while let Some(joined) = listings.join_next().await {
        let (index, listed) = joined.expect("listing tasks do not panic");
        match listed {
            Ok(targets) => {
                reports[index].reachable = true;
                for (slot, target) in targets.into_iter().enumerate() {
                    let hdc = hdcs[index].clone();
                    identities
                        .spawn(async move { (index, slot, identify(&hdc, &target).await, target) });
                }
            }
            Err(error @ DeviceError::HdcNotFound { .. }) => return Err(error.into()),
            Err(DeviceError::Cancelled) => return Err(DeviceError::Cancelled.into()),
            Err(error) => reports[index].error = Some(error.to_string()),
        }
    }
    let mut found = Vec::new();
    while let Some(joined) = identities.join_next().await {
        found.push(joined.expect("identify tasks do not panic"));
    }
    found.sort_by_key(|(index, slot, _, _)| (*index, *slot));
    for (index, _, identity, target) in found {
        let (info, error) = match identity {
            Some(Ok(info)) => (info, None),
            Some(Err(DeviceError::Cancelled)) => return Err(DeviceError::Cancelled.into()),
            Some(Err(e)) => (DeviceInfo::default(), Some(e.to_string())),
            None => (DeviceInfo::default(), None),
        };
        reports[index].devices.push(DeviceReport {
            serial: target.serial,
            transport: target.transport,
            status: target.status,
            name: info.name.or(target.name),
            model: info.model,
            software_version: info.software_version,
            api_level: info.api_level,
            virtual_pixel_ratio: info.virtual_pixel_ratio,
            error,
        });
    }
    Ok(reports)
}

/// Identifies a connected device; offline and unauthorized ones are listed as they are.
async fn identify(hdc: &Hdc, target: &Target) -> Option<Result<DeviceInfo, DeviceError>> {
    if !target.is_connected() {
        return None;
    }
    Some(match hdc.device(&target.serial) {
        Ok(device) => device.identity().await,
        Err(unsafe_serial) => Err(unsafe_serial.into()),
    })
}

fn table(reports: &[ServerReport]) -> String {
    let mut rows = vec![
        [
            "SERVER", "SERIAL", "STATUS", "MODEL", "SOFTWARE", "API", "DENSITY",
        ]
        .map(str::to_owned),
    ];
    for report in reports {
        if let Some(error) = &report.error {
            rows.push([
                report.server.clone(),
                "-".into(),
                format!("unreachable: {error}"),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
            ]);
        } else if report.devices.is_empty() {
            rows.push([
                report.server.clone(),
                "-".into(),
                "no devices".into(),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
            ]);
        }
        for d in &report.devices {
            let status = match &d.error {
                Some(e) => format!("{} ({e})", d.status),
                None => d.status.clone(),
            };
            let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
            rows.push([
                report.server.clone(),
                d.serial.clone(),
                status,
                show(&d.model),
                show(&d.software_version),
                d.api_level.map_or_else(|| "-".into(), |a| a.to_string()),
                d.virtual_pixel_ratio
                    .map_or_else(|| "-".into(), |v| v.to_string()),
            ]);
        }
    }
    let widths: Vec<usize> = (0..7)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    rows.iter()
        .map(|row| {
            row.iter()
                .zip(&widths)
                .map(|(cell, width)| format!("{cell:<width$}"))
                .collect::<Vec<_>>()
                .join("  ")
                .trim_end()
                .to_owned()
        })
        .collect::<Vec<_>>()
        .join("\n")
}
