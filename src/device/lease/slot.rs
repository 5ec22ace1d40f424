//! A device is leased before it is driven: two jobs on one phone measure each other (one
//! shell call during another audit's traced launch loads the phone being measured), so every
//! call to a live device first holds its lease, the identity query of a preflight included.
//! The lease is taken at a device's first call and held until it is released (a delivery
//! lets its device go while the agent works) or the device is dropped; a job that finds it
//! held waits, saying who holds it, up to its bound, then ends with an environment error.
//! Where leases live (a lock file per device on the host, or PostgreSQL's advisory locks) is
//! a [`LeaseStore`]'s business; either ends with its holder's process, however it ends. A
//! lease that can be lost while held (a server's connection cut) says so when it is asked
//! ([`LeaseGuard::lost`]): the record of an audit that held it then says `lost`, and the
//! audit is incomplete.

use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::TakeError;
use crate::device::error::DeviceError;
use crate::process::Cancel;

/// How often a job waiting for a lease asks again.
const RETRY: Duration = Duration::from_millis(500);

/// Held until dropped: dropping it releases the lease.
pub(crate) trait LeaseGuard: Send {
    /// Whether the lease was lost while held, and when and why (`None`: still held). A lock
    /// file is held as long as it is open; a lock on a server is lost with its connection.
    fn lost(&self) -> Option<String> {
        None
    }

    /// A question to ask off the async runtime (it may wait a few seconds on a server):
    /// whether the lease is still held now — when and why it was lost, `None` while held.
    fn confirmation(&self) -> Confirmation {
        let lost = self.lost();
        Box::new(move || lost)
    }
}

/// Whether a lease is still held, asked when run (see [`LeaseGuard::confirmation`]).
pub(crate) type Confirmation = Box<dyn FnOnce() -> Option<String> + Send>;

/// Where leases are kept.
pub(crate) trait LeaseStore: Send + Sync {
    /// Takes the lease on `key` for `holder` if it is free (`None`: another holds it).
    fn try_take(&self, key: &str, holder: &str) -> Result<Option<Box<dyn LeaseGuard>>, TakeError>;
    /// Who holds the lease on `key`, as the holder said, when that can be read.
    fn holder(&self, key: &str) -> Option<String>;
    /// `host` (a lock file) or `postgres` (an advisory lock).
    fn kind(&self) -> &'static str;
}

/// A wait for a lease, as a reporter says it.
#[derive(Clone, Debug)]
pub(crate) struct LeaseWait {
    /// The device.
    pub(crate) serial: String,
    /// Who holds it, when known.
    pub(crate) holder: Option<String>,
    /// The bound of the wait.
    pub(crate) bound: Duration,
}

/// How devices are leased: the store, the bound of a wait, who this job is, and what is
/// told while waiting.
#[derive(Clone)]
pub(crate) struct Leasing {
    pub(crate) store: Arc<dyn LeaseStore>,
    pub(crate) wait: Duration,
    /// This job, as another job waiting for the device is told (`dwpipe audit, pid 42 on
    /// lab-2, since …`).
    pub(crate) holder: String,
    pub(crate) on_wait: Arc<dyn Fn(&LeaseWait) + Send + Sync>,
}

impl fmt::Debug for Leasing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Leasing")
            .field("store", &self.store.kind())
            .field("wait", &self.wait)
            .finish_non_exhaustive()
    }
}

/// What an audit records of its lease.
#[derive(schemars::JsonSchema, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct LeaseRecord {
    /// `host` or `postgres`.
    pub store: String,
    /// The key leased (the device's connect key, qualified by its host when it is a network
    /// address).
    pub key: String,
    /// How long the job waited for it, in seconds.
    pub waited_seconds: f64,
    /// When it was taken (UTC, ISO 8601).
    pub held_from: String,
    /// When the record was made, the device's work done (the lease ends after it).
    pub held_to: String,
    /// When and why the lease was lost while held (a server's connection cut): another job
    /// may have driven the device meanwhile. Absent while it held (optional, no format
    /// change).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lost: Option<String>,
}

/// A held lease.
struct Held {
    guard: Box<dyn LeaseGuard>,
    since: String,
    waited: Duration,
}

/// One device's lease: taken at its first call, shared by every handle of the device.
pub(crate) struct LeaseSlot {
    leasing: Leasing,
    key: String,
    serial: String,
    held: tokio::sync::Mutex<Option<Held>>,
    /// The last lease's facts, kept for the record after a release.
    last: Mutex<Option<(String, Duration)>>,
    /// When and why a lease of this device was lost while held.
    lost: Mutex<Option<String>>,
}

impl fmt::Debug for LeaseSlot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LeaseSlot")
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

impl LeaseSlot {
    /// The lease of the device `serial` (on the hdc server `host`, `None`: this host's).
    pub(crate) fn new(leasing: Leasing, serial: &str, host: Option<&str>) -> LeaseSlot {
        LeaseSlot {
            key: key(serial, host),
            serial: serial.to_owned(),
            leasing,
            held: tokio::sync::Mutex::new(None),
            last: Mutex::new(None),
            lost: Mutex::new(None),
        }
    }

