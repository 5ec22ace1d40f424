//! Device leases in the history's PostgreSQL server: an advisory lock per device, released
//! when its holder's connection ends (a crashed or killed holder's lease ends with it), which
//! every host of a lab sees — over the device's lock file on this host, also held, so that a
//! job on this host that was not given the lab's history still sees it.
//!
//! A lock on a server is only as held as its connection: a connection cut mid-audit (a
//! network partition, a server restart, an administrator's `pg_terminate_backend`) frees the
//! device for another job at once, and the holder would not know. So the holding connection
//! is watched: TCP keepalives find a dead peer, a thread asks the server every second, and
//! the audit asks once more before its record is made. A lease found lost stops the audit at
//! its next device call and is recorded as lost.

use std::sync::mpsc::{self, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use super::{Connection, Server, Store};
use crate::device::lease::{Confirmation, HostLeases, LeaseGuard, LeaseStore, TakeError};
use crate::target::HdcClient;

/// `client`, its leases kept where `history` is when that is PostgreSQL (where every host of a
/// lab meets; the host's lock files held too), else as they were (on this host).
pub(crate) fn leases_beside(mut client: HdcClient, history: Option<&Store>) -> HdcClient {
    if let (Some(leasing), Some(Store::Postgres(server))) = (&mut client.leasing, history) {
        leasing.store = Arc::new(PgLeases {
            server: (**server).clone(),
            host: HostLeases {
                folder: crate::device::lease::host_folder(),
            },
        });
    }
    client
}

/// How often the holding connection is asked whether it still holds.
const PING: Duration = Duration::from_secs(1);
/// How long one ask may take before the connection is taken for lost.
const PING_LIMIT: Duration = Duration::from_secs(3);

/// Advisory locks in the history's PostgreSQL database, each over the device's lock file on
/// this host: a job here that leases on the host alone (given no history, or another) and one
/// that leases in PostgreSQL see each other.
pub(crate) struct PgLeases {
    pub(crate) server: Server,
    pub(crate) host: HostLeases,
}

/// A held advisory lock: the host's lock file, and the connection whose end releases the
/// lock, kept by a watcher thread that asks it every [`PING`] whether it is still there.
struct PgLock {
    _host: Box<dyn LeaseGuard>,
    /// When and why the connection was found lost.
    lost: Arc<Mutex<Option<String>>>,
    /// Asks the watcher to check now (and answer on the sender given); dropped to stop it.
    ask: Option<SyncSender<SyncSender<Option<String>>>>,
    watcher: Option<JoinHandle<()>>,
    /// Said by the watcher when it has ended (its connection closed).
    ended: Option<mpsc::Receiver<()>>,
    server: String,
}

impl LeaseGuard for PgLock {
    fn lost(&self) -> Option<String> {
        self.lost
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn confirmation(&self) -> Confirmation {
        let (ask, lost, server) = (
            self.ask.clone(),
            Arc::clone(&self.lost),
            self.server.clone(),
        );
        Box::new(move || {
            let (answer, answered) = mpsc::sync_channel(1);
            let asked = ask.is_some_and(|ask| ask.send(answer).is_ok());
            if asked && let Ok(found) = answered.recv_timeout(PING_LIMIT + PING) {
                return found;
            }
            let known = lost.lock().unwrap_or_else(PoisonError::into_inner).clone();
            known.or_else(|| {
                Some(format!(
                    "at {}: the connection holding the lease in {server} did not answer within {}s",
                    crate::time::now(),
                    (PING_LIMIT + PING).as_secs()
                ))
            })
        })
    }
}

impl Drop for PgLock {
    fn drop(&mut self) {
        // The watcher wakes at once, closes the connection (the lock ends with it) and is
        // waited for: a lease let go is free when this returns — within a bound: a server
        // that stopped answering (frozen, partitioned) is not waited on; its connection ends
        // with this process, or when its keepalives give up.
        self.ask = None;
        let ended = self
            .ended
            .take()
            .is_some_and(|ended| ended.recv_timeout(PING_LIMIT + PING).is_ok());
        if let Some(watcher) = self.watcher.take()
            && ended
        {
            let _ = watcher.join();
        }
    }
}

/// Closes a connection off the caller's thread, never waiting on it: closing says goodbye to
/// the server, which a server that stopped answering never acknowledges.
fn close_unwaited(client: Connection) {
    let closing = std::thread::Builder::new()
        .name("dwpipe-lease-close".to_owned())
        .spawn(move || drop(client));
    if let Err(unspawned) = closing {
        // No thread for it: leaked rather than waited on (the process's end closes it).
        drop(unspawned);
    }
}

/// Watches `client` until asked to stop: every [`PING`] (and whenever asked) the server is
/// asked whether the connection is there; the first time it is not, `lost` says when and why
/// and the watch ends.
fn watch(
    mut client: Connection,
    server: &str,
    lost: &Mutex<Option<String>>,
    asks: &mpsc::Receiver<SyncSender<Option<String>>>,
) {
    loop {
        let asker = match asks.recv_timeout(PING) {
            Ok(asker) => Some(asker),
            Err(RecvTimeoutError::Timeout) => None,
            // Let go: closed here (the lock ends with the connection), its close bounded by
            // the lock's drop.
            Err(RecvTimeoutError::Disconnected) => return,
        };
        let found = client.is_valid(PING_LIMIT).err().map(|e| {
            format!(
                "at {}: the connection holding the lease in {server} was lost ({})",
                crate::time::now(),
                crate::diagnostic::chain(&e)
            )
        });
        if let Some(why) = &found {
            *lost.lock().unwrap_or_else(PoisonError::into_inner) = Some(why.clone());
        }
        if let Some(asker) = asker {
            let _ = asker.send(found.clone());
        }
        if found.is_some() {
            // Answered for as long as anyone asks; the connection closed without waiting on
            // a server that may not answer any more.
            close_unwaited(client);
            while let Ok(asker) = asks.recv() {
                let _ = asker.send(found.clone());
            }
            return;
        }
    }
}

/// The advisory lock's key for a lease: 63 bits of the key's SHA-256 (non-negative, so that
/// `pg_locks` shows it in its two halves unchanged).
fn lock_key(key: &str) -> i64 {
    let digest = crate::hash::sha256_hex(format!("dwpipe-lease:{key}").as_bytes());
    i64::from_str_radix(&digest[..16], 16)
        .unwrap_or_else(|_| u64::from_str_radix(&digest[..16], 16).map_or(0, |v| (v >> 1) as i64))
        & i64::MAX
}

impl LeaseStore for PgLeases {
    fn try_take(&self, key: &str, holder: &str) -> Result<Option<Box<dyn LeaseGuard>>, TakeError> {
        let refused = |why: String| TakeError::Server {
            at: self.server.to_string(),
            why,
        };
        // The host's lock file first, always in this order (and let go when the advisory lock
        // is not free): two jobs never each hold one half.
        let Some(host) = self.host.try_take(key, holder)? else {
            return Ok(None);
        };
        // The holder rides in the connection's name, which ends with it: nothing to clean up.
        let mut client = self
            .server
            .connect_as(holder)
            .map_err(|e| refused(crate::diagnostic::chain(&e)))?;
        let taken: bool = client
            .query_one("SELECT pg_try_advisory_lock($1)", &[&lock_key(key)])
            .and_then(|row| row.try_get(0))
            .map_err(|e| refused(crate::diagnostic::chain(&e)))?;
        if !taken {
            return Ok(None);
        }
        // The holding connection sits idle while the audit runs: a server's
        // `idle_session_timeout` (PostgreSQL 14 and later) would end it, and the lease with it,
        // mid-audit.
        client
            .batch_execute(
                "DO $$ BEGIN IF current_setting('server_version_num')::int >= 140000 THEN \
                 PERFORM set_config('idle_session_timeout', '0', false); END IF; END $$",
            )
            .map_err(|e| refused(crate::diagnostic::chain(&e)))?;
        let lost = Arc::new(Mutex::new(None));
        let (ask, asks) = mpsc::sync_channel(1);
        let (end, ended) = mpsc::sync_channel(1);
        let server = self.server.to_string();
        let watcher = {
            let (lost, server) = (Arc::clone(&lost), server.clone());
            let client = Connection::new(client);
            std::thread::Builder::new()
                .name("dwpipe-lease-watch".to_owned())
                .spawn(move || {
                    watch(client, &server, &lost, &asks);
                    let _ = end.send(());
                })
                .map_err(|e| refused(format!("no thread to watch the lease on: {e}")))?
        };
        Ok(Some(Box::new(PgLock {
            _host: host,
            lost,
            ask: Some(ask),
            watcher: Some(watcher),
            ended: Some(ended),
            server,
        })))
    }

    fn holder(&self, key: &str) -> Option<String> {
        self.server_holder(key).or_else(|| self.host.holder(key))
    }

    fn kind(&self) -> &'static str {
        "postgres"
    }
}

impl PgLeases {
    /// Who holds the advisory lock on `key`, read from the server: in this database (an
    /// advisory lock is one database's; another history on the server may lease the same key).
    fn server_holder(&self, key: &str) -> Option<String> {
        let mut client = self
            .server
            .connect_as("dwpipe (asking who holds a lease)")
            .ok()?;
        let row = client
            .query_opt(
                "SELECT a.application_name, to_char(a.backend_start AT TIME ZONE 'UTC', \
                 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') FROM pg_locks l \
                 JOIN pg_stat_activity a ON a.pid = l.pid \
                 WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1 \
                 AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()) \
                 AND ((l.classid::bigint << 32) | l.objid::bigint) = $1",
                &[&lock_key(key)],
            )
            .ok()??;
        let (name, since): (String, String) = (row.try_get(0).ok()?, row.try_get(1).ok()?);
        Some(format!("{name}, since {since}"))
    }
}

#[cfg(test)]
mod tests;
