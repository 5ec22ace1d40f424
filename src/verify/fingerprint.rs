//! The workspace fingerprint: what "the same code" means for evidence freshness.
//!
//! - A git workspace: SHA-256 over HEAD, `git status --porcelain=v1 -z --untracked-files=all`
//!   and the content hash of every changed or untracked file, `.dwpipe/` folders left out.
//! - A plain folder: SHA-256 over every file's path and content hash, minus `build/`,
//!   `oh_modules/`, `.hvigor/`, `.dwpipe/` and `.git/`.
//!
//! Content hashes go through a stat cache (size + mtime → hash) kept in the run directory, so
//! a warm fingerprint reads only what changed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::process::{Cancel, Completion, ProcessSpec, SpawnError, run};

/// Folders a plain workspace fingerprint skips: build output, dependencies, dwpipe's own.
pub(crate) const IGNORED: &[&str] = &[
    "build",
    "oh_modules",
    ".hvigor",
    ".dwpipe",
    ".git",
    "node_modules",
];

/// A file's stat key and its content hash.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Cached {
    size: u64,
    mtime_ns: u128,
    sha256: String,
}

/// The stat cache: path → (size, mtime) → content hash.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct StatCache {
    files: BTreeMap<PathBuf, Cached>,
    #[serde(skip)]
    hashed: usize,
}

impl StatCache {
    /// Loads the cache from `path` (an absent or unreadable cache is an empty one).
    pub(crate) fn load(path: &Path) -> StatCache {
        crate::input::read_bounded(path, crate::input::MAX_REPORT_BYTES, "a stat cache")
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default()
    }

    /// Saves the cache atomically.
    pub(crate) fn save(&self, path: &Path) -> std::io::Result<()> {
        let bytes = serde_json::to_vec(self).map_err(std::io::Error::other)?;
        crate::output::write_atomic(path, &bytes).map_err(|e| e.source)
    }

    /// How many files were actually read (not served from the cache) since loading.
    #[cfg(test)]
    pub(crate) fn hashed(&self) -> usize {
        self.hashed
    }

    /// The content hash of `path`, from the cache when size and mtime are unchanged.
    pub(crate) fn hash(&mut self, path: &Path) -> std::io::Result<String> {
        let meta = std::fs::metadata(path)?;
        let mtime_ns = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        if let Some(cached) = self
            .files
            .get(path)
            .filter(|c| c.size == meta.len() && c.mtime_ns == mtime_ns)
        {
            return Ok(cached.sha256.clone());
        }
        // A FIFO or a device in the workspace is never read (it would never end).
        let sha256 = crate::input::hash_file(path, "a workspace file")
            .map_err(|e| std::io::Error::other(crate::diagnostic::chain(&e)))?;
        self.hashed += 1;
        self.files.insert(
            path.to_owned(),
            Cached {
                size: meta.len(),
                mtime_ns,
                sha256: sha256.clone(),
            },
        );
        Ok(sha256)
    }
}

/// Why a fingerprint could not be taken.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FingerprintError {
    /// The workspace is not there.
    #[error("workspace `{}` does not exist", .0.display())]
    Missing(PathBuf),
    /// git failed.
    #[error("git failed in `{}`: {message}", workspace.display())]
    Git {
        /// The workspace.
        workspace: PathBuf,
        /// What git said.
        message: String,
    },
    /// A file could not be read.
    #[error("cannot read `{}`", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

/// Fingerprints a workspace (git when it is a git work tree, else the plain tree).
pub(crate) async fn fingerprint(
    workspace: &Path,
    cache: &mut StatCache,
    cancel: &Cancel,
) -> Result<String, FingerprintError> {
    if !workspace.is_dir() {
        return Err(FingerprintError::Missing(workspace.to_owned()));
    }
    if workspace.join(".git").exists() {
        git_fingerprint(workspace, cache, cancel).await
    } else {
        plain_fingerprint(workspace, cache)
    }
}

async fn git(
    workspace: &Path,
    args: &[&str],
    cancel: &Cancel,
) -> Result<(i32, Vec<u8>), FingerprintError> {
    let mut spec = ProcessSpec::new(
        "git",
        ["-C".as_ref(), workspace.as_os_str()]
            .into_iter()
            .chain(args.iter().map(AsRef::as_ref)),
    );
    spec.head_limit = 256 * 1024 * 1024;
    let error = |message: String| FingerprintError::Git {
        workspace: workspace.to_owned(),
        message,
    };
    let outcome = run(&spec.timeout(std::time::Duration::from_secs(120)), cancel)
        .await
        .map_err(|e| match e {
            SpawnError::NotFound { .. } => error("git is not installed".to_owned()),
            other => error(crate::diagnostic::chain(&other)),
        })?;
    match outcome.completion {
        Completion::Exited(code) if outcome.stdout.is_complete() => {
            Ok((code, outcome.stdout.to_bytes()))
        }
        Completion::Exited(_) => Err(error("git printed more than dwpipe keeps".to_owned())),
        other => Err(error(format!("{other:?}"))),
    }
}

