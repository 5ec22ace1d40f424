//! The refusals of what someone planted where dwpipe makes its own files: a link on the way
//! to an audit's evidence or in a workspace's `.dwpipe/`, anything standing where a temporary
//! file goes. Portable: the walk itself is the platform's.

use std::ffi::OsStr;
use std::path::Path;

use super::error::LockFileError;
use super::platform::{Folder, walk_below_made};

/// A folder of dwpipe's own in a workspace (`path`, absolute): `.dwpipe` and everything below
/// it (else the folder itself) made by dwpipe and never a link; the levels above it are the
/// user's, taken as they are.
pub(super) fn walk_own(path: &Path) -> Result<Folder, LockFileError> {
    let names: Vec<&OsStr> = path.iter().collect();
    let own_from = names
        .iter()
        .position(|n| *n == OsStr::new(".dwpipe"))
        .unwrap_or(names.len().saturating_sub(1));
    let base: std::path::PathBuf = names[..own_from].iter().collect();
    walk_below(&base, &names[own_from..])
}

/// Opens `base` as it is given (made when missing, as the user's), then walks `names` below
/// it, each made when missing and never a link: the platform's walk.
fn walk_below(base: &Path, names: &[&OsStr]) -> Result<Folder, LockFileError> {
    std::fs::create_dir_all(base).map_err(|source| LockFileError::Io {
        path: base.to_owned(),
        source,
    })?;
    walk_below_made(base, names)
}

/// Makes `dir`, a folder dwpipe keeps its own files in under `base` (an audit's evidence
/// under its `--out`), refusing a link at any level below `base`: someone else put it there
/// to have dwpipe write where it leads.
pub(crate) fn own_folder(base: &Path, dir: &Path) -> Result<(), LockFileError> {
    let below = dir.strip_prefix(base).map_err(|_| LockFileError::Folder {
        folder: dir.to_owned(),
        why: format!("is not under `{}`", base.display()),
    })?;
    let names: Vec<&OsStr> = below.iter().collect();
    walk_below(base, &names).map(drop)
}

/// Refuses what stands at `path` where dwpipe is about to make a file of its own (a pull's
/// temporary file): anything there, a link above all, was put by someone else.
pub(crate) fn unplanted(path: &Path) -> Result<(), LockFileError> {
    match std::fs::symlink_metadata(path) {
        Err(_) => Ok(()),
        Ok(meta) => Err(LockFileError::Planted {
            path: path.to_owned(),
            found: kind_of(path, &meta),
        }),
    }
}

/// Refuses `folder`, or a `.dwpipe` it is in, when it is a symbolic link: dwpipe makes those
/// folders itself, so a link there was put by someone else (to make dwpipe write where it
/// leads).
pub(crate) fn planted_links(folder: &Path) -> Result<(), LockFileError> {
    let mut at = Some(folder);
    let mut first = true;
    while let Some(path) = at {
        let own = first || path.file_name().is_some_and(|n| n == ".dwpipe");
        if own
            && let Ok(meta) = std::fs::symlink_metadata(path)
            && meta.file_type().is_symlink()
        {
            return Err(LockFileError::Planted {
                path: path.to_owned(),
                found: kind_of(path, &meta),
            });
        }
        first = false;
        at = path.parent().filter(|p| !p.as_os_str().is_empty());
    }
    Ok(())
}

/// What stands at `path`, in words: a link with its target (on Windows, where std calls a
/// junction a link too, "a symbolic link or junction"), else its kind.
pub(super) fn kind_of(path: &Path, meta: &std::fs::Metadata) -> String {
    let kind = meta.file_type();
    if kind.is_symlink() {
        let target = std::fs::read_link(path).map_or_else(
            |_| "?".to_owned(),
            |t| crate::text::one_line(&t.display().to_string(), 200).into_owned(),
        );
        let link = if cfg!(windows) {
            "a symbolic link or junction"
        } else {
            "a symbolic link"
        };
        format!("{link} to {target}")
    } else {
        crate::input::kind_words(kind).to_owned()
    }
}
