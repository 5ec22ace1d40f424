//! A HAP to install, resolved once: the file its path names (symlinks followed), a regular
//! file named in UTF-8 (hdc takes the path as text: a lossy name would hash one file and
//! install another), inside the workspace when a delivery declared it, and hashed — the file
//! hashed is the file installed, by its resolved, absolute path (which never begins with `-`,
//! so hdc never reads it as an option).

use std::path::{Path, PathBuf};

use super::{ReadError, hash_file};

/// A HAP resolved and hashed.
#[derive(Clone, Debug)]
pub(crate) struct Hap {
    /// The file itself: absolute, symlinks resolved, UTF-8.
    pub(crate) resolved: PathBuf,
    /// The SHA-256 of its bytes.
    pub(crate) sha256: String,
}

/// Why a HAP cannot be installed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum HapPathError {
    /// Its path resolves to nothing.
    #[error("`{}` cannot be resolved", path.display())]
    Missing {
        /// The path as given.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// It resolves to a file outside the workspace that declared it.
    #[error("`{}` resolves to `{}`, outside the workspace `{}`", path.display(), resolved.display(), workspace.display())]
    Outside {
        /// The path as given.
        path: PathBuf,
        /// What it resolves to.
        resolved: PathBuf,
        /// The workspace.
        workspace: PathBuf,
    },
    /// Its name is not UTF-8.
    #[error("`{}` is not named in UTF-8: hdc takes a HAP's path as text", path.display())]
    NotUtf8 {
        /// The path as given.
        path: PathBuf,
    },
    /// It is not a regular file, or cannot be read.
    #[error(transparent)]
    Read(#[from] ReadError),
}

/// Resolves the HAP at `path`, inside `workspace` when given.
pub(crate) fn resolve_hap(path: &Path, workspace: Option<&Path>) -> Result<Hap, HapPathError> {
    let not_utf8 = || HapPathError::NotUtf8 {
        path: path.to_owned(),
    };
    path.to_str().ok_or_else(not_utf8)?;
    let missing = |source| HapPathError::Missing {
        path: path.to_owned(),
        source,
    };
    let resolved = std::fs::canonicalize(path).map_err(missing)?;
    resolved.to_str().ok_or_else(not_utf8)?;
    if let Some(workspace) = workspace {
        let root = std::fs::canonicalize(workspace).map_err(missing)?;
        if !resolved.starts_with(&root) {
            return Err(HapPathError::Outside {
                path: path.to_owned(),
                resolved,
                workspace: root,
            });
        }
    }
    // Refuses anything but a regular file by its type, before a byte is read.
    let sha256 = hash_file(&resolved, "a HAP")?;
    Ok(Hap { resolved, sha256 })
}

// Its one test makes Unix symbolic links and file names.
#[cfg(all(test, unix))]
mod tests;
