//! One delivery per workspace at a time: an advisory lock on `<workspace>/.dwpipe/deliver.lock`
//! for the whole delivery, holding the run's id. The kernel releases it when its holder dies,
//! so a crashed run leaves no stale lock; a second delivery is refused at once, naming the run
//! that holds the workspace (else it would be credited with that run's edits).

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

/// The workspace's claim, held while it lives.
#[derive(Debug)]
pub(crate) struct Claim {
    file: File,
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
    /// The lock file cannot be opened.
    #[error("cannot lock `{}`", path.display())]
    Io {
        /// The lock file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

/// Claims `workspace` for a delivery.
pub(crate) fn claim(workspace: &Path) -> Result<Claim, ClaimError> {
    let dir = workspace.join(".dwpipe");
    let path = dir.join("deliver.lock");
    let io = |source| ClaimError::Io {
        path: path.clone(),
        source,
    };
    std::fs::create_dir_all(&dir).map_err(io)?;
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(io)?;
    match file.try_lock() {
        Ok(()) => Ok(Claim { file }),
        Err(TryLockError::WouldBlock) => {
            let mut run = String::new();
            let _ = file.read_to_string(&mut run);
            let run = run.trim();
            Err(ClaimError::Busy {
                workspace: workspace.to_owned(),
                run: if run.is_empty() {
                    "(starting)".to_owned()
                } else {
                    run.to_owned()
                },
            })
        }
        Err(TryLockError::Error(source)) => Err(io(source)),
    }
}

impl Claim {
    /// Writes the holder's run id into the lock file, for a refused delivery to name.
    pub(crate) fn name(&mut self, run: &str) {
        // Only a courtesy to the refused: a failure to write it changes nothing.
        let _ = self.file.set_len(0);
        let _ = self.file.rewind();
        let _ = writeln!(self.file, "{run}");
    }
}
