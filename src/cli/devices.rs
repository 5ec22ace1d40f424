//! `dwpipe devices`: the survey of every hdc server, as a table or JSON.

use crate::device::{Server, ServerReport, survey};
use crate::exit_code;
use crate::process::Cancel;
use crate::target::HdcClient;

use super::error::Error;
use super::print;
use super::runtime::block_on;
use super::{Edge, Run};

impl Run for super::args::DevicesArgs {
    fn json(&self) -> bool {
        self.output.json
    }

    fn drives_children(&self) -> bool {
        true
    }

    fn execute(self, edge: &Edge) -> Result<i32, Error> {
        run(&edge.client(&self.client), &self.servers, self.output.json)
    }
}

/// Lists and identifies devices; exit 3 only when no server could be reached at all.
fn run(hdc: &HdcClient, servers: &[Server], json: bool) -> Result<i32, Error> {
    let cancel = Cancel::new();
    let clients = if servers.is_empty() {
        vec![hdc.server(None, &cancel)]
    } else {
        servers
            .iter()
            .map(|s| hdc.server(Some(s.clone()), &cancel))
            .collect()
    };
    let report = block_on(&cancel, survey(clients))?;
    let none_reachable = report.servers.iter().all(|r| !r.reachable);
    if json {
        print::json(&report);
    } else {
        print::out(&table(&report.servers));
    }
    Ok(if none_reachable {
        exit_code::ENVIRONMENT
    } else {
        exit_code::OK
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
