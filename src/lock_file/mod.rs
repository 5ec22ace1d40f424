//! Lock files in places other people can write: the host's lease folder (every user's jobs
//! meet there, often under the temporary folder), and a workspace's `.dwpipe/` (the agent
//! being gated writes there). Such a place can hold what someone planted: a link to a file
//! the job may write as root, a FIFO that blocks an open for ever, a hard link to a file it
//! must not touch, or a link on the way to the folder itself. So a folder is walked to one
//! component at a time, each opened relative to the one before (`openat`) without following
//! a link, and held open: every lock file is opened in that handle, never by a path someone
//! could swap meanwhile. On the way to a shared folder every folder must be this user's or
//! root's and, when others may write it, sticky; a link is followed only where nobody else
//! could have put it; every missing level is made sticky and open to every user. In a
//! workspace, what dwpipe makes (`.dwpipe` and below) is never a link. A lock file is never
//! followed, never opened unless it is a regular file with one name (FIFOs, folders and
//! devices are refused by type before any open), made `0644` (nobody else can hard-link it,
//! and a lock needs only reading), never chmodded unless this open made it, and never
//! truncated: who holds it is written over its first bytes as a fixed-width line. A held lock
//! file removed or replaced (by its owner: a sticky folder lets nobody else) is a lease lost,
//! said at the holder's next call. Every refusal says what was found and how to clear it.
//!
//! On Windows the same promises are kept with Windows' own means (`windows/`): every level of
//! the way is opened as itself (never through a symbolic link or junction: a reparse point
//! that redirects a name is refused) and held open without delete sharing, so that no level
//! can be renamed or replaced while it is used; the device leases live in the user's own
//! folder under `%LOCALAPPDATA%`, which other users cannot write.

mod error;
mod line;
mod planted;
#[cfg(unix)]
#[path = "unix/mod.rs"]
mod platform;
#[cfg(windows)]
#[path = "windows/mod.rs"]
mod platform;

pub use error::LockFileError;
pub(crate) use planted::{own_folder, planted_links, unplanted};
pub(crate) use platform::{LockFile, folder, holder};

#[cfg(all(test, unix))]
mod tests;
