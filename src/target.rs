//! Where a run measures: one live device (recorded as it goes, when asked), a recorded
//! capture, or a lab of devices on one or more hdc servers. A target is chosen once, from the
//! command line or `dwpipe.yaml`, and opened here: the one device, or the lab's roster (which
//! devices are there, which asked-for ones are not, which servers did not answer).

use std::path::PathBuf;

use crate::device::lease::Leasing;
use crate::device::{
    AnyDevice, CallTimeouts, DeviceError, Hdc, HdcDevice, RecordingDevice, ReplayDevice, Server,
};
use crate::process::{Cancel, join_all};

/// Which devices a lab audits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Pick {
    /// Every connected device on the servers.
    All,
    /// These connect keys, wherever they are.
    Serials(Vec<String>),
}

/// Where a run measures.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Target {
    /// A live device behind hdc, recorded into a capture when `record` is given.
    Device {
        /// Its connect key.
        serial: String,
        /// Its hdc server (`None`: the local one).
        server: Option<Server>,
        /// A capture folder to record it into.
        record: Option<PathBuf>,
    },
    /// A recorded capture.
    Replay {
        /// The capture folder.
        capture: PathBuf,
        /// Whether the replay waits the recorded delays.
        realtime: bool,
    },
    /// Many devices, audited in parallel.
    Lab {
        /// Which devices.
        pick: Pick,
        /// On which servers (none: the local one).
        servers: Vec<Server>,
        /// At most this many at once.
        jobs: usize,
        /// How many of its devices must pass for the lab to pass (`--need`): without it, every
        /// device the servers list must, and one that cannot be audited leaves it incomplete.
        need: Option<u32>,
    },
}

/// The hdc client live devices are driven through.
#[derive(Clone, Debug)]
pub(crate) struct HdcClient {
    /// The binary (`hdc` on PATH by default).
    pub(crate) binary: PathBuf,
    /// Host-side limits of each call.
    pub(crate) timeouts: CallTimeouts,
    /// How its devices are leased (`None` for the commands that only list devices).
    pub(crate) leasing: Option<Leasing>,
}

impl HdcClient {
    /// The client of one server.
    pub(crate) fn server(&self, server: Option<Server>, cancel: &Cancel) -> Hdc {
        Hdc::new(self.binary.clone(), server, self.timeouts, cancel.clone())
            .leased(self.leasing.clone())
    }

    /// The same client, leasing nothing: for the commands that only list devices and ask
    /// who they are (`devices`, `doctor`).
    pub(crate) fn unleased(self) -> HdcClient {
        HdcClient {
            leasing: None,
            ..self
        }
    }
}

/// A device of a lab.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Member {
    /// Its connect key.
    pub(crate) serial: String,
    /// The hdc server it is on (`None`: the local one).
    pub(crate) server: Option<Server>,
    /// Its folder under the lab's output (see [`settle_folders`]).
    folder: String,
}

impl Member {
    /// A member whose folder is its serial, sanitized (until [`settle_folders`] says
    /// otherwise).
    pub(crate) fn new(serial: String, server: Option<Server>) -> Member {
        let folder = sanitized(&serial);
        Member {
            serial,
            server,
            folder,
        }
    }

    /// Its folder under the lab's output: the serial with anything but `[A-Za-z0-9._-]` as `_`
    /// (`192.168.1.5:5555` → `192.168.1.5_5555`), or `<server>_<serial>` when the same key is
    /// on several servers (emulators at `127.0.0.1:5555` on every host).
    pub(crate) fn folder(&self) -> String {
        self.folder.clone()
    }

    /// Its server as reports name it: `local` or `HOST:PORT`.
    pub(crate) fn server_name(&self) -> String {
        self.server
            .as_ref()
            .map_or_else(|| "local".to_owned(), ToString::to_string)
    }
}

