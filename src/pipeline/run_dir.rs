//! A delivery's run directory, `.dwpipe/runs/<unix-seconds>-<pack8>/`, and what lives in it:
//! `run.json`, the lock and spec, the briefs, the agent's logs, the verification reports, one
//! folder per audit, the stat cache, `ledger.jsonl` and `deliver.json`. Review receipts live
//! beside the runs, in `.dwpipe/reviews/`, because a lock is reviewed once across runs.
//!
//! A run directory holds its records ([`super::seal`]): it is created with them, and
//! picked up again only when they still say the same run (the lock hashes to the pack the run
//! was made for, the ledger's lines follow from one another, the target is the same).

use crate::history::Store;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::diagnostic::Diagnostic;
use crate::hash::sha256_hex;
use crate::input::{MAX_REPORT_BYTES, parse_json, read_text};
use crate::output::{PublishError, WriteError, dir_or_dot, write_atomic};
use crate::pack::{Frozen, LOCK_FILE, SPEC_FILE, load_lock};

use super::ledger::{Entry, Input, Ledger, LedgerError};
use super::seal::{Held, RUN_FILE};
use crate::schema::{RunRecord, RunTarget};

/// Where a project's run folders live, below the folder that holds `dwpipe.yaml`.
pub(crate) const RUNS_FOLDER: &str = ".dwpipe/runs";

