//! A delivery's run directory, `.dwpipe/runs/<unix-seconds>-<pack8>/`, and what lives in it:
//! the lock and spec, the briefs, the agent's logs, the verification reports, one folder per
//! audit, the stat cache, `ledger.jsonl` and `deliver.json`. Review receipts live beside the
//! runs, in `.dwpipe/reviews/`, because a lock is reviewed once across runs.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::diagnostic::Diagnostic;
use crate::output::{PublishError, dir_or_dot};
use crate::pack::{Frozen, LOCK_FILE, load_lock};

/// A run directory.
#[derive(Clone, Debug)]
pub(crate) struct RunDir {
    path: PathBuf,
    /// The folder holding `.dwpipe/`.
    base: PathBuf,
}

/// Why a run directory could not be made or picked up.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RunDirError {
    /// The folder could not be created.
    #[error("cannot create a run directory under `{}`", base.display())]
    Create {
        /// Where it was to be.
        base: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The lock and spec could not be written into it.
    #[error(transparent)]
    Write(#[from] PublishError),
    /// The run's own lock does not load.
    #[error("the run's lock is refused")]
    Lock(Vec<Diagnostic>),
}

impl RunDir {
    /// A fresh run for `frozen` under `base` (`-2`, `-3`, … for runs started in the same
    /// second: each run owns its folder), with its lock and spec written.
    pub(crate) fn create(base: &Path, frozen: &Frozen) -> Result<RunDir, RunDirError> {
        let error = |source| RunDirError::Create {
            base: base.to_owned(),
            source,
        };
        let runs = base.join(".dwpipe").join("runs");
        std::fs::create_dir_all(&runs).map_err(error)?;
        let seconds = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let stem = format!("{seconds}-{}", &frozen.lock.sha256[..8]);
        let mut n = 1u32;
        let path = loop {
            let dir = match n {
                1 => runs.join(&stem),
                n => runs.join(format!("{stem}-{n}")),
            };
            match std::fs::create_dir(&dir) {
                Ok(()) => break dir,
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < u32::MAX => n += 1,
                Err(e) => return Err(error(e)),
            }
        };
        frozen.write(&path)?;
        Ok(RunDir {
            path,
            base: base.to_owned(),
        })
    }

    /// An existing run, with its own lock (evidence is never reused across packs). `base` is
    /// the folder holding `.dwpipe/`; by default the one the run directory sits in.
    pub(crate) fn resume(
        path: &Path,
        base: Option<&Path>,
    ) -> Result<(RunDir, Frozen), RunDirError> {
        let frozen = load_lock(&path.join(LOCK_FILE)).map_err(RunDirError::Lock)?;
        let base = base.map_or_else(
            || dir_or_dot(path.ancestors().nth(3)).to_owned(),
            Path::to_owned,
        );
        Ok((
            RunDir {
                path: path.to_owned(),
                base,
            },
            frozen,
        ))
    }

    /// The run directory itself.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Where review reports and their receipts live across runs.
    pub(crate) fn reviews(&self) -> PathBuf {
        self.base.join(".dwpipe").join("reviews")
    }

    /// The run's lock.
    pub(crate) fn lock(&self) -> PathBuf {
        self.path.join(LOCK_FILE)
    }

    /// The brief of a round: the Goal brief first, then repair briefs.
    pub(crate) fn brief_name(round: u32) -> String {
        match round {
            0 => "goal-brief.md".to_owned(),
            n => format!("repair-brief-{n}.md"),
        }
    }

    /// The agent's log of a round.
    pub(crate) fn agent_log(&self, round: u32) -> PathBuf {
        self.path.join(format!("agent-{}.log", round + 1))
    }

    /// The verification report of a round.
    pub(crate) fn verify_name(round: u32) -> String {
        format!("verify-{}.json", round + 1)
    }

    /// A folder for a round's audit that no earlier attempt used (a resumed audit never
    /// writes into the evidence of the one it replaces).
    pub(crate) fn audit_folder(&self, round: u32) -> PathBuf {
        let stem = format!("audit-round-{}", round + 1);
        let mut n = 1u32;
        loop {
            let dir = match n {
                1 => self.path.join(&stem),
                n => self.path.join(format!("{stem}-attempt-{n}")),
            };
            if !dir.exists() || n == u32::MAX {
                return dir;
            }
            n += 1;
        }
    }

    /// The workspace fingerprint's stat cache.
    pub(crate) fn stat_cache(&self) -> PathBuf {
        self.path.join("stat-cache.json")
    }

    /// A path inside the run as reports name it: relative to the run directory.
    pub(crate) fn relative(&self, path: &Path) -> String {
        path.strip_prefix(&self.path)
            .unwrap_or(path)
            .display()
            .to_string()
    }
}
