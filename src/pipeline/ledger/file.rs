//! The ledger's file: lines appended whole, each chained to the one before; read back with
//! the chain checked; and every line written or read held in memory, so a run can tell when
//! its ledger changed under it.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::hash::sha256_hex;
use crate::input::{MAX_REPORT_BYTES, ReadError, read_bounded};

use super::Entry;

/// The ledger could not be appended to.
#[derive(Debug, thiserror::Error)]
#[error("cannot append to the ledger `{}`", path.display())]
pub(crate) struct AppendError {
    /// The ledger.
    pub(crate) path: PathBuf,
    /// The cause.
    #[source]
    pub(crate) source: std::io::Error,
}

/// Why a ledger cannot be read back.
#[derive(Debug, thiserror::Error)]
pub(crate) enum LedgerError {
    /// The file cannot be read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// A line is not a ledger entry.
    #[error("{}:{line}: not a ledger entry: {message}", path.display())]
    Malformed {
        /// The ledger.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// What the parser said.
        message: String,
    },
    /// A line does not follow from the one before (or, the first, from `run.json`): lines
    /// were removed, reordered or edited.
    #[error("{}:{line}: the chain of lines is broken here: {message}", path.display())]
    Chain {
        /// The ledger.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// How.
        message: String,
    },
}

/// The ledger's file in a folder.
pub(crate) fn ledger_path(dir: &Path) -> PathBuf {
    dir.join("ledger.jsonl")
}

/// A ledger being written. Every line it wrote or read back is held in memory, so the file
/// can be checked for lines lost or changed under the run ([`Ledger::check`]), and each new
/// line carries the hash of the one before.
#[derive(Debug)]
pub(crate) struct Ledger {
    path: PathBuf,
    held: Mutex<Held>,
}

#[derive(Debug)]
struct Held {
    /// The file's bytes as this ledger knows them.
    bytes: Vec<u8>,
    /// The hash the next line chains to.
    last: Option<String>,
}

impl Ledger {
    /// A new ledger in `dir`, its first line chained to `anchor` (the hash of `run.json`).
    pub(crate) fn start(dir: &Path, anchor: Option<String>) -> Ledger {
        Ledger {
            path: ledger_path(dir),
            held: Mutex::new(Held {
                bytes: Vec::new(),
                last: anchor,
            }),
        }
    }

    /// The ledger in `dir` as it is (none yet is an empty one), its chain checked from
    /// `anchor`, with its entries. A last line cut short by a crash mid-write is dropped
    /// (every complete line ends with a newline), and cut from the file so the next line
    /// starts clean; any other bad line is an error.
    pub(crate) fn open(
        dir: &Path,
        anchor: Option<String>,
    ) -> Result<(Ledger, Vec<Entry>), LedgerError> {
        let path = ledger_path(dir);
        if !path.exists() {
            return Ok((Ledger::start(dir, anchor), Vec::new()));
        }
        let bytes = read_bounded(&path, MAX_REPORT_BYTES, "a ledger")?;
        let complete = bytes
            .iter()
            .rposition(|b| *b == b'\n')
            .map_or(0, |end| end + 1);
        if complete < bytes.len() {
            let _ = std::fs::OpenOptions::new()
                .write(true)
                .open(&path)
                .and_then(|f| f.set_len(complete as u64));
        }
        let bytes = bytes[..complete].to_vec();
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let mut entries = Vec::new();
        let mut last = anchor;
        let mut chained = false;
        for (index, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let at = index + 1;
            let entry: Entry = serde_json::from_str(line).map_err(|e| LedgerError::Malformed {
                path: path.clone(),
                line: at,
                message: e.to_string(),
            })?;
            let broken = |message: String| LedgerError::Chain {
                path: path.clone(),
                line: at,
                message,
            };
            match (&entry.prev, chained) {
                (Some(prev), _) if Some(prev) != last.as_ref() => {
                    return Err(broken(match &last {
                        Some(_) if index == 0 => "it does not follow from run.json".to_owned(),
                        Some(_) => "it does not follow from the line before".to_owned(),
                        None => "it follows from a run.json that is not there".to_owned(),
                    }));
                }
                (Some(_), _) => chained = true,
                (None, true) => {
                    return Err(broken(
                        "a line without its link after linked ones".to_owned(),
                    ));
                }
                (None, false) => {}
            }
            last = Some(sha256_hex(line.as_bytes()));
            entries.push(entry);
        }
        let ledger = Ledger {
            path,
            held: Mutex::new(Held { bytes, last }),
        };
        Ok((ledger, entries))
    }

    fn held(&self) -> std::sync::MutexGuard<'_, Held> {
        // A panic elsewhere cannot leave it half-updated: both fields change together below.
        self.held
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Appends one entry, chained to the line before (a single write of a whole line).
    pub(crate) fn append(&self, entry: &Entry) -> Result<(), AppendError> {
        let error = |source| AppendError {
            path: self.path.clone(),
            source,
        };
        let mut held = self.held();
        let mut entry = entry.clone();
        entry.prev.clone_from(&held.last);
        let line = serde_json::to_string(&entry).expect("a ledger entry serializes");
        std::fs::create_dir_all(crate::output::dir_or_dot(self.path.parent())).map_err(error)?;
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
            .and_then(|mut file| file.write_all(format!("{line}\n").as_bytes()))
            .map_err(error)?;
        held.last = Some(sha256_hex(line.as_bytes()));
        held.bytes.extend_from_slice(line.as_bytes());
        held.bytes.push(b'\n');
        Ok(())
    }

    /// What happened to the file under the run, if anything: gone, or no longer holding
    /// every line written and read (more lines after them are fine: a tool may append).
    pub(crate) fn check(&self) -> Option<String> {
        let held = self.held();
        match read_bounded(&self.path, MAX_REPORT_BYTES, "a ledger") {
            Err(_) if held.bytes.is_empty() => None,
            Err(ReadError::Io { .. }) => Some("ledger.jsonl is gone".to_owned()),
            Err(_) => {
                Some("ledger.jsonl was replaced by something that is not a ledger".to_owned())
            }
            Ok(bytes) if bytes.starts_with(&held.bytes) => None,
            Ok(_) => Some("ledger.jsonl lost or changed lines it held".to_owned()),
        }
    }
}

#[cfg(test)]
mod tests;