async fn git_fingerprint(
    workspace: &Path,
    cache: &mut StatCache,
    cancel: &Cancel,
) -> Result<String, FingerprintError> {
    let (code, head) = git(workspace, &["rev-parse", "--verify", "-q", "HEAD"], cancel).await?;
    let head = if code == 0 {
        String::from_utf8_lossy(&head).trim().to_owned()
    } else {
        "UNBORN".to_owned()
    };
    let (code, status) = git(
        workspace,
        // dwpipe's own files (a run directory inside the tree, as `workspace: .` puts it) are
        // never the agent's work.
        &[
            "status",
            "--porcelain=v1",
            "-z",
            "--untracked-files=all",
            "--",
            ".",
            ":(exclude,glob)**/.dwpipe/**",
        ],
        cancel,
    )
    .await?;
    if code != 0 {
        return Err(FingerprintError::Git {
            workspace: workspace.to_owned(),
            message: String::from_utf8_lossy(&status).into_owned(),
        });
    }
    let mut hasher = Sha256::new();
    hasher.update(b"git\0");
    hasher.update(head.as_bytes());
    hasher.update(b"\0");
    hasher.update(&status);
    let mut changed: Vec<String> = Vec::new();
    let mut entries = status.split(|b| *b == 0).filter(|e| !e.is_empty());
    while let Some(entry) = entries.next() {
        if entry.len() < 4 {
            continue;
        }
        let code = &entry[..2];
        changed.push(String::from_utf8_lossy(&entry[3..]).into_owned());
        // A rename or copy names its source in the next field.
        if (code.contains(&b'R') || code.contains(&b'C'))
            && let Some(source) = entries.next()
        {
            changed.push(String::from_utf8_lossy(source).into_owned());
        }
    }
    changed.sort();
    changed.dedup();
    for path in changed {
        let full = workspace.join(&path);
        let content = if full.is_file() {
            cache.hash(&full).map_err(|source| FingerprintError::Io {
                path: full.clone(),
                source,
            })?
        } else {
            "DELETED".to_owned()
        };
        hasher.update(path.as_bytes());
        hasher.update(b"\0");
        hasher.update(content.as_bytes());
        hasher.update(b"\n");
    }
    Ok(hex(hasher))
}

/// The newest modification time of the workspace's own files: everything the fingerprint
/// reads, without `also` (generated folders the fingerprint keeps, but that are not sources).
pub(crate) fn newest_change(workspace: &Path, also: &[&str]) -> Option<SystemTime> {
    walkdir::WalkDir::new(workspace)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| {
            e.depth() == 0
                || !(e.file_type().is_dir()
                    && IGNORED.iter().chain(also).any(|i| e.file_name() == *i))
        })
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter_map(|e| e.metadata().ok()?.modified().ok())
        .max()
}

fn plain_fingerprint(workspace: &Path, cache: &mut StatCache) -> Result<String, FingerprintError> {
    let mut files: Vec<PathBuf> = Vec::new();
    let walker = walkdir::WalkDir::new(workspace)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| {
            e.depth() == 0
                || !(e.file_type().is_dir() && IGNORED.iter().any(|i| e.file_name() == *i))
        });
    for entry in walker {
        let entry = entry.map_err(|e| FingerprintError::Io {
            path: e.path().map(Path::to_owned).unwrap_or_default(),
            source: e.into(),
        })?;
        if entry.file_type().is_file() {
            files.push(entry.into_path());
        }
    }
    files.sort();
    let mut hasher = Sha256::new();
    hasher.update(b"plain\0");
    for path in files {
        let content = cache.hash(&path).map_err(|source| FingerprintError::Io {
            path: path.clone(),
            source,
        })?;
        hasher.update(
            path.strip_prefix(workspace)
                .unwrap_or(&path)
                .to_string_lossy()
                .as_bytes(),
        );
        hasher.update(b"\0");
        hasher.update(content.as_bytes());
        hasher.update(b"\n");
    }
    Ok(hex(hasher))
}

fn hex(hasher: Sha256) -> String {
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
