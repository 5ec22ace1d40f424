//! Why a lock file or its folder is refused, and what to do about it.

use std::path::PathBuf;

/// Why a lock file (or its folder) is refused.
#[derive(Debug, thiserror::Error)]
pub enum LockFileError {
    /// The folder is not one this job may trust.
    #[error("`{}` {why}", folder.display())]
    Folder {
        /// The folder (or the part of its path found wanting).
        folder: PathBuf,
        /// What was found.
        why: String,
    },
    /// Something other than what dwpipe makes stands where it goes.
    #[error("`{}` is {found}: dwpipe makes it itself, so someone else put that there", path.display())]
    Planted {
        /// Its path.
        path: PathBuf,
        /// What it is (`a symbolic link to /etc/passwd`, `a FIFO`, …).
        found: String,
    },
    /// The OS refused.
    #[error("cannot open the lock file `{}`", path.display())]
    Io {
        /// The lock file's path (or its folder's).
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

impl LockFileError {
    /// What to do about it.
    pub(crate) fn fix(&self) -> String {
        match self {
            LockFileError::Folder { folder, .. } if cfg!(windows) => format!(
                "use a folder reached without a symbolic link or junction (`{}` and every folder above it); for the device leases, leave DWPIPE_LEASES unset (your own folder under %LOCALAPPDATA%) or set it to such a folder",
                folder.display()
            ),
            LockFileError::Folder { folder, .. } => format!(
                "use a folder whose every level only you (or root) can change, or one with the sticky bit (`chmod +t {}`); for the device leases, set DWPIPE_LEASES to such a folder",
                folder.display()
            ),
            LockFileError::Planted { path, .. } if cfg!(windows) => format!(
                "look at who made it, remove it (`rmdir \"{}\"` for a link or junction to a folder, `del` for any other) and run again: dwpipe makes its lock files and folders itself",
                path.display()
            ),
            LockFileError::Planted { path, .. } => format!(
                "look at who made it, remove it (`rm {}`) and run again: dwpipe makes its lock files and folders itself",
                path.display()
            ),
            LockFileError::Io { .. } => {
                "check the folder's permissions and the disk, then run again".to_owned()
            }
        }
    }
}
