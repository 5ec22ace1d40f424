//! A folder walked to one level at a time from its drive's root, each level opened as itself
//! and refused when it is a link or junction, and every level held open (without delete
//! sharing) for as long as the folder is used.

use std::ffi::OsStr;
use std::fs::File;
use std::path::{Component, Path, PathBuf};

use super::super::error::LockFileError;
use super::super::planted::kind_of;
use super::open_folder;

/// A folder, walked to and held open with every level above it: nobody can rename, remove or
/// replace any of them until it is dropped.
#[derive(Debug)]
pub(crate) struct Folder {
    /// Every level, the folder itself last.
    _held: Vec<File>,
    pub(super) path: PathBuf,
}

impl Folder {
    /// `name` in it.
    pub(crate) fn join(&self, name: impl AsRef<Path>) -> PathBuf {
        self.path.join(name)
    }
}

/// Opens `folder` (made when missing). A shared folder (`shared`: the device leases, by default
/// in the user's own `%LOCALAPPDATA%`) is walked to from its drive's root with no level a
/// symbolic link or junction: Windows has no sticky bit that would make a link in a folder
/// others write safe to follow. A folder of dwpipe's own in a workspace (`.dwpipe/…`): the
/// levels above `.dwpipe` are the user's, taken as they are; `.dwpipe` and below never a link.
pub(crate) fn folder(folder: &Path, shared: bool) -> Result<Folder, LockFileError> {
    let absolute = std::path::absolute(folder).map_err(|source| LockFileError::Io {
        path: folder.to_owned(),
        source,
    })?;
    if shared {
        let (root, names) = split(&absolute)?;
        return walk(root, &names, false);
    }
    super::super::planted::walk_own(&absolute)
}

/// Opens `base` as it is given (made by the caller), then walks `names` below it, each made
/// when missing and never a link or junction.
pub(in crate::lock_file) fn walk_below_made(
    base: &Path,
    names: &[&OsStr],
) -> Result<Folder, LockFileError> {
    walk(base.to_owned(), names, true)
}

/// The root of an absolute path (`C:\`, `\\server\share\`) and the names below it (`..`
/// refused: the walk does not go back up).
fn split(path: &Path) -> Result<(PathBuf, Vec<&OsStr>), LockFileError> {
    let mut root = PathBuf::new();
    let mut names = Vec::new();
    for component in path.components() {
        match component {
            Component::Prefix(_) | Component::RootDir => root.push(component.as_os_str()),
            Component::Normal(name) => names.push(name),
            Component::CurDir => {}
            Component::ParentDir => {
                return Err(LockFileError::Folder {
                    folder: path.to_owned(),
                    why: "holds `..`: give the folder's own path".to_owned(),
                });
            }
        }
    }
    Ok((root, names))
}

/// Holds `start` (through a link there when `follow_start`: a folder the user gave), then
/// each of `names` below it, made when missing, opened as itself and refused when it is a
/// link or junction (or not a folder).
fn walk(start: PathBuf, names: &[&OsStr], follow_start: bool) -> Result<Folder, LockFileError> {
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| LockFileError::Io { path, source }
    };
    let first = open_folder(&start, follow_start).map_err(io(&start))?;
    let mut held = vec![first];
    let mut walked = start;
    for name in names {
        let here = walked.join(name);
        match std::fs::create_dir(&here) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(source) => return Err(LockFileError::Io { path: here, source }),
        }
        let level = open_folder(&here, false).map_err(io(&here))?;
        let meta = level.metadata().map_err(io(&here))?;
        if meta.file_type().is_symlink() {
            return Err(LockFileError::Planted {
                found: kind_of(&here, &meta),
                path: here,
            });
        }
        if !meta.is_dir() {
            return Err(LockFileError::Folder {
                folder: here,
                why: "is not a folder".to_owned(),
            });
        }
        held.push(level);
        walked = here;
    }
    Ok(Folder {
        _held: held,
        path: walked,
    })
}
