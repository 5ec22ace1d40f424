//! One delivery per workspace at a time: an advisory lock on `<workspace>/.dwpipe/deliver.lock`
//! for the whole delivery, holding the run's id. The kernel releases it when its holder dies,
//! so a crashed run leaves no stale lock; a second delivery is refused at once, naming the run
//! that holds the workspace (else it would be credited with that run's edits), and a stop
//! hook's gate waits its turn (two agent sessions in one workspace each get an answer). The
//! workspace is the agent's to write: the lock file is opened as [`crate::lock_file`] says,
//! never through a link an agent planted.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::lock_file::{self, LockFile, LockFileError};

/// How often a claim that waits asks again.
const RETRY: Duration = Duration::from_millis(200);

/// The workspace's claim, held while it lives.
#[derive(Debug)]
pub(crate) struct Claim {
    file: LockFile,
}

/// Why the workspace cannot be claimed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ClaimError {
    /// Another delivery holds it.
    #[error(
        "the workspace `{}` is being delivered by run {run}; wait for it to end or stop it",
        workspace.display()
    )]
    Busy {
        /// The workspace.
        workspace: PathBuf,
        /// The holder's run id, as it wrote it.
        run: String,
    },
    /// The lock file was refused (a link or a FIFO in its place, a folder others can write).
    #[error(transparent)]
    Refused(#[from] LockFileError),
    /// The lock file cannot be locked.
    #[error("cannot lock `{}`", path.display())]
    Io {
        /// The lock file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

/// Claims `workspace` for a delivery; `wait` is how long to wait for another delivery (or a
/// stop hook's gate) to end before it is refused as busy.
pub(crate) fn claim(workspace: &Path, wait: Duration) -> Result<Claim, ClaimError> {
    let dir = lock_file::folder(&workspace.join(".dwpipe"), false)?;
    let file = LockFile::open(&dir, "deliver.lock")?;
    let started = Instant::now();
    loop {
        match file.try_lock() {
            Ok(true) => return Ok(Claim { file }),
            Ok(false) if started.elapsed() < wait => std::thread::sleep(RETRY),
            Ok(false) => {
                return Err(ClaimError::Busy {
                    workspace: workspace.to_owned(),
                    run: file.said().unwrap_or_else(|| "(starting)".to_owned()),
                });
            }
            Err(source) => {
                return Err(ClaimError::Io {
                    path: dir.join("deliver.lock"),
                    source,
                });
            }
        }
    }
}

impl Claim {
    /// Writes the holder's run id into the lock file, for a refused delivery to name.
    pub(crate) fn name(&mut self, run: &str) {
        self.file.say(run);
    }
}
