//! `device:`: the device (or capture) a delivery measures on when none is given, and the lab's
//! preconditions on a device's state.

use std::path::{Path, PathBuf};

use crate::device::Server;
use crate::diagnostic::Diagnostic;
use crate::pack::Condition;
use crate::target::Target;

use super::doc::DeviceDoc;
use super::value::invalid;

/// Device defaults.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct DeviceDefaults {
    /// A device's connect key.
    pub(crate) serial: Option<String>,
    /// Its hdc server.
    pub(crate) server: Option<Server>,
    /// A capture to replay instead.
    pub(crate) replay: Option<PathBuf>,
    /// The lab's preconditions on a device's state before its runs (`device.require`),
    /// validated and written as a condition shows itself.
    pub(crate) require: Vec<String>,
}

impl DeviceDefaults {
    /// The target these defaults name: the capture, else the device, else none.
    pub(crate) fn target(&self) -> Option<Target> {
        if let Some(capture) = &self.replay {
            return Some(Target::Replay {
                capture: capture.clone(),
                realtime: false,
            });
        }
        Some(Target::Device {
            serial: self.serial.clone()?,
            server: self.server.clone(),
            record: None,
        })
    }
}

/// `device:`, validated; a capture to replay is relative to the config's folder (`base`).
pub(super) fn device(
    path: &Path,
    base: &Path,
    doc: Option<DeviceDoc>,
) -> Result<DeviceDefaults, Diagnostic> {
    Ok(match doc {
        None => DeviceDefaults::default(),
        Some(d) => DeviceDefaults {
            serial: d.serial,
            server: d
                .server
                .map(|text| {
                    Server::parse(&text).map_err(|e| invalid(path, format!("device.server: {e}")))
                })
                .transpose()?,
            replay: d.replay.map(|r| base.join(r)),
            require: d
                .require
                .iter()
                .map(|text| {
                    Condition::parse(text)
                        .map(|c| c.to_string())
                        .map_err(|e| invalid(path, format!("device.require: {e}")))
                })
                .collect::<Result<_, _>>()?,
        },
    })
}
