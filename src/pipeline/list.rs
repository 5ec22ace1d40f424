//! `dwpipe runs`: the run folders under `.dwpipe/runs`, newest first, each with its id (the
//! folder name `--resume` takes), when it started, its pack, how it ended and the report to
//! open.

use std::path::Path;

use serde::Deserialize;

use crate::input::{MAX_REPORT_BYTES, read_bounded};
use crate::schema::RunListing;

use super::RUNS_FOLDER;

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case")]
struct Ended {
    terminal_reason: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case")]
struct Began {
    pack_sha256: String,
}

/// The runs under `base/.dwpipe/runs`, newest first (none when there is no such folder).
pub(crate) fn list(base: &Path) -> std::io::Result<Vec<RunListing>> {
    let folder = base.join(RUNS_FOLDER);
    let entries = match std::fs::read_dir(&folder) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut runs = Vec::new();
    for entry in entries {
        let entry = entry?;
        if !entry.file_type()?.is_dir() {
            continue;
        }
        let id = entry.file_name().to_string_lossy().into_owned();
        let read = |name: &str| {
            read_bounded(&entry.path().join(name), MAX_REPORT_BYTES, "a run record").ok()
        };
        let began: Option<Began> =
            read(super::seal::RUN_FILE).and_then(|b| serde_json::from_slice(&b).ok());
        let ended: Option<Ended> =
            read(crate::schema::files::DELIVER).and_then(|b| serde_json::from_slice(&b).ok());
        let started = id
            .split('-')
            .next()
            .and_then(|s| s.parse::<u64>().ok())
            .map(crate::time::iso8601);
        let report = ended
            .as_ref()
            .map(|_| crate::schema::page_to_open().to_owned());
        runs.push(RunListing {
            id,
            started,
            pack_sha256: began.map(|b| b.pack_sha256),
            terminal_reason: ended.map(|e| e.terminal_reason),
            report,
        });
    }
    runs.sort_by(|a, b| b.id.cmp(&a.id));
    Ok(runs)
}
