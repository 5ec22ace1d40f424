//! Lock files and their folders on Windows. There is no `openat` and no sticky bit; instead
//! every level of a folder's path is opened as itself (`FILE_FLAG_OPEN_REPARSE_POINT`: a
//! symbolic link or junction is opened, not followed, and then refused) and held open
//! without `FILE_SHARE_DELETE`, which keeps anyone from renaming, removing or replacing it
//! while dwpipe uses what is in it. A lock file is opened the same way and must be a regular
//! file with one name.
#![expect(
    unsafe_code,
    reason = "a handle's link count and identity, and a lock on one byte, have no wrapper in std"
)]

use std::fs::{File, OpenOptions};
use std::io;
use std::os::windows::fs::OpenOptionsExt;
use std::os::windows::io::AsRawHandle;
use std::path::Path;

use windows_sys::Win32::Storage::FileSystem::{
    BY_HANDLE_FILE_INFORMATION, FILE_FLAG_BACKUP_SEMANTICS, FILE_FLAG_OPEN_REPARSE_POINT,
    FILE_READ_ATTRIBUTES, FILE_SHARE_READ, FILE_SHARE_WRITE, GetFileInformationByHandle,
};

mod file;
mod folder;

pub(crate) use file::{LockFile, holder};
pub(crate) use folder::folder;
pub(in crate::lock_file) use folder::{Folder, walk_below_made};

/// Sharing that lets others read and write what dwpipe holds, never delete or rename it.
const SHARE: u32 = FILE_SHARE_READ | FILE_SHARE_WRITE;

/// Options that open `path` itself: a reparse point is opened, not followed.
fn as_itself() -> OpenOptions {
    let mut options = OpenOptions::new();
    options
        .share_mode(SHARE)
        .custom_flags(FILE_FLAG_OPEN_REPARSE_POINT);
    options
}

/// Opens the folder `path` for its attributes only, held without delete sharing: the folder
/// itself, or (`follow`) where a link or junction there leads.
fn open_folder(path: &Path, follow: bool) -> io::Result<File> {
    let itself = if follow {
        0
    } else {
        FILE_FLAG_OPEN_REPARSE_POINT
    };
    OpenOptions::new()
        .access_mode(FILE_READ_ATTRIBUTES)
        .share_mode(SHARE)
        .custom_flags(FILE_FLAG_BACKUP_SEMANTICS | itself)
        .open(path)
}

/// What the file system says of an open file: its volume and index (its identity) and how
/// many names it has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Identity {
    volume: u32,
    index: u64,
    links: u32,
}

fn identity(file: &File) -> io::Result<Identity> {
    // SAFETY: all-zero is a valid value of this plain C struct.
    let mut info: BY_HANDLE_FILE_INFORMATION = unsafe { std::mem::zeroed() };
    // SAFETY: the handle is open for as long as `file` is; `info` is the struct the call fills.
    if unsafe { GetFileInformationByHandle(file.as_raw_handle(), &raw mut info) } == 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(Identity {
        volume: info.dwVolumeSerialNumber,
        index: (u64::from(info.nFileIndexHigh) << 32) | u64::from(info.nFileIndexLow),
        links: info.nNumberOfLinks,
    })
}