/// A run directory.
#[derive(Debug)]
pub(crate) struct RunDir {
    path: PathBuf,
    /// The folder holding `.dwpipe/`.
    base: PathBuf,
    /// Its ledger.
    ledger: Ledger,
    /// The records held by their hashes.
    held: Vec<Held>,
    /// The ledger's lines when the run was picked up again.
    resumed_from: Vec<Entry>,
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
    /// A link was planted where its folder goes.
    #[error(transparent)]
    Planted(#[from] crate::lock_file::LockFileError),
    /// The lock and spec could not be written into it.
    #[error(transparent)]
    Write(#[from] PublishError),
    /// `run.json` could not be written into it.
    #[error(transparent)]
    Record(#[from] WriteError),
    /// The run's own lock does not load.
    #[error("the run's lock is refused")]
    Lock(Vec<Diagnostic>),
    /// `run.json` cannot be read back.
    #[error("the run's `run.json` is refused: {0}")]
    RunRecord(String),
    /// The lock is not the pack the run was made for.
    #[error(
        "the run's lock hashes to {lock}, but the run was made for pack {recorded}: its lock was replaced"
    )]
    PackChanged {
        /// The pack the run's records name.
        recorded: String,
        /// What the lock hashes to now.
        lock: String,
    },
    /// The run is asked to measure somewhere else than it did.
    #[error("the run measures on {recorded}, not on {now}")]
    OtherTarget {
        /// Where it measured.
        recorded: Box<RunTarget>,
        /// Where it was asked to go on.
        now: Box<RunTarget>,
    },
    /// Its ledger cannot be read back.
    #[error(transparent)]
    Ledger(#[from] LedgerError),
}

impl RunDir {
    /// A fresh run for `frozen` under `base` (`-2`, `-3`, … for runs started in the same
    /// second: each run owns its folder), with its lock, spec and `run.json` written.
    pub(crate) fn create(
        base: &Path,
        frozen: &Frozen,
        target: RunTarget,
        workspace: &Path,
    ) -> Result<RunDir, RunDirError> {
        let error = |source| RunDirError::Create {
            base: base.to_owned(),
            source,
        };
        let runs = base.join(RUNS_FOLDER);
        // `.dwpipe/runs` is dwpipe's to make: never written through a link planted there.
        crate::lock_file::planted_links(&runs)?;
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
        let record = RunRecord {
            format_version: crate::format::RUN,
            pack_sha256: frozen.lock.sha256.clone(),
            target,
            workspace: workspace.to_owned(),
        };
        let text = record.to_text();
        write_atomic(&path.join(RUN_FILE), text.as_bytes())?;
        let held = [LOCK_FILE, SPEC_FILE, RUN_FILE]
            .into_iter()
            .filter_map(|name| Held::now(&path, name))
            .collect();
        Ok(RunDir {
            ledger: Ledger::start(&path, Some(sha256_hex(text.as_bytes()))),
            path,
            base: base.to_owned(),
            held,
            resumed_from: Vec::new(),
        })
    }

    /// An existing run, with its own lock (evidence is never reused across packs), to go on
    /// measuring on `target`. `base` is the folder holding `.dwpipe/`; by default the one the
    /// run directory sits in. Refused when its records no longer say the same run: a lock of
    /// another pack than `run.json` and the ledger name, a ledger whose lines do not follow
    /// from one another, another target. (A run of the first release has no `run.json`: its
    /// lock is held to its ledger.)
    pub(crate) fn resume(
        path: &Path,
        base: Option<&Path>,
        target: &RunTarget,
    ) -> Result<(RunDir, Frozen), RunDirError> {
        let frozen = load_lock(&path.join(LOCK_FILE)).map_err(RunDirError::Lock)?;
        let lock = frozen.lock.sha256.clone();
        let record_path = path.join(RUN_FILE);
        let record = if record_path.exists() {
            let text = read_text(&record_path, MAX_REPORT_BYTES, "a run record")
                .map_err(|e| RunDirError::RunRecord(crate::diagnostic::chain(&e)))?;
            let record: RunRecord = parse_json(&record_path, &text)
                .map_err(|d| RunDirError::RunRecord(d.described()))?;
            Some((record, sha256_hex(text.as_bytes())))
        } else {
            None
        };
        let (ledger, entries) = Ledger::open(path, record.as_ref().map(|(_, sha)| sha.clone()))?;
        let recorded_packs = record
            .iter()
            .map(|(r, _)| r.pack_sha256.as_str())
            .chain(entries.iter().filter_map(|e| e.input(Input::Pack)));
        for recorded in recorded_packs {
            if recorded != lock {
                return Err(RunDirError::PackChanged {
                    recorded: recorded.to_owned(),
                    lock,
                });
            }
        }
        if let Some((record, _)) = &record
            && record.target != *target
        {
            return Err(RunDirError::OtherTarget {
                recorded: Box::new(record.target.clone()),
                now: Box::new(target.clone()),
            });
        }
        let base = base.map_or_else(
            || dir_or_dot(path.ancestors().nth(3)).to_owned(),
            Path::to_owned,
        );
        let held = [LOCK_FILE, SPEC_FILE, RUN_FILE]
            .into_iter()
            .filter_map(|name| Held::now(path, name))
            .collect();
        Ok((
            RunDir {
                path: path.to_owned(),
                base,
                ledger,
                held,
                resumed_from: entries,
            },
            frozen,
        ))
    }

    /// The run's id: its folder's name.
    pub(crate) fn id(&self) -> String {
        self.path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
    }

    /// The run's ledger.
    pub(crate) fn ledger(&self) -> &Ledger {
        &self.ledger
    }

    /// The ledger's lines when the run was picked up again (none for a fresh run).
    pub(crate) fn resumed_from(&self) -> &[Entry] {
        &self.resumed_from
    }

    /// What changed among the run's records since it wrote or read them: nothing, or each
    /// change in words.
    pub(crate) fn records_changed(&self) -> Vec<String> {
        let mut changed: Vec<String> = self
            .held
            .iter()
            .filter_map(|held| held.changed(&self.path))
            .collect();
        changed.extend(self.ledger.check());
        if !self.path.is_dir() {
            changed.insert(
                0,
                format!("the run directory `{}` is gone", self.path.display()),
            );
        }
        changed
    }

    /// The run directory itself.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Where review reports and their receipts live across runs.
    pub(crate) fn reviews(&self) -> PathBuf {
        self.base.join(".dwpipe").join("reviews")
    }

    /// The project's history: where `config` says (`history:`), else beside its runs
    /// (`.dwpipe/history.sqlite`).
    pub(crate) fn history(&self, config: &crate::config::Config) -> Store {
        default_history(config, &self.base)
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
        crate::text::doc_path(path.strip_prefix(&self.path).unwrap_or(path))
    }
}

/// The project's history when the config names none: beside its runs, in `base/.dwpipe/`.
pub(crate) fn default_history(config: &crate::config::Config, base: &Path) -> Store {
    config
        .history
        .clone()
        .unwrap_or_else(|| crate::history::project_store(base))
}