/// A name with anything but `[A-Za-z0-9._-]` as `_`.
fn sanitized(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Gives every member a folder of its own: a connect key that two servers list (or two keys
/// that sanitize alike) is qualified by its server, and what still collides after that is
/// numbered in roster order.
pub(crate) fn settle_folders<'m>(members: impl IntoIterator<Item = &'m mut Member>) {
    let mut members: Vec<&mut Member> = members.into_iter().collect();
    let count = |members: &[&mut Member], folder: &str| {
        members.iter().filter(|m| m.folder == folder).count()
    };
    let shared: Vec<bool> = members
        .iter()
        .map(|m| count(&members, &m.folder) > 1)
        .collect();
    for (member, shared) in members.iter_mut().zip(shared) {
        if shared {
            member.folder = sanitized(&format!("{}_{}", member.server_name(), member.serial));
        }
    }
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for member in &mut members {
        let n = seen.entry(member.folder.clone()).or_insert(0);
        *n += 1;
        if *n > 1 {
            member.folder = format!("{}-{n}", member.folder);
        }
    }
}

/// Why a device asked for is not in the lab.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Absence {
    /// A server lists it, but not as connected.
    #[error("the hdc server lists the device as {0}: it cannot be driven ({fix})", fix = not_connected_fix(.0))]
    NotConnected(String),
    /// No server lists it.
    #[error("the device is on no hdc server")]
    Unlisted,
    /// Its serial, as a server listed it, cannot be addressed safely.
    #[error("its serial is refused: {0}")]
    Unaddressable(String),
}

/// What to do about a device the server lists as `status`, in hdc's words for it.
fn not_connected_fix(status: &str) -> &'static str {
    match status {
        "Unauthorized" => {
            "accept this host's key on the phone (`hdc kill` first if it was asked before)"
        }
        "Offline" => "reconnect its cable or `hdc tconn` it again",
        _ => "reconnect it",
    }
}

/// A lab as found on its servers.
#[derive(Debug)]
pub(crate) struct Roster {
    /// The hdc client its devices are driven through.
    pub(crate) hdc: HdcClient,
    /// The connected devices to audit, in the servers' order.
    pub(crate) members: Vec<Member>,
    /// Devices asked for by serial that cannot be audited, and why.
    pub(crate) absent: Vec<(Member, Absence)>,
    /// Servers that did not answer (the others were enough to go on).
    pub(crate) unreachable: Vec<(String, DeviceError)>,
    /// At most this many devices at once.
    pub(crate) jobs: usize,
    /// The jobs asked for, when the open-file limit allows fewer (and that limit).
    pub(crate) capped: Option<Capped>,
}

/// Fewer devices at once than asked for: the host's open-file limit allows no more.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Capped {
    /// `--jobs` as given.
    pub(crate) asked: usize,
    /// What runs at once.
    pub(crate) allowed: usize,
    /// The open-file limit.
    pub(crate) open_files: u64,
}

impl Roster {
    /// A member's device, on its server.
    pub(crate) fn device(
        &self,
        member: &Member,
        cancel: &Cancel,
    ) -> Result<HdcDevice, DeviceError> {
        Ok(self
            .hdc
            .server(member.server.clone(), cancel)
            .device(&member.serial)?)
    }
}

/// A target, opened. (One of them lives for the whole run: its size does not matter.)
#[derive(Debug)]
#[allow(
    clippy::large_enum_variant,
    reason = "one per run, never moved in a loop"
)]
pub(crate) enum Opened {
    /// One device (or a capture).
    One(AnyDevice),
    /// A lab.
    Lab(Roster),
}

impl Opened {
    /// Lets the one device's lease go until its next call (a lab's seats hold their own, for
    /// as long as each seat runs).
    pub(crate) fn release_leases(&self) {
        if let Opened::One(device) = self {
            crate::device::Device::release_lease(device);
        }
    }
}

impl Target {
    /// Whether this is a lab of devices.
    pub(crate) fn is_lab(&self) -> bool {
        matches!(self, Target::Lab { .. })
    }

    /// How many devices of a lab must pass for it to pass (`--need`).
    pub(crate) fn need(&self) -> Option<u32> {
        match self {
            Target::Lab { need, .. } => *need,
            _ => None,
        }
    }

