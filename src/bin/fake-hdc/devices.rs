//! The devices `DWPIPE_FAKE_HDC_CAPTURES` names, loaded when a call needs them, and the
//! listing `hdc list targets` prints.

use super::State;
use super::apps::Apps;
use super::screens::Screens;
use dwpipe::device::{Capture, DeviceInfo};
use std::path::{Path, PathBuf};

/// A fake device folder's `device.yaml` and its document `name` (`screens.yaml`,
/// `apps.yaml`), when the folder has that document; why they cannot be read, else.
pub(super) fn fake_device<T: serde::de::DeserializeOwned>(
    root: &Path,
    name: &str,
) -> Option<Result<(DeviceInfo, T), String>> {
    if !root.join(name).is_file() {
        return None;
    }
    let read = |name: &str| -> Result<String, String> {
        std::fs::read_to_string(root.join(name)).map_err(|e| format!("{name}: {e}"))
    };
    Some((|| {
        let info = serde_saphyr::from_str(&read("device.yaml")?)
            .map_err(|e| format!("device.yaml: {e}"))?;
        let doc = serde_saphyr::from_str(&read(name)?).map_err(|e| format!("{name}: {e}"))?;
        Ok((info, doc))
    })())
}

/// A device named in `DWPIPE_FAKE_HDC_CAPTURES`: where it is served, and the connect key it
/// answers to when the entry says so. Its identity (`device.yaml`) is read when a listing or
/// a call needs it, its capture only when a call addresses it: in a lab of a hundred captures
/// a call costs one capture's parse, not a hundred.
pub(super) struct Named {
    pub(crate) server: Option<String>,
    pub(crate) folder: PathBuf,
    pub(crate) serial: Option<String>,
}

/// One served device: a recorded transcript, or a screens app.
pub(super) struct Served {
    server: Option<String>,
    pub(super) device: Kind,
    /// Its folder: a `state.txt` there is what it says of its state (else a phone at rest).
    pub(super) folder: PathBuf,
}

pub(super) enum Kind {
    Transcript(Capture),
    Screens(Screens),
    Apps(Apps),
}

/// Where a device stands between invocations: one device per server and serial (the same
/// connect key on two servers, as emulators are, is two devices).
pub(super) fn state_of(server: Option<&String>, serial: &str) -> State {
    match server {
        Some(server) => State::of(&format!("{server}_{serial}")),
        None => State::of(serial),
    }
}

impl Named {
    /// Who the device is, under the connect key it answers to.
    fn info(&self) -> Result<DeviceInfo, String> {
        let path = self.folder.join("device.yaml");
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut info: DeviceInfo =
            serde_saphyr::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        if let Some(serial) = &self.serial {
            serial.clone_into(&mut info.serial);
        }
        Ok(info)
    }

    /// The whole device: its transcript, screens or builds, under the connect key it answers to.
    pub(crate) fn load(&self) -> Result<Served, String> {
        let folder = self.folder.as_path();
        let device = match (Screens::load(folder), Apps::load(folder)) {
            (Some(screens), _) => screens.map(Kind::Screens),
            (None, Some(apps)) => apps.map(Kind::Apps),
            (None, None) => Capture::load(folder)
                .map(Kind::Transcript)
                .map_err(|e| e.to_string()),
        }?;
        let mut served = Served {
            server: self.server.clone(),
            device,
            folder: self.folder.clone(),
        };
        if let Some(serial) = &self.serial {
            serial.clone_into(&mut served.info_mut().serial);
        }
        Ok(served)
    }
}

impl Served {
    pub(crate) fn state(&self) -> State {
        state_of(self.server.as_ref(), &self.info().serial)
    }

    pub(crate) fn info(&self) -> &DeviceInfo {
        match &self.device {
            Kind::Transcript(capture) => &capture.info,
            Kind::Screens(screens) => &screens.info,
            Kind::Apps(apps) => &apps.info,
        }
    }

    fn info_mut(&mut self) -> &mut DeviceInfo {
        match &mut self.device {
            Kind::Transcript(capture) => &mut capture.info,
            Kind::Screens(screens) => &mut screens.info,
            Kind::Apps(apps) => &mut apps.info,
        }
    }
}

/// `[-s HOST:PORT] [-p] [-t SERIAL] command…`
pub(super) fn split_globals(args: &[String]) -> (Option<String>, Option<&str>, Vec<String>) {
    let (mut server, mut serial, mut i) = (None, None, 0);
    while i < args.len() {
        match args[i].as_str() {
            "-s" => {
                server = args.get(i + 1).cloned();
                i += 2;
            }
            "-t" => {
                serial = args.get(i + 1).map(String::as_str);
                i += 2;
            }
            "-p" => i += 1,
            _ => break,
        }
    }
    (server, serial, args[i.min(args.len())..].to_vec())
}

pub(super) fn named_devices() -> Vec<Named> {
    let list = std::env::var("DWPIPE_FAKE_HDC_CAPTURES").unwrap_or_default();
    list.split(',')
        .filter(|entry| !entry.trim().is_empty())
        .map(|entry| {
            let (server, folder) = match entry.split_once('=') {
                Some((server, folder)) => (Some(server.to_owned()), folder),
                None => (None, entry),
            };
            let (folder, serial) = match folder.rsplit_once('@') {
                Some((folder, serial)) => (folder, Some(serial.to_owned())),
                None => (folder, None),
            };
            Named {
                server,
                folder: PathBuf::from(folder),
                serial,
            }
        })
        .collect()
}

/// The device a call's connect key names: those named by their entry first (no file read),
/// then the others by their identity.
pub(super) fn addressed<'a>(here: &[&'a Named], key: &str) -> Option<&'a Named> {
    here.iter()
        .find(|n| n.serial.as_deref() == Some(key))
        .or_else(|| {
            here.iter()
                .find(|n| n.serial.is_none() && n.info().is_ok_and(|info| info.serial == key))
        })
        .copied()
}

/// A broken capture, reported the way hdc reports trouble: on stdout.
pub(super) fn fail(error: &str) -> String {
    format!("[Fail]fake-hdc: {error}\r\n")
}

pub(super) fn list_targets(devices: &[&Named]) -> String {
    if devices.is_empty() {
        return "[Empty]\r\thdc\n".to_owned();
    }
    devices
        .iter()
        .map(|d| {
            let info = match d.info() {
                Ok(info) => info,
                Err(e) => return fail(&e),
            };
            let serial = &info.serial;
            let status = if state_of(d.server.as_ref(), serial).vanished() {
                "Offline"
            } else {
                "Connected"
            };
            let transport = if serial.contains(':') { "TCP" } else { "USB" };
            format!("{serial}\t\t{transport}\t{status}\tlocalhost\thdc\n")
        })
        .collect()
}
