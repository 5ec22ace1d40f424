//! A lock file opened in a held folder: never followed, never opened unless it is a regular
//! file with one name, made `0644`, never truncated (its holder's line is written over its
//! first bytes), and noticed when removed or replaced.

use std::ffi::{OsStr, OsString};
use std::fs::{File, TryLockError};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::fs::FileExt;
use std::path::PathBuf;

use nix::errno::Errno;
use nix::fcntl::{AtFlags, OFlag, openat};
use nix::sys::stat::{Mode, SFlag, fstat, fstatat};

use super::super::error::LockFileError;
use super::super::line::{HOLDER_BYTES, first_line, holder_line};
use super::folder::{Folder, is, kind_words, link_words};
use super::io;

/// An open lock file.
#[derive(Debug)]
pub(crate) struct LockFile {
    file: File,
    /// Whether it was opened for writing (its holder's line can be written).
    writable: bool,
    /// Its folder and name, to tell whether it is still the file there.
    folder: OwnedFd,
    name: OsString,
    path: PathBuf,
}

impl LockFile {
    /// Opens the lock file `name` in `folder` (opened by [`super::folder()`] first), making it (`0644`:
    /// another user's job needs only to read it to lock it) when it is not there.
    pub(crate) fn open(folder: &Folder, name: &str) -> Result<LockFile, LockFileError> {
        let path = folder.join(name);
        let io = io(&path);
        let flags = OFlag::O_NOFOLLOW | OFlag::O_NONBLOCK | OFlag::O_CLOEXEC;
        let mode = Mode::from_bits_truncate(0o644);
        let own = |file: OwnedFd, writable| -> Result<LockFile, LockFileError> {
            Ok(LockFile {
                file: File::from(file),
                writable,
                folder: folder.fd.try_clone().map_err(|source| LockFileError::Io {
                    path: path.clone(),
                    source,
                })?,
                name: OsString::from(name),
                path: path.clone(),
            })
        };
        // Made by this open: its mode is this job's (the umask may take from it, never add).
        match openat(
            &folder.fd,
            name,
            OFlag::O_RDWR | OFlag::O_CREAT | OFlag::O_EXCL | flags,
            mode,
        ) {
            Ok(file) => return own(file, true),
            Err(Errno::EEXIST) => {}
            Err(e) => return Err(io(e)),
        }
        // There already: looked at before it is opened (a FIFO or a device is never opened),
        // and the file opened checked to be the one looked at.
        let planted = |found: String| LockFileError::Planted {
            path: path.clone(),
            found,
        };
        let seen = fstatat(&folder.fd, name, AtFlags::AT_SYMLINK_NOFOLLOW).map_err(&io)?;
        if !is(&seen, SFlag::S_IFREG) {
            let found = if is(&seen, SFlag::S_IFLNK) {
                link_words(&folder.fd, OsStr::new(name))
            } else {
                kind_words(SFlag::from_bits_truncate(seen.st_mode))
            };
            return Err(planted(found));
        }
        let (file, writable) = match openat(&folder.fd, name, OFlag::O_RDWR | flags, Mode::empty())
        {
            Ok(file) => (file, true),
            // Another user's lock file: a lock needs no more than reading it.
            Err(Errno::EACCES) => (
                openat(&folder.fd, name, OFlag::O_RDONLY | flags, Mode::empty()).map_err(&io)?,
                false,
            ),
            Err(Errno::ELOOP) => return Err(planted("a symbolic link".to_owned())),
            Err(e) => return Err(io(e)),
        };
        let opened = fstat(&file).map_err(&io)?;
        if !is(&opened, SFlag::S_IFREG)
            || (opened.st_dev, opened.st_ino) != (seen.st_dev, seen.st_ino)
        {
            return Err(planted(format!(
                "replaced while it was opened (now {})",
                kind_words(SFlag::from_bits_truncate(opened.st_mode))
            )));
        }
        if opened.st_nlink != 1 {
            return Err(planted(format!(
                "a file with {} names (a hard link to another file)",
                opened.st_nlink
            )));
        }
        own(file, writable)
    }

    /// Takes the lock if it is free: `false` when another holds it.
    pub(crate) fn try_lock(&self) -> std::io::Result<bool> {
        match self.file.try_lock() {
            Ok(()) => Ok(true),
            Err(TryLockError::WouldBlock) => Ok(false),
            Err(TryLockError::Error(e)) => Err(e),
        }
    }

    /// Whether the file locked is no longer the one its folder holds by its name (its owner
    /// removed or replaced it: another job may lock the new one): why, or `None`.
    pub(crate) fn replaced(&self) -> Option<String> {
        let held = fstat(self.file.as_fd()).ok()?;
        let gone = || {
            format!(
                "its lock file `{}` was removed or replaced while it was held: another job may have taken the device",
                self.path.display()
            )
        };
        match fstatat(
            &self.folder,
            self.name.as_os_str(),
            AtFlags::AT_SYMLINK_NOFOLLOW,
        ) {
            Ok(now) if (now.st_dev, now.st_ino) == (held.st_dev, held.st_ino) => None,
            _ => Some(gone()),
        }
    }

    /// Writes `holder` (one line) over the file's first bytes, for whoever waits to read: a
    /// courtesy, so a file that cannot be written is left as it is.
    pub(crate) fn say(&self, holder: &str) {
        if !self.writable {
            return;
        }
        let _ = self.file.write_all_at(&holder_line(holder), 0);
    }

    /// What its holder wrote: its first line, trimmed (`None` when empty or unreadable).
    pub(crate) fn said(&self) -> Option<String> {
        said(&self.file)
    }
}

/// The first line of `file`, trimmed.
fn said(file: &File) -> Option<String> {
    let mut bytes = vec![0; HOLDER_BYTES + 1];
    let n = file.read_at(&mut bytes, 0).ok()?;
    first_line(&bytes[..n])
}

/// What the holder of the lock file `name` in `folder` wrote, read without following a link
/// and only from a regular file (never waiting on a FIFO).
pub(crate) fn holder(folder: &Folder, name: &str) -> Option<String> {
    let seen = fstatat(&folder.fd, name, AtFlags::AT_SYMLINK_NOFOLLOW).ok()?;
    if !is(&seen, SFlag::S_IFREG) {
        return None;
    }
    let file = openat(
        &folder.fd,
        name,
        OFlag::O_RDONLY | OFlag::O_NOFOLLOW | OFlag::O_NONBLOCK | OFlag::O_CLOEXEC,
        Mode::empty(),
    )
    .ok()?;
    said(&File::from(file))
}