    /// Opens the device, or lists the lab's servers and picks its members. Only the hdc
    /// client missing, a signal, or no server answering at all is an error.
    pub(crate) async fn open(
        &self,
        hdc: &HdcClient,
        cancel: &Cancel,
    ) -> Result<Opened, DeviceError> {
        Ok(match self {
            Target::Replay { capture, realtime } => Opened::One(AnyDevice::Replay(
                ReplayDevice::open(capture)?
                    .cancellable(cancel.clone())
                    .realtime(*realtime),
            )),
            Target::Device {
                serial,
                server,
                record,
            } => {
                let live = hdc.server(server.clone(), cancel).device(serial)?;
                Opened::One(match record {
                    None => AnyDevice::Hdc(live),
                    Some(capture) => AnyDevice::Recording(RecordingDevice::new(live, capture)?),
                })
            }
            Target::Lab {
                pick,
                servers,
                jobs,
                ..
            } => Opened::Lab(roster(hdc, pick, servers, *jobs, cancel).await?),
        })
    }
}

/// Lists every server and picks the members; a device asked for that no server has connected
/// is absent with why, so the matrix still shows it.
async fn roster(
    hdc: &HdcClient,
    pick: &Pick,
    servers: &[Server],
    jobs: usize,
    cancel: &Cancel,
) -> Result<Roster, DeviceError> {
    let servers: Vec<Option<Server>> = if servers.is_empty() {
        vec![None]
    } else {
        servers.iter().cloned().map(Some).collect()
    };
    let mut listed = Vec::new();
    let mut unreachable = Vec::new();
    // Every server at once: a lab of eight hosts waits for the slowest, not for their sum.
    let clients: Vec<Hdc> = servers
        .iter()
        .map(|server| hdc.server(server.clone(), cancel))
        .collect();
    let lists = join_all(clients.iter().map(Hdc::list_targets).collect()).await;
    for ((server, client), list) in servers.into_iter().zip(&clients).zip(lists) {
        match list {
            Ok(targets) => listed.extend(targets.into_iter().map(|t| (server.clone(), t))),
            Err(e @ (DeviceError::HdcNotFound { .. } | DeviceError::Cancelled)) => return Err(e),
            Err(e) => unreachable.push((client.server_name(), e)),
        }
    }
    if listed.is_empty()
        && let Some((_, error)) = unreachable.pop()
    {
        return Err(error);
    }
    let mut members = Vec::new();
    let mut absent = Vec::new();
    match pick {
        Pick::All => {
            // Every device a server lists is the lab's: one that cannot be driven (offline,
            // unauthorized) is in the matrix with hdc's word for it, never left out.
            for (server, target) in listed {
                let connected = target.is_connected();
                let status = target.status.clone();
                let member = Member::new(target.serial, server);
                // A serial that cannot be addressed safely never names a folder or a command.
                match crate::shell::ShellValue::serial(&member.serial) {
                    Err(unsafe_serial) => {
                        absent.push((member, Absence::Unaddressable(unsafe_serial.to_string())));
                    }
                    Ok(_) if connected => members.push(member),
                    Ok(_) => absent.push((member, Absence::NotConnected(status))),
                }
            }
        }
        Pick::Serials(serials) => {
            for serial in serials {
                match listed.iter().find(|(_, t)| &t.serial == serial) {
                    Some((server, t)) if t.is_connected() => {
                        members.push(Member::new(serial.clone(), server.clone()));
                    }
                    other => absent.push((
                        Member::new(serial.clone(), other.and_then(|(s, _)| s.clone())),
                        match other {
                            Some((_, t)) => Absence::NotConnected(t.status.clone()),
                            None => Absence::Unlisted,
                        },
                    )),
                }
            }
        }
    }
    settle_folders(members.iter_mut().chain(absent.iter_mut().map(|(m, _)| m)));
    // As many at once as the open-file limit allows (raised to the hard limit at start): a
    // device past it would fail with "Too many open files" instead of waiting its turn.
    let wanted = jobs.min(members.len()).max(1);
    let capped = crate::process::open_files()
        .map(|open_files| (open_files, crate::process::jobs_within(open_files)))
        .filter(|(_, allowed)| *allowed < wanted)
        .map(|(open_files, allowed)| Capped {
            asked: jobs,
            allowed,
            open_files,
        });
    Ok(Roster {
        hdc: hdc.clone(),
        members,
        absent,
        unreachable,
        jobs: capped.map_or(jobs, |c| c.allowed),
        capped,
    })
}

#[cfg(test)]
mod tests;
