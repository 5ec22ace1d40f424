//! Leases on this host: a lock file per device (`flock`: the kernel releases it when its
//! holder's process ends, however it ends), in a folder every user's jobs on the host share.
//! That folder can be written by anyone, so each lock file is opened as [`crate::lock_file`]
//! says (never through a link, never a FIFO or a device, never truncated or chmodded unless
//! made here), and the folder itself must be this user's or root's. A lock file cannot see a
//! job on another host driving the same phone through a remote hdc server; a lab of several
//! hosts keeps its leases in PostgreSQL (`history::lease`).

use std::path::PathBuf;

use super::TakeError;
use super::slot::{LeaseGuard, LeaseStore};
use crate::lock_file::{self, LockFile};

/// The folder of this host's lock files: `$DWPIPE_LEASES` (when set and not empty), else the
/// system's temporary folder itself, whose owner (root) and sticky bit keep every user's
/// files their own. (A folder of dwpipe's own there could be made first by any user, and
/// then be theirs.) On Windows, which has no sticky bit, the user's own
/// `%LOCALAPPDATA%\dwpipe\leases`, which no other user may write: leases meet between this
/// user's jobs; jobs of several users of one host meet in a `DWPIPE_LEASES` they share.
pub(crate) fn host_folder() -> PathBuf {
    std::env::var_os("DWPIPE_LEASES")
        .filter(|folder| !folder.is_empty())
        .map_or_else(default_folder, PathBuf::from)
}

#[cfg(not(windows))]
fn default_folder() -> PathBuf {
    std::env::temp_dir()
}

#[cfg(windows)]
fn default_folder() -> PathBuf {
    std::env::var_os("LOCALAPPDATA")
        .filter(|folder| !folder.is_empty())
        .map_or_else(std::env::temp_dir, PathBuf::from)
        .join("dwpipe")
        .join("leases")
}

/// Lock files on this host.
pub(crate) struct HostLeases {
    pub(crate) folder: PathBuf,
}

/// A held lock file is a lease: closing it releases the lock. Its owner (whoever made it
/// first; a sticky folder lets nobody else) can still remove it: the lease is then lost, said
/// at the holder's next call, since another job may lock a new file by the same name.
impl LeaseGuard for LockFile {
    fn lost(&self) -> Option<String> {
        self.replaced()
    }
}

/// Tries to open and lock a lease file this many times when it was removed between its
/// open and its lock.
const RELOCK: usize = 3;

impl HostLeases {
    /// The lock file's name for `key`: `dwpipe-lease-` and the key with every character but
    /// letters, digits and `-` replaced, then 8 hex digits of its hash (two keys that read
    /// alike once replaced, `a:1` and `a_1`, keep files of their own).
    fn name(key: &str) -> String {
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
        let digest = &crate::hash::sha256_hex(key.as_bytes())[..8];
        format!("dwpipe-lease-{name}-{digest}.lock")
    }
}

impl LeaseStore for HostLeases {
    fn try_take(&self, key: &str, holder: &str) -> Result<Option<Box<dyn LeaseGuard>>, TakeError> {
        let folder = lock_file::folder(&self.folder, true)?;
        for _ in 0..RELOCK {
            let file = LockFile::open(&folder, &Self::name(key))?;
            let taken = file.try_lock().map_err(|source| TakeError::Io {
                path: folder.join(Self::name(key)),
                source,
            })?;
            if !taken {
                return Ok(None);
            }
            // Removed between the open and the lock: the lock is on a file nobody else will
            // open again; the one there now is the lease.
            if file.replaced().is_some() {
                continue;
            }
            // Who holds it, for whoever waits: written once held (the file is never removed by
            // dwpipe: a file removed while another opens it would let two jobs lock two files).
            file.say(&format!("{holder}, since {}", crate::time::now()));
            return Ok(Some(Box::new(file)));
        }
        Ok(None)
    }

    fn holder(&self, key: &str) -> Option<String> {
        let folder = lock_file::folder(&self.folder, true).ok()?;
        lock_file::holder(&folder, &Self::name(key))
    }

    fn kind(&self) -> &'static str {
        "host"
    }
}

#[cfg(test)]
mod tests;