    /// Holds the lease, waiting for it up to the bound when another job has it.
    pub(crate) async fn ensure(&self, cancel: &Cancel) -> Result<(), DeviceError> {
        let mut held = self.held.lock().await;
        if let Some(held) = held.as_ref() {
            // Lost while held: another job may be driving the device now; nothing more is
            // asked of it under this lease.
            if let Some(why) = held.guard.lost() {
                self.remember_lost(&why);
                return Err(DeviceError::LeaseLost {
                    serial: self.serial.clone(),
                    why,
                });
            }
            return Ok(());
        }
        let started = Instant::now();
        let mut told: Option<Option<String>> = None;
        loop {
            let store = Arc::clone(&self.leasing.store);
            let (key, holder) = (self.key.clone(), self.leasing.holder.clone());
            let taken = tokio::task::spawn_blocking(move || {
                let taken = store.try_take(&key, &holder);
                let by = match &taken {
                    Ok(None) => store.holder(&key),
                    _ => None,
                };
                (taken, by)
            })
            .await
            .map_err(|e| DeviceError::Lease {
                serial: self.serial.clone(),
                source: TakeError::Server {
                    at: self.leasing.store.kind().to_owned(),
                    why: e.to_string(),
                },
            })?;
            match taken {
                (Ok(Some(guard)), _) => {
                    let since = crate::time::now();
                    let waited = started.elapsed();
                    *self
                        .last
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner) =
                        Some((since.clone(), waited));
                    *held = Some(Held {
                        guard,
                        since,
                        waited,
                    });
                    return Ok(());
                }
                (Err(source), _) => {
                    return Err(DeviceError::Lease {
                        serial: self.serial.clone(),
                        source,
                    });
                }
                (Ok(None), by) => {
                    let waited = started.elapsed();
                    if waited >= self.leasing.wait {
                        return Err(DeviceError::Leased {
                            serial: self.serial.clone(),
                            holder: by.unwrap_or_else(|| "another job".to_owned()),
                            waited,
                        });
                    }
                    // Said once, and again when the holder changes.
                    if told.as_ref() != Some(&by) {
                        (self.leasing.on_wait)(&LeaseWait {
                            serial: self.serial.clone(),
                            holder: by.clone(),
                            bound: self.leasing.wait,
                        });
                        told = Some(by);
                    }
                    let pause = RETRY.min(self.leasing.wait - waited);
                    tokio::select! {
                        () = tokio::time::sleep(pause) => {}
                        () = cancel.cancelled() => return Err(DeviceError::Cancelled),
                    }
                }
            }
        }
    }

    /// Asks the store, now, whether the lease held is still held (before an audit's record
    /// is made); a lease found lost is recorded as lost.
    pub(crate) async fn confirm(&self) {
        let asked = self
            .held
            .lock()
            .await
            .as_ref()
            .map(|held| held.guard.confirmation());
        if let Some(ask) = asked
            && let Ok(Some(why)) = tokio::task::spawn_blocking(ask).await
        {
            self.remember_lost(&why);
        }
    }

    /// Keeps when and why the lease was lost, for the record (the first time said).
    fn remember_lost(&self, why: &str) {
        let mut lost = self
            .lost
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if lost.is_none() {
            *lost = Some(why.to_owned());
        }
    }

    /// Lets the device go (it is taken again at its next call). A lease lost while it was
    /// held stays said: the work done under it is what was at risk.
    pub(crate) fn release(&self) {
        if let Ok(mut held) = self.held.try_lock() {
            if let Some(lost) = held.as_ref().and_then(|h| h.guard.lost()) {
                self.remember_lost(&lost);
            }
            *held = None;
        }
    }

    /// The lease as an audit records it, `None` when none was taken; asked of the store
    /// while still held, so that a lease lost meanwhile is recorded as lost.
    pub(crate) fn record(&self) -> Option<LeaseRecord> {
        let now_held = self.held.try_lock().ok().and_then(|held| {
            held.as_ref()
                .map(|held| (held.since.clone(), held.waited, held.guard.lost()))
        });
        if let Some((_, _, Some(lost))) = &now_held {
            self.remember_lost(lost);
        }
        let (since, waited) = match now_held {
            Some((since, waited, _)) => (since, waited),
            None => self
                .last
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .clone()?,
        };
        Some(LeaseRecord {
            store: self.leasing.store.kind().to_owned(),
            key: self.key.clone(),
            waited_seconds: (waited.as_secs_f64() * 1000.0).round() / 1000.0,
            held_from: since,
            held_to: crate::time::now(),
            lost: self
                .lost
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .clone(),
        })
    }
}

/// The key a device is leased by: its connect key, which names one physical device wherever
/// it is plugged in (a USB device's serial number), except a network address
/// (`127.0.0.1:5555`, an emulator on every host), which is qualified by the host of its hdc
/// server.
fn key(serial: &str, host: Option<&str>) -> String {
    if !serial.contains(':') {
        return serial.to_owned();
    }
    let host = host.map_or_else(this_host, str::to_owned);
    format!("{serial}@{host}")
}

/// This host's name (as `uname -n` says it).
pub(crate) fn this_host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|name| name.trim().to_owned())
        .ok()
        .filter(|name| !name.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "localhost".to_owned())
}

#[cfg(test)]
mod tests;
