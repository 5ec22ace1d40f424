//! Lock files and their folders on Unix: `openat` from a held folder, `O_NOFOLLOW`, owners
//! and the sticky bit.

use std::path::Path;

use nix::errno::Errno;

use super::error::LockFileError;

mod file;
mod folder;

pub(crate) use file::{LockFile, holder};
pub(crate) use folder::folder;
pub(in crate::lock_file) use folder::{Folder, walk_below_made};

/// An I/O failure on `path`, as a refusal.
pub(super) fn io(path: &Path) -> impl Fn(Errno) -> LockFileError + '_ {
    move |errno| LockFileError::Io {
        path: path.to_owned(),
        source: std::io::Error::from(errno),
    }
}
