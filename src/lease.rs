//! Where device leases live (see `device::lease` for what a lease is): a lock file per device
//! on this host (`flock`: the kernel releases it when its holder's process ends, however it
//! ends), or, when the history is in PostgreSQL, an advisory lock there (released when its
//! holder's connection ends: a crashed or killed holder's lease ends with it), which every
//! host of a lab sees — over the host's lock file, also held, so that a job on the host that
//! was not given the lab's history still sees it. A lock file cannot see a job on another host
//! driving the same phone through a remote hdc server; a lab of several hosts keeps its
//! history, and so its leases, in PostgreSQL.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Write};
use std::path::PathBuf;

use crate::device::lease::{LeaseGuard, LeaseStore};
use crate::history::{Connection, Server};

/// The folder of this host's lock files: `$DWPIPE_LEASES`, else `dwpipe-leases` in the
/// system's temporary folder (shared by every job on the host).
pub(crate) fn host_folder() -> PathBuf {
    std::env::var_os("DWPIPE_LEASES")
        .map_or_else(|| std::env::temp_dir().join("dwpipe-leases"), PathBuf::from)
}

/// Lock files on this host.
pub(crate) struct HostLeases {
    pub(crate) folder: PathBuf,
}

/// A held lock file: closing it releases the lock.
struct LockFile(#[allow(dead_code, reason = "held for its lock, released on drop")] File);

impl LeaseGuard for LockFile {}

impl HostLeases {
    fn file(&self, key: &str) -> PathBuf {
        let name: String = key
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        // Two keys that read alike once sanitized (`a:1`, `a_1`) keep files of their own.
        let digest = &crate::hash::sha256_hex(key.as_bytes())[..8];
        self.folder.join(format!("{name}-{digest}.lock"))
    }
}

impl LeaseStore for HostLeases {
    fn try_take(&self, key: &str, holder: &str) -> Result<Option<Box<dyn LeaseGuard>>, String> {
        let cannot = |e: std::io::Error| format!("`{}`: {e}", self.folder.display());
        use std::os::unix::fs::PermissionsExt;
        if !self.folder.is_dir() {
            std::fs::create_dir_all(&self.folder).map_err(cannot)?;
            // Every user's jobs on the host meet here, as in /tmp.
            let _ = std::fs::set_permissions(&self.folder, std::fs::Permissions::from_mode(0o1777));
        }
        let path = self.file(key);
        use std::os::unix::fs::OpenOptionsExt;
        let opened = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o666)
            .open(&path);
        let mut file = match opened {
            Ok(file) => {
                // Another user's job on the host may lease the device next (past the umask).
                let _ = file.set_permissions(std::fs::Permissions::from_mode(0o666));
                file
            }
            // Another user's file: a lock needs no more than reading it.
            Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
                File::open(&path).map_err(cannot)?
            }
            Err(e) => return Err(cannot(e)),
        };
        match file.try_lock() {
            Ok(()) => {
                // Who holds it, for whoever waits: written once held (never removed: a file
                // removed while another opens it would let two jobs lock two files).
                let said = format!("{holder}, since {}\n", crate::time::now());
                let _ = file
                    .set_len(0)
                    .and_then(|()| file.write_all(said.as_bytes()));
                Ok(Some(Box::new(LockFile(file))))
            }
            Err(TryLockError::WouldBlock) => Ok(None),
            Err(TryLockError::Error(e)) => Err(cannot(e)),
        }
    }

    fn holder(&self, key: &str) -> Option<String> {
        let mut said = String::new();
        File::open(self.file(key))
            .ok()?
            .take(512)
            .read_to_string(&mut said)
            .ok()?;
        Some(crate::text::one_line(said.trim(), crate::text::LINE).into_owned())
            .filter(|s| !s.is_empty())
    }

    fn kind(&self) -> &'static str {
        "host"
    }
}

/// Advisory locks in the history's PostgreSQL database, each over the device's lock file on
/// this host: a job here that leases on the host alone (given no history, or another) and one
/// that leases in PostgreSQL see each other.
pub(crate) struct PgLeases {
    pub(crate) server: Server,
    pub(crate) host: HostLeases,
}

/// A held advisory lock (its connection, whose end releases it) and the host's lock file.
struct PgLock(
    #[allow(dead_code, reason = "held for its lock, released on drop")] Box<dyn LeaseGuard>,
    #[allow(dead_code, reason = "held for its lock, released on drop")] Connection,
);

impl LeaseGuard for PgLock {}

/// The advisory lock's key for a lease: 63 bits of the key's SHA-256 (non-negative, so that
/// `pg_locks` shows it in its two halves unchanged).
fn lock_key(key: &str) -> i64 {
    let digest = crate::hash::sha256_hex(format!("dwpipe-lease:{key}").as_bytes());
    i64::from_str_radix(&digest[..16], 16)
        .unwrap_or_else(|_| u64::from_str_radix(&digest[..16], 16).map_or(0, |v| (v >> 1) as i64))
        & i64::MAX
}

impl LeaseStore for PgLeases {
    fn try_take(&self, key: &str, holder: &str) -> Result<Option<Box<dyn LeaseGuard>>, String> {
        // The host's lock file first, always in this order (and let go when the advisory lock
        // is not free): two jobs never each hold one half.
        let Some(host) = self.host.try_take(key, holder)? else {
            return Ok(None);
        };
        // The holder rides in the connection's name, which ends with it: nothing to clean up.
        let mut client = self
            .server
            .connect_as(holder)
            .map_err(|e| crate::diagnostic::chain(&e))?;
        let taken: bool = client
            .query_one("SELECT pg_try_advisory_lock($1)", &[&lock_key(key)])
            .and_then(|row| row.try_get(0))
            .map_err(|e| crate::diagnostic::chain(&e))?;
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
            .map_err(|e| crate::diagnostic::chain(&e))?;
        Ok(Some(Box::new(PgLock(host, Connection::new(client)))))
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
mod tests {
    use super::*;

    #[test]
    fn a_host_lease_is_held_until_its_holder_lets_it_go_and_says_who_holds_it() {
        let dir = tempfile::tempdir().unwrap();
        let leases = HostLeases {
            folder: dir.path().join("leases"),
        };
        let first = leases
            .try_take("FMR0223C13000649", "dwpipe audit (pid 1)")
            .unwrap();
        assert!(first.is_some());
        assert!(
            leases
                .try_take("FMR0223C13000649", "dwpipe deliver (pid 2)")
                .unwrap()
                .is_none()
        );
        let holder = leases.holder("FMR0223C13000649").unwrap();
        assert!(
            holder.starts_with("dwpipe audit (pid 1), since "),
            "{holder}"
        );
        // Another device is another lease.
        assert!(
            leases
                .try_take("127.0.0.1:5555@lab-2", "x")
                .unwrap()
                .is_some()
        );
        drop(first);
        assert!(
            leases
                .try_take("FMR0223C13000649", "dwpipe deliver (pid 2)")
                .unwrap()
                .is_some()
        );
    }

    #[test]
    fn lock_keys_are_stable_and_non_negative() {
        assert_eq!(lock_key("A"), lock_key("A"));
        assert_ne!(lock_key("A"), lock_key("B"));
        for key in ["A", "B", "FMR0223C13000649", "127.0.0.1:5555@lab"] {
            assert!(lock_key(key) >= 0);
        }
    }
}
