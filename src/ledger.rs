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
