//! Where each fake device stands between invocations, kept in files: its place in its
//! transcript, what is installed, whether it vanished, a phone tool's place.
//!
//! By default the state belongs to one run: every hdc call of a dwpipe run is a child of that
//! run's process, so the folder is named after the parent (its pid and start time) and a second
//! run starts every device from its first recorded reply. A folder named by
//! `DWPIPE_FAKE_HDC_STATE` is shared by every run that names it (a resumed delivery continues
//! where the first run left the device); a run that finds another run's places there is told
//! so when a device has nothing left to answer.

use crate::parent::{self, start_time};
use std::path::{Path, PathBuf};

/// The folder under the temporary folder that holds the per-run states.
const RUNS: &str = "dwpipe-fake-hdc";

/// The file of a shared state folder naming the run that last moved a device.
const LAST_RUN: &str = "last-run";

/// Where one device stands in its transcript, kept in files between invocations.
pub(super) struct State {
    pub(super) dir: PathBuf,
    serial: String,
    /// In a shared folder: this call's run, written beside the places it moves.
    shared_by: Option<String>,
    /// Another run's places are in the (shared) folder: which run, when this call's differs.
    earlier_run: Option<String>,
}

impl State {
    pub(crate) fn of(serial: &str) -> State {
        let run = caller();
        let (dir, earlier_run, shared_by) = match std::env::var_os("DWPIPE_FAKE_HDC_STATE") {
            Some(shared) => {
                let dir = PathBuf::from(shared);
                let last = std::fs::read_to_string(dir.join(LAST_RUN)).ok();
                let earlier = last.filter(|last| last.trim() != run);
                (dir, earlier, Some(run))
            }
            None => (per_run(&run), None, None),
        };
        let _ = std::fs::create_dir_all(&dir);
        State {
            dir,
            serial: serial.replace([':', '/'], "_"),
            shared_by,
            earlier_run,
        }
    }

    /// What to add to a reply that found nothing left to answer: that the places it started
    /// from were another run's.
    pub(crate) fn stale(&self) -> Option<String> {
        let earlier = self.earlier_run.as_deref()?;
        Some(format!(
            "this device's place in {} was left by an earlier run (process {}): remove the folder, or leave DWPIPE_FAKE_HDC_STATE unset for a state of each run's own",
            self.dir.display(),
            earlier.trim()
        ))
    }

    pub(crate) fn file(&self, what: &str) -> PathBuf {
        self.dir.join(format!("{}.{what}", self.serial))
    }

    /// The next exchange of the device's transcript (`key`: `next`), or of one build's
    /// capture (`<hap>.next`).
    pub(crate) fn next(&self, key: &str) -> usize {
        std::fs::read_to_string(self.file(key))
            .ok()
            .and_then(|t| t.trim().parse().ok())
            .unwrap_or(0)
    }

    pub(crate) fn advance(&self, key: &str, to: usize) {
        let _ = std::fs::write(self.file(key), to.to_string());
        if let Some(run) = &self.shared_by {
            let _ = std::fs::write(self.dir.join(LAST_RUN), run);
        }
    }

    /// Held while a phone tool finds and takes its place: a line's commands run side by side.
    pub(crate) fn lock(&self) -> std::io::Result<std::fs::File> {
        let file = std::fs::File::create(self.file("lock"))?;
        file.lock()?;
        Ok(file)
    }

    /// Where a phone tool's capture (`key`) stands: its current exchange and which of that
    /// line's commands were answered.
    pub(crate) fn place(&self, key: &str) -> Place {
        let text = std::fs::read_to_string(self.file(&format!("{key}.place"))).unwrap_or_default();
        let mut numbers = text.split_whitespace().filter_map(|n| n.parse().ok());
        Place {
            current: numbers.next(),
            served: numbers.collect(),
        }
    }

    pub(crate) fn keep_place(&self, key: &str, place: &Place) {
        let text: Vec<String> = place
            .current
            .iter()
            .chain(&place.served)
            .map(ToString::to_string)
            .collect();
        let text = text.join(" ");
        let _ = std::fs::write(self.file(&format!("{key}.place")), text);
    }

    pub(crate) fn vanished(&self) -> bool {
        self.file("vanished").exists()
    }

    pub(crate) fn vanish(&self) {
        let _ = std::fs::write(self.file("vanished"), "");
    }
}

/// Where a phone tool's capture stands (see `State::place`).
pub(super) struct Place {
    pub(super) current: Option<usize>,
    pub(super) served: Vec<usize>,
}

/// The run this call belongs to: its parent process, as `PID-STARTTIME` (a pid is reused; a
/// pid with its start time is not).
fn caller() -> String {
    let parent = parent::parent_id();
    format!("{parent}-{}", start_time(parent).unwrap_or_default())
}

/// The state folder of run `run`, made fresh; the folders of runs that ended are removed.
fn per_run(run: &str) -> PathBuf {
    let runs = std::env::temp_dir().join(RUNS);
    let dir = runs.join(format!("run-{run}"));
    if !dir.exists() {
        remove_ended(&runs);
    }
    dir
}

/// Removes the state folders of runs whose process is gone (or is another process now).
fn remove_ended(runs: &Path) {
    let Ok(entries) = std::fs::read_dir(runs) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some((pid, started)) = name
            .strip_prefix("run-")
            .and_then(|run| run.split_once('-'))
        else {
            continue;
        };
        let alive = pid
            .parse()
            .ok()
            .and_then(start_time)
            .is_some_and(|now| now.to_string() == started);
        if !alive {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}
