//! `dwpipe identify --device SERIAL --out DIR`: record a device's identity (`device.yaml`,
//! no exchanges) into a capture folder, the start of a hand-written scenario. A capture that
//! replays an audit is recorded by the audit itself (`dwpipe audit --record DIR`); the
//! command earlier releases called `capture` says so.

use std::path::Path;

use crate::device::{RecordingDevice, Server};
use crate::diagnostic::Diagnostic;
use crate::exit_code;
use crate::process::Cancel;
use crate::target::HdcClient;

use super::error::Error;
use super::print;
use super::runtime::block_on;
use super::shared::{DeviceClient, parse_serial, parse_server};
use super::{Edge, Run};
use std::path::PathBuf;

impl Run for IdentifyArgs {
    fn drives_children(&self) -> bool {
        true
    }

    fn execute(self, edge: &Edge) -> Result<i32, Error> {
        run(
            &edge.client(&self.client),
            &self.serial,
            self.server,
            &self.out,
        )
    }
}

impl Run for RenamedCapture {
    fn execute(self, _edge: &Edge) -> Result<i32, Error> {
        Err(Diagnostic::error(
            "E_COMMAND_RENAMED",
            "`dwpipe capture` recorded only a device's identity, and is now `dwpipe identify`",
        )
        .fix("to record a capture that replays an audit: `dwpipe audit --pack pack.lock.json --device SERIAL --record DIR`; for the identity alone: `dwpipe identify --device SERIAL --out DIR`")
        .into())
    }
}

/// Records `device.yaml` (and an empty transcript) for one device.
fn run(hdc: &HdcClient, serial: &str, server: Option<Server>, out: &Path) -> Result<i32, Error> {
    if out.join("transcript.yaml").exists() {
        return Err(Diagnostic::error(
            "E_CAPTURE_EXISTS",
            format!("`{}` already holds a capture", out.display()),
        )
        .fix("choose an empty folder; captures are never overwritten")
        .into());
    }
    let cancel = Cancel::new();
    let device = hdc
        .server(server, &cancel)
        .device(serial)
        .map_err(crate::device::DeviceError::from)?;
    let fresh = !out.exists();
    let recording = RecordingDevice::new(device, out)?;
    let info = match block_on(&cancel, recording.finish()) {
        Ok(info) => info,
        Err(e) => {
            // A folder this run created and left empty is not a capture: nothing stays behind.
            if fresh {
                let _ = std::fs::remove_dir(out.join("files"));
                let _ = std::fs::remove_dir(out);
            }
            return Err(e.into());
        }
    };
    print::out(&format!(
        "recorded the identity of {} ({}, {}, API {}, density {}) → {} (no exchanges: `dwpipe audit --record DIR` records a replayable audit)",
        info.serial,
        info.model.as_deref().unwrap_or("unknown model"),
        info.software_version
            .as_deref()
            .unwrap_or("unknown software"),
        info.api_level
            .map_or_else(|| "?".to_owned(), |a| a.to_string()),
        info.virtual_pixel_ratio
            .map_or_else(|| "?".to_owned(), |v| v.to_string()),
        out.display()
    ));
    Ok(exit_code::OK)
}

#[derive(Debug, clap::Args)]
pub(super) struct IdentifyArgs {
    #[command(flatten)]
    pub(super) client: DeviceClient,
    /// The device's connect key (see `dwpipe devices`).
    #[arg(long = "device", value_name = "SERIAL", value_parser = parse_serial)]
    pub(super) serial: String,
    /// The folder to write the capture into (must not hold one already).
    #[arg(long, value_name = "DIR")]
    pub(super) out: PathBuf,
    /// The hdc server the device is on, HOST:PORT (default: the local one).
    #[arg(long, value_name = "HOST:PORT", value_parser = parse_server)]
    pub(super) server: Option<Server>,
}

#[derive(Debug, clap::Args)]
pub(super) struct RenamedCapture {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
    pub(super) rest: Vec<String>,
}
