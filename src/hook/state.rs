//! An agent session's rounds, as the stop hook keeps them between its calls:
//! `.dwpipe/hooks/<harness>-<session>.json` beside the runs, written whole (atomically) after
//! each stop. A loop is the rounds since the agent was last let stop: a new stop after that
//! begins a new one, whatever the harness says about itself.
//!
//! The record sits where the agent being gated can write, so it only counts: nothing in it
//! is a verdict (each stop runs the gate again), and a record that cannot be read is never a
//! reason to let the agent stop. One stop of a session is answered at a time (its turn is a
//! lock file beside the record): stops that come together are counted one after another.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::input::{MAX_REPORT_BYTES, ReadError, read_text};
use crate::output::{WriteError, write_atomic};

use super::words::{Harness, Said};
use crate::schema::Claim;

/// One stop and what the hook made of it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct Round {
    /// The gate's run folder (its id), when one ran.
    pub(crate) run: Option<String>,
    /// The harness said the agent was already continuing because of a stop hook.
    pub(crate) continuing: bool,
    /// How the gate's run ended (`verified`, `audit_failed`, …), or why none ran.
    pub(crate) verdict: String,
    /// The failure's fingerprint, when the gate failed.
    pub(crate) failure: Option<String>,
    /// What the hook answered.
    pub(crate) said: Said,
    /// What the agent claimed, when the harness passed its last message: a claim only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) claim: Option<Claim>,
    /// The SHA-256 of the lock the gate held the change against: a pack that changes within
    /// a loop is not the one the agent was given (optional, no format change).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) pack: Option<String>,
}

/// The record of one agent session.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct Session {
    format_version: u32,
    harness: Harness,
    session: String,
    /// Every stop, oldest first.
    pub(crate) rounds: Vec<Round>,
}

/// The record cannot be used.
#[derive(Debug, thiserror::Error)]
pub(crate) enum StateError {
    /// It cannot be read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// It is not the hook's record.
    #[error("{}: not a stop hook's record ({why}); delete it to start the session's count again", path.display())]
    Malformed {
        /// The file.
        path: PathBuf,
        /// Why.
        why: String,
    },
    /// A newer dwpipe wrote it.
    #[error("{}: format-version {version} is newer than this dwpipe reads ({}); upgrade dwpipe", path.display(), crate::format::HOOK)]
    Newer {
        /// The file.
        path: PathBuf,
        /// Its version.
        version: u32,
    },
    /// It cannot be written.
    #[error(transparent)]
    Write(#[from] WriteError),
    /// Its turn (the lock file beside it) cannot be had.
    #[error(transparent)]
    Turn(#[from] crate::lock_file::LockFileError),
    /// Another stop of the session held its turn for longer than this one would wait.
    #[error("another stop of this session is still being answered after {}s", waited.as_secs())]
    Busy {
        /// How long this one waited.
        waited: Duration,
    },
}

/// A session's turn: held while one stop is answered.
#[derive(Debug)]
pub(crate) struct Turn {
    /// Held for its lock, released on drop.
    _lock: crate::lock_file::LockFile,
}

/// How often a stop that waits for its session's turn asks again.
const TURN_RETRY: Duration = Duration::from_millis(100);

impl Session {
    /// Where the record of `session` lives under `base` (the folder holding `.dwpipe/`).
    pub(crate) fn path(base: &Path, harness: Harness, session: &str) -> PathBuf {
        base.join(".dwpipe/hooks")
            .join(format!("{harness}-{session}.json"))
    }

    /// Waits (up to `wait`) for the turn of the session whose record is at `path`: the other
    /// stops of the session are answered first.
    pub(crate) fn turn(path: &Path, wait: Duration) -> Result<Turn, StateError> {
        let dir = crate::output::dir_or_dot(path.parent());
        let folder = crate::lock_file::folder(dir, false)?;
        let name = format!(
            "{}.lock",
            path.file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
        );
        let file = crate::lock_file::LockFile::open(&folder, &name)?;
        let started = Instant::now();
        loop {
            match file.try_lock() {
                Ok(true) => return Ok(Turn { _lock: file }),
                Ok(false) if started.elapsed() < wait => std::thread::sleep(TURN_RETRY),
                Ok(false) => {
                    return Err(StateError::Busy {
                        waited: started.elapsed(),
                    });
                }
                Err(source) => {
                    return Err(StateError::Read(ReadError::Io {
                        path: folder.join(name),
                        source,
                    }));
                }
            }
        }
    }

    /// The record at `path`, or a new one.
    pub(crate) fn load(
        path: &Path,
        harness: Harness,
        session: &str,
    ) -> Result<Session, StateError> {
        // Not there at all (a link to nowhere is there): a new session.
        if std::fs::symlink_metadata(path).is_err() {
            return Ok(Session {
                format_version: crate::format::HOOK,
                harness,
                session: session.to_owned(),
                rounds: Vec::new(),
            });
        }
        let malformed = |why: String| StateError::Malformed {
            path: path.to_owned(),
            why,
        };
        // dwpipe writes the record itself: a link in its place is someone else's, and what it
        // leads to is never read.
        if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(malformed(
                "it is a symbolic link, which dwpipe never writes".to_owned(),
            ));
        }
        let text = read_text(path, MAX_REPORT_BYTES, "a stop hook's record")?;
        let version: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| malformed(e.to_string()))?;
        match version["format-version"].as_u64() {
            Some(v) if v > u64::from(crate::format::HOOK) => {
                return Err(StateError::Newer {
                    path: path.to_owned(),
                    version: u32::try_from(v).unwrap_or(u32::MAX),
                });
            }
            Some(_) => {}
            None => return Err(malformed("no format-version".to_owned())),
        }
        let record: Session = serde_json::from_str(&text).map_err(|e| malformed(e.to_string()))?;
        if record.harness != harness || record.session != session {
            return Err(malformed(format!(
                "it is the record of {} session {}",
                record.harness, record.session
            )));
        }
        Ok(record)
    }

    /// This loop's rounds: those since the agent was last let stop.
    pub(crate) fn this_loop(&self) -> &[Round] {
        let start = self
            .rounds
            .iter()
            .rposition(|r| r.said.lets_stop())
            .map_or(0, |i| i + 1);
        &self.rounds[start..]
    }

    /// Writes the record whole (its folder made if need be).
    pub(crate) fn save(&self, path: &Path) -> Result<(), StateError> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|source| WriteError {
                path: dir.to_owned(),
                source,
            })?;
        }
        let text = serde_json::to_string_pretty(self).unwrap_or_default();
        Ok(write_atomic(path, text.as_bytes())?)
    }
}

#[cfg(test)]
mod tests;
