//! A lock file in a held folder (Windows): opened as itself (a link or junction is refused,
//! never followed), only ever a regular file with one name, never truncated (its holder's
//! line is written over its first bytes), held without delete sharing (so its owner cannot
//! remove it while it is held either), and locked on one byte far past that line.
//!
//! std's `File::lock` locks every byte of a file with `LockFileEx`, and Windows' byte locks
//! are mandatory: whoever waits could then not read who holds it. So the same call locks one
//! byte at [`LOCK_AT`] (a lock past the end of a file is allowed and makes it no longer);
//! Windows releases it when the holder's handle closes, however its process ends, as
//! `flock` does.

use std::fs::File;
use std::io;
use std::os::windows::fs::{FileExt, OpenOptionsExt};
use std::os::windows::io::AsRawHandle;
use std::path::PathBuf;

use windows_sys::Win32::Foundation::{ERROR_IO_PENDING, ERROR_LOCK_VIOLATION};
use windows_sys::Win32::Storage::FileSystem::{
    LOCKFILE_EXCLUSIVE_LOCK, LOCKFILE_FAIL_IMMEDIATELY, LockFileEx,
};
use windows_sys::Win32::System::IO::OVERLAPPED;

use super::super::error::LockFileError;
use super::super::line::{HOLDER_BYTES, first_line, holder_line};
use super::super::planted::kind_of;
use super::folder::Folder;
use super::{Identity, as_itself, identity};

/// The byte locked: far past any line written.
const LOCK_AT: u64 = 1 << 62;

/// An open lock file.
#[derive(Debug)]
pub(crate) struct LockFile {
    file: File,
    /// Whether it was opened for writing (its holder's line can be written).
    writable: bool,
    /// What it was when opened, to tell whether it is still the file its name opens.
    opened: Identity,
    path: PathBuf,
}

impl LockFile {
    /// Opens the lock file `name` in `folder` (opened by [`super::folder()`] first), making it
    /// when it is not there.
    pub(crate) fn open(folder: &Folder, name: &str) -> Result<LockFile, LockFileError> {
        let path = folder.join(name);
        let io = |source| LockFileError::Io {
            path: path.clone(),
            source,
        };
        let planted = |found: String| LockFileError::Planted {
            path: path.clone(),
            found,
        };
        let (file, writable) = match as_itself()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(file) => (file, true),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                // There already: looked at before it is opened, and the file opened checked
                // to be a regular one below.
                let seen = std::fs::symlink_metadata(&path).map_err(io)?;
                if !seen.is_file() {
                    return Err(planted(kind_of(&path, &seen)));
                }
                match as_itself().read(true).write(true).open(&path) {
                    Ok(file) => (file, true),
                    // Another user's lock file: a lock needs no more than reading it.
                    Err(e) if e.kind() == io::ErrorKind::PermissionDenied => {
                        (as_itself().read(true).open(&path).map_err(io)?, false)
                    }
                    Err(e) => return Err(io(e)),
                }
            }
            Err(e) => return Err(io(e)),
        };
        let meta = file.metadata().map_err(io)?;
        if !meta.is_file() {
            return Err(planted(format!(
                "replaced while it was opened (now {})",
                kind_of(&path, &meta)
            )));
        }
        let opened = identity(&file).map_err(io)?;
        if opened.links != 1 {
            return Err(planted(format!(
                "a file with {} names (a hard link to another file)",
                opened.links
            )));
        }
        Ok(LockFile {
            file,
            writable,
            opened,
            path,
        })
    }

    /// Takes the lock if it is free: `false` when another holds it.
    pub(crate) fn try_lock(&self) -> io::Result<bool> {
        // SAFETY: all-zero is a valid value of this plain C struct; its offset is set below.
        let mut at: OVERLAPPED = unsafe { std::mem::zeroed() };
        // The low and high halves of the offset (the casts keep exactly those bits).
        at.Anonymous.Anonymous.Offset = (LOCK_AT & 0xFFFF_FFFF) as u32;
        at.Anonymous.Anonymous.OffsetHigh = (LOCK_AT >> 32) as u32;
        // SAFETY: the handle is open for as long as `self` is, and `at` outlives the call,
        // which returns at once (LOCKFILE_FAIL_IMMEDIATELY, a handle opened without overlap).
        let locked = unsafe {
            LockFileEx(
                self.file.as_raw_handle(),
                LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY,
                0,
                1,
                0,
                &raw mut at,
            )
        };
        if locked != 0 {
            return Ok(true);
        }
        let error = io::Error::last_os_error();
        match error
            .raw_os_error()
            .and_then(|code| u32::try_from(code).ok())
        {
            Some(ERROR_LOCK_VIOLATION | ERROR_IO_PENDING) => Ok(false),
            _ => Err(error),
        }
    }

    /// Whether the file locked is no longer the one its folder holds by its name: why, or
    /// `None`. (Held without delete sharing, it cannot be removed while held; this catches a
    /// file replaced between its open and its lock.)
    pub(crate) fn replaced(&self) -> Option<String> {
        let now = as_itself()
            .access_mode(0)
            .open(&self.path)
            .and_then(|file| identity(&file));
        let same =
            now.is_ok_and(|now| (now.volume, now.index) == (self.opened.volume, self.opened.index));
        (!same).then(|| {
            format!(
                "its lock file `{}` was removed or replaced while it was held: another job may have taken the device",
                self.path.display()
            )
        })
    }

    /// Writes `holder` (one line) over the file's first bytes, for whoever waits to read: a
    /// courtesy, so a file that cannot be written is left as it is.
    pub(crate) fn say(&self, holder: &str) {
        if !self.writable {
            return;
        }
        let bytes = holder_line(holder);
        let mut written = 0;
        while written < bytes.len() {
            match self.file.seek_write(&bytes[written..], written as u64) {
                Ok(0) | Err(_) => return,
                Ok(n) => written += n,
            }
        }
    }

    /// What its holder wrote: its first line, trimmed (`None` when empty or unreadable).
    pub(crate) fn said(&self) -> Option<String> {
        said(&self.file)
    }
}

/// The first line of `file`, trimmed.
fn said(file: &File) -> Option<String> {
    let mut bytes = vec![0; HOLDER_BYTES + 1];
    let n = file.seek_read(&mut bytes, 0).ok()?;
    first_line(&bytes[..n])
}

/// What the holder of the lock file `name` in `folder` wrote, read without following a link
/// and only from a regular file.
pub(crate) fn holder(folder: &Folder, name: &str) -> Option<String> {
    let path = folder.join(name);
    let file = as_itself().read(true).open(&path).ok()?;
    let meta = file.metadata().ok()?;
    meta.is_file().then(|| said(&file)).flatten()
}
