//! `ledger.jsonl`: one JSON line per decision (stage, round, the hashes of its inputs, the
//! outcome, how long it took). Never prompt or answer text.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::Serialize;

/// One decision.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct Entry<'a> {
    /// Milliseconds since the Unix epoch.
    pub time_ms: u128,
    /// `review`, `brief`, `agent`, `verify`, `audit`, `deliver`.
    pub stage: &'a str,
    /// The repair round, when the stage has one.
    pub round: Option<u32>,
    /// Hashes of what the decision was made on (`pack`, `workspace`, …).
    pub inputs: BTreeMap<&'a str, String>,
    /// What was decided (`pass`, `revise`, `waived`, `blocked`, …).
    pub outcome: &'a str,
    /// Why, in a few words (never prompt or answer text).
    pub reason: Option<String>,
    /// How long the stage took.
    pub duration_ms: u128,
}

impl<'a> Entry<'a> {
    /// An entry stamped now.
    pub fn new(stage: &'a str, outcome: &'a str, duration: Duration) -> Entry<'a> {
        Entry {
            time_ms: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_millis()),
            stage,
            round: None,
            inputs: BTreeMap::new(),
            outcome,
            reason: None,
            duration_ms: duration.as_millis(),
        }
    }
}

/// Appends one entry to `dir/ledger.jsonl` (a single write of a whole line).
pub fn append(dir: &Path, entry: &Entry<'_>) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut line = serde_json::to_string(entry).map_err(std::io::Error::other)?;
    line.push('\n');
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join("ledger.jsonl"))?
        .write_all(line.as_bytes())
}

/// An entry read back from a ledger.
#[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Recorded {
    /// The stage.
    pub stage: String,
    /// The repair round.
    pub round: Option<u32>,
    /// Hashes of what the decision was made on.
    #[serde(default)]
    pub inputs: BTreeMap<String, String>,
    /// What was decided.
    pub outcome: String,
}

/// Why a ledger cannot be read back.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file cannot be read.
    #[error("cannot read `{}`: {source}", path.display())]
    Io {
        /// The ledger.
        path: std::path::PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A line is not a ledger entry.
    #[error("{}:{line}: not a ledger entry: {message}", path.display())]
    Malformed {
        /// The ledger.
        path: std::path::PathBuf,
        /// 1-based line.
        line: usize,
        /// What the parser said.
        message: String,
    },
}

/// Reads `dir/ledger.jsonl` back, in order. A last line cut short by a crash mid-write is
/// dropped (every complete line ends with a newline); any other bad line is an error.
pub fn read(dir: &Path) -> Result<Vec<Recorded>, ReadError> {
    let path = dir.join("ledger.jsonl");
    let bytes = crate::input::read_bounded(&path, 64 * 1024 * 1024, "a ledger").map_err(|e| {
        ReadError::Io {
            path: path.clone(),
            source: std::io::Error::other(e.to_string()),
        }
    })?;
    let text = String::from_utf8_lossy(&bytes);
    let complete = match text.rfind('\n') {
        Some(end) => &text[..end],
        None => "",
    };
    complete
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(index, line)| {
            serde_json::from_str(line).map_err(|e| ReadError::Malformed {
                path: path.clone(),
                line: index + 1,
                message: e.to_string(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_read_back_in_order_and_a_torn_last_line_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let mut entry = Entry::new("verify", "fail", Duration::from_millis(5));
        entry.round = Some(1);
        entry.inputs.insert("failure", "ab".repeat(32));
        append(dir.path(), &entry).unwrap();
        append(dir.path(), &Entry::new("agent", "exited 0", Duration::ZERO)).unwrap();
        let ledger = dir.path().join("ledger.jsonl");
        let mut text = std::fs::read_to_string(&ledger).unwrap();
        text.push_str("{\"stage\":\"aud");
        std::fs::write(&ledger, &text).unwrap();
        let back = read(dir.path()).unwrap();
        assert_eq!(back.len(), 2);
        assert_eq!(
            (
                back[0].stage.as_str(),
                back[0].round,
                back[0].outcome.as_str()
            ),
            ("verify", Some(1), "fail")
        );
        assert_eq!(back[0].inputs["failure"], "ab".repeat(32));
        assert_eq!(back[1].round, None);

        std::fs::write(&ledger, "{\"stage\":\"agent\"}\nnot json\n").unwrap();
        let error = read(dir.path()).unwrap_err().to_string();
        assert!(
            error.ends_with(
                "ledger.jsonl:1: not a ledger entry: missing field `outcome` at line 1 column 17"
            ),
            "{error}"
        );
    }
}
