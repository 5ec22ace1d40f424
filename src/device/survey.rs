//! `dwpipe devices`: every device on every hdc server, listed on all servers at once, then
//! identified all at once (model, software, API level, density). Unreachable servers and
//! offline devices are reported, not fatal.

use serde::{Deserialize, Serialize};
use tokio::task::JoinSet;

use crate::diagnostic::chain;

use super::Device;
use super::error::DeviceError;
use super::hdc::Hdc;
use super::info::DeviceInfo;
use super::reply::Target;

/// `dwpipe devices --json`: every server and its devices.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct DevicesReport {
    /// Schema version.
    pub format_version: u32,
    /// Every server asked, in order.
    pub servers: Vec<ServerReport>,
}

/// One server.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct ServerReport {
    /// `local` or `HOST:PORT`.
    pub server: String,
    /// Whether it answered.
    pub reachable: bool,
    /// Why it did not.
    pub error: Option<String>,
    /// It answered, but not as an hdc server (what the table says instead of unreachable).
    #[serde(skip)]
    pub not_hdc: bool,
    /// Its devices, in its order.
    pub devices: Vec<DeviceReport>,
}

/// One device of a server, identified when connected.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct DeviceReport {
    /// Its connect key.
    pub serial: String,
    /// `USB`, `TCP`, …
    pub transport: String,
    /// `Connected`, `Offline`, …
    pub status: String,
    /// Marketing name.
    pub name: Option<String>,
    /// Model.
    pub model: Option<String>,
    /// Software version.
    pub software_version: Option<String>,
    /// API level.
    pub api_level: Option<u32>,
    /// px per vp.
    pub virtual_pixel_ratio: Option<f64>,
    /// Why it could not be identified.
    pub error: Option<String>,
}

/// Lists every server, then identifies every connected device, all concurrently.
pub(crate) async fn survey(hdcs: Vec<Hdc>) -> Result<DevicesReport, DeviceError> {
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
            not_hdc: false,
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
            Err(error @ DeviceError::HdcNotFound { .. }) => return Err(error),
            Err(DeviceError::Cancelled) => return Err(DeviceError::Cancelled),
            Err(error) => {
                reports[index].not_hdc = matches!(error, DeviceError::ServerBroken { .. });
                reports[index].error = Some(chain(&error));
            }
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
            Some(Err(DeviceError::Cancelled)) => return Err(DeviceError::Cancelled),
            Some(Err(e)) => (DeviceInfo::default(), Some(chain(&e))),
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
    Ok(DevicesReport {
        format_version: crate::format::DEVICES,
        servers: reports,
    })
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
