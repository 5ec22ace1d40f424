//! `dwpipe devices`: the survey of every hdc server, as a table or JSON.

use crate::device::{Server, ServerReport, survey};
use crate::exit_code;
use crate::process::Cancel;
use crate::target::HdcClient;

use super::error::Error;
use super::print;
use super::runtime::block_on;
use super::shared::{DeviceClient, Json, parse_server};
use super::{Edge, Run};

impl Run for DevicesArgs {
    fn json(&self) -> bool {
        self.output.json
    }

    fn drives_children(&self) -> bool {
        true
    }

    fn execute(self, edge: &Edge) -> Result<i32, Error> {
        run(
            &edge.client(&self.client).unleased(),
            &self.servers,
            self.output.json,
        )
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

/// The survey as a table, one device a row; why a server or a device could not be used
/// last, where it may be long.
fn table(reports: &[ServerReport]) -> String {
    let mut rows: Vec<Vec<String>> = vec![
        [
            "SERVER", "SERIAL", "MODEL", "SOFTWARE", "API", "DENSITY", "STATUS",
        ]
        .map(str::to_owned)
        .to_vec(),
    ];
    for report in reports {
        let server = |status: String| {
            let mut row = vec![report.server.clone(), "-".into()];
            row.extend(std::iter::repeat_n(String::new(), 4));
            row.push(status);
            row
        };
        if let Some(error) = &report.error {
            let what = if report.not_hdc {
                "not an hdc server"
            } else {
                "unreachable"
            };
            rows.push(server(format!("{what}: {error}")));
        } else if report.devices.is_empty() {
            rows.push(server("no devices".into()));
        }
        for d in &report.devices {
            let status = match &d.error {
                Some(e) => format!("{} ({e})", d.status),
                None => d.status.clone(),
            };
            let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
            rows.push(vec![
                report.server.clone(),
                d.serial.clone(),
                show(&d.model),
                show(&d.software_version),
                d.api_level.map_or_else(|| "-".into(), |a| a.to_string()),
                d.virtual_pixel_ratio
                    .map_or_else(|| "-".into(), |v| v.to_string()),
                status,
            ]);
        }
    }
    crate::text::columns(&rows).join("\n")
}

#[derive(Debug, clap::Args)]
#[command(after_help = "\
Without --server, the local hdc server is asked. For a lab, run `hdc -s HOST:PORT -m` on each \
host that has USB devices and pass --server HOST:PORT once per host; unreachable servers and \
offline devices are reported, not fatal (exit 3 only when no server answers).")]
pub(super) struct DevicesArgs {
    #[command(flatten)]
    pub(super) client: DeviceClient,
    /// A remote hdc server, HOST:PORT (repeatable).
    #[arg(long = "server", value_name = "HOST:PORT", value_parser = parse_server)]
    pub(super) servers: Vec<Server>,
    #[command(flatten)]
    pub(super) output: Json,
}
