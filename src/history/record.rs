//! Putting reports into the history: an audit or a comparison read back from the file it was
//! published to (so that what is recorded is what is on disk, hashed), the run folders of
//! `dwpipe history import`, and the trend of every criterion an audit's page draws.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use crate::audit::{Trend, TrendPoint};
use crate::diagnostic::{Diagnostic, chain};
use crate::hash::sha256_hex;
use crate::input::{MAX_REPORT_BYTES, read_bounded, top_level_keys};
use crate::output::dir_or_dot;
use crate::schema::{AbRecord, Arm, AuditReport, Comparison, Imported, files};

use super::changes::changes;
use super::{Filter, History, HistoryError, RunFacts, Store, VerdictBy};

mod trust;
pub(crate) use trust::app_of;
use trust::{
    Apps, Trust, checked, checked_ab, checked_comparison, frozen_in, lock_of, source_as_kept,
};

/// Why a report was not recorded: the history failed, or the report is not one to record.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RecordError {
    /// The history could not be opened, read or written.
    #[error(transparent)]
    History(#[from] HistoryError),
    /// The report cannot be read or recorded as it is.
    #[error("{}", .0.message)]
    Report(Diagnostic),
}

impl From<Diagnostic> for RecordError {
    fn from(diagnostic: Diagnostic) -> RecordError {
        RecordError::Report(diagnostic)
    }
}

/// Points a trend draws at most (the latest).
const TREND_POINTS: usize = 60;

/// Where audits are recorded, with what a delivery knows of the build.
#[derive(Clone, Debug)]
pub(crate) struct Recorder {
    /// The history.
    pub(crate) store: Store,
    /// The app's version, when known.
    pub(crate) app_version: Option<String>,
    /// The workspace's commit, when known.
    pub(crate) commit: Option<String>,
}

/// A report file: an audit or a comparison.
enum Document {
    Audit(Box<AuditReport>),
    Comparison(Box<Comparison>),
}

/// A report read and checked, with where it is and the SHA-256 of its bytes (an audit with
/// what is known of its run): what is written into the history.
enum Ready {
    Audit(Box<AuditReport>, PathBuf, String, RunFacts),
    Comparison(Box<Comparison>, PathBuf, String),
}

impl Ready {
    /// Writes it into `history`; `false` when the history had it.
    fn write(self, history: &mut History) -> Result<bool, HistoryError> {
        match self {
            Ready::Audit(report, path, sha256, facts) => {
                history.record_audit(&report, (&path, &sha256), &facts)
            }
            Ready::Comparison(comparison, path, sha256) => {
                history.record_comparison(&comparison, (&path, &sha256))
            }
        }
    }
}

impl Recorder {
    /// A recorder into `store` that knows nothing of the build.
    pub(crate) fn at(store: &Store) -> Recorder {
        Recorder {
            store: store.clone(),
            app_version: None,
            commit: None,
        }
    }

    /// Opens (creating, migrating) the history, to find out before any work that it can be
    /// used; closed again.
    pub(crate) fn prepare(&self) -> Result<(), HistoryError> {
        let history = History::open(&self.store)?;
        // SQLite opens a file it may not write read-only, without a word: asked here, so
        // that the audit is not the first to find out.
        if history.read_only() {
            return Err(HistoryError::ReadOnly {
                at: self.store.to_string(),
            });
        }
        Ok(())
    }

    /// Records the report published at `path` (an audit, with its A/B `arm` if any, or a
    /// comparison); `false` when the history had it.
    pub(crate) fn record(
        &self,
        path: &Path,
        arm: Option<&'static str>,
    ) -> Result<bool, RecordError> {
        // This dwpipe's own report, just written: its verdict is the one this dwpipe reached.
        let ready = self.ready(path, arm, &mut Apps::new(), Trust::Measured)?;
        let mut history = History::open(&self.store)?;
        Ok(ready.write(&mut history)?)
    }

    /// The report at `path`, read and checked, with what is known of its run: ready to be
    /// written (as an `arm`). `apps` remembers the lock of every path read so far (an import
    /// of a lab's runs reads each lock once). An audit another dwpipe made is `Trust::Checked`
    /// first: rebuilt from its evidence as `verify-evidence` does, or, its evidence absent,
    /// re-gated from its own readings; a report whose verdict is not what they give is
    /// refused, never recorded at its word.
    fn ready(
        &self,
        path: &Path,
        arm: Option<&'static str>,
        apps: &mut Apps,
        trust: Trust,
    ) -> Result<Ready, Diagnostic> {
        let (document, sha256) = read(path)?;
        let report = match document {
            Document::Comparison(comparison) => {
                if trust == Trust::Checked {
                    checked_comparison(path, &comparison)?;
                }
                return Ok(Ready::Comparison(comparison, path.to_owned(), sha256));
            }
            Document::Audit(report) => report,
        };
        source_as_kept(&report, path)?;
        // The audit's time is when it started; a report before format 3 did not say, and its
        // file's time stands in.
        let time = report
            .started
            .as_deref()
            .and_then(crate::time::parse_iso8601)
            .or_else(|| modified(path));
        let lock = lock_of(&report, path)?;
        let frozen = match apps.entry(lock) {
            std::collections::hash_map::Entry::Occupied(known) => known.into_mut(),
            std::collections::hash_map::Entry::Vacant(new) => {
                let frozen = frozen_in(new.key(), path)?;
                new.insert(frozen)
            }
        };
        let app = frozen.pack.doc.app.bundle.value.clone();
        let verdict_by = match trust {
            Trust::Measured => VerdictBy::Measured,
            Trust::Checked => checked(path, &report, frozen)?,
        };
        let facts = RunFacts {
            app,
            app_version: self.app_version.clone(),
            // An imported audit of a delivery names its commit itself.
            commit: self
                .commit
                .clone()
                .or_else(|| report.workspace.as_ref().and_then(|w| w.commit.clone())),
            arm,
            time,
            verdict_by,
        };
        Ok(Ready::Audit(report, path.to_owned(), sha256, facts))
    }

    /// Records every report under `paths` (files, or folders searched for `audit-<n>.json` and
    /// `compare.json`; an A/B session's `ab.json` names its arms), or whole SQLite histories
    /// (every audit and comparison copied as recorded), each audit at the time it
    /// started (its file's time for a report before format 3). A report that cannot be
    /// recorded is named with why, and the others are recorded all the same; a history that
    /// did not exist is created only when a report is recorded into it.
    pub(crate) fn import(&self, paths: &[PathBuf]) -> Result<Imported, RecordError> {
        let mut reports = Vec::new();
        let mut arms: HashMap<PathBuf, &'static str> = HashMap::new();
        let mut imported = Imported::default();
        let mut histories = Vec::new();
        for path in paths {
            if path.is_file() && super::copy::is_sqlite(path) {
                histories.push(path);
                continue;
            }
            if !path.is_dir() {
                reports.push(path.clone());
                continue;
            }
            for entry in walkdir::WalkDir::new(path).sort_by_file_name() {
                let entry = entry.map_err(|e| {
                    Diagnostic::error("E_HISTORY_IMPORT", format!("`{}`: {e}", path.display()))
                        .fix("pass run folders or report files dwpipe wrote")
                })?;
                let name = entry.file_name().to_string_lossy();
                let report_like =
                    files::is_audit(&name) || name == files::COMPARISON || name == files::AB;
                if entry.file_type().is_symlink() && report_like {
                    // Not followed (it may lead anywhere), and not passed over in silence.
                    let to = std::fs::read_link(entry.path())
                        .map(|t| format!(" to `{}`", t.display()))
                        .unwrap_or_default();
                    imported.refuse(
                        entry.path(),
                        format!("it is a symbolic link{to}: import reads reports where dwpipe wrote them, never through a link"),
                    );
                    continue;
                }
                if !entry.file_type().is_file() {
                    continue;
                }
                if files::is_audit(&name) || name == files::COMPARISON {
                    reports.push(entry.into_path());
                } else if name == files::AB {
                    match ab_arms(entry.path()) {
                        Ok(found) => arms.extend(found),
                        Err(why) => imported.refuse(entry.path(), why),
                    }
                }
            }
        }
        // Audits before the comparisons of them.
        reports.sort_by_key(|path| path.ends_with(files::COMPARISON));
        // Opened at the first report that can be recorded: an import that records nothing
        // leaves no empty history behind to read as "0 measurements".
        let mut history: Option<History> = None;
        let mut apps = Apps::new();
        for file in &reports {
            let arm = std::fs::canonicalize(file)
                .ok()
                .and_then(|real| arms.get(&real).copied());
            let ready = match self.ready(file, arm, &mut apps, Trust::Checked) {
                Ok(ready) => ready,
                Err(why) => {
                    imported.refuse(file, why.message);
                    continue;
                }
            };
            let history = match &mut history {
                Some(history) => history,
                None => history.insert(History::open(&self.store)?),
            };
            let unverified = matches!(
                &ready,
                Ready::Audit(_, _, _, facts) if facts.verdict_by == VerdictBy::Readings
            );
            // A report the store cannot hold is named and passed over; the history itself
            // failing ends the import: what is recorded stays.
            match ready.write(history) {
                Ok(false) => imported.known += 1,
                Ok(true) if file.ends_with(files::COMPARISON) => imported.comparisons += 1,
                Ok(true) => {
                    imported.audits += 1;
                    imported.unverified += usize::from(unverified);
                }
                Err(e @ HistoryError::SameRun { .. }) => imported.refuse(file, chain(&e)),
                Err(e) if e.refuses_the_report() => {
                    imported.refuse(file, format!("the history cannot hold it: {}", chain(&e)));
                }
                Err(e) => return Err(e.into()),
            }
        }
        for file in histories {
            let same = self.store.file().is_some_and(|into| {
                std::fs::canonicalize(into).ok() == std::fs::canonicalize(file).ok()
            });
            if same {
                imported.refuse(file, "it is the history being imported into".to_owned());
                continue;
            }
            let mut from = History::open(&Store::Sqlite(file.clone()))?;
            let history = match &mut history {
                Some(history) => history,
                None => history.insert(History::open(&self.store)?),
            };
            from.copy_into(history, &mut imported)?;
        }
        Ok(imported)
    }

    /// Every numeric criterion of `report` over the history of its device model, the report
    /// itself the last point, with the change points found.
    pub(crate) fn trends(
        &self,
        report: &AuditReport,
    ) -> Result<BTreeMap<String, Trend>, HistoryError> {
        let Some(device) = &report.device else {
            return Ok(BTreeMap::new());
        };
        let mut history = History::open(&self.store)?;
        let mut trends = BTreeMap::new();
        for entry in &report.checks {
            let Some(current) = entry
                .measurements
                .first()
                .and_then(|m| Some((m, m.value.as_ref()?.as_number()?)))
            else {
                continue;
            };
            // One device's series: its own audits (a replay of its capture among them, marked),
            // never an A/B arm, whose two builds alternate. A lab's other devices, measured
            // side by side, would read as this criterion moving over time, and feed change
            // points that are not.
            let filter = Filter {
                criterion: Some(entry.check.criterion_id.clone()),
                model: device.model.clone(),
                serial: Some(device.serial.clone()),
                since: None,
                latest: Some(TREND_POINTS * 2),
            };
            let replay = report
                .source
                .as_ref()
                .is_some_and(crate::device::Source::is_replay);
            let mut points: Vec<TrendPoint> = history
                .series(&filter)?
                .into_iter()
                .filter(|p| p.arm.is_none())
                .filter_map(|p| {
                    Some(TrendPoint {
                        label: p.recorded_at,
                        value: p.value?,
                        current: false,
                        report: Some(p.report),
                        commit: p.commit,
                        replay: p.replay,
                        arm: p.arm,
                        serial: p.serial,
                        run: Some(p.run),
                        verdict: p.verdict,
                    })
                })
                .collect();
            let mut points = points.split_off(points.len().saturating_sub(TREND_POINTS - 1));
            points.push(TrendPoint {
                label: "this audit".to_owned(),
                value: current.1,
                current: true,
                report: None,
                commit: report.workspace.as_ref().and_then(|w| w.commit.clone()),
                replay,
                arm: None,
                serial: device.serial.clone(),
                run: None,
                verdict: entry.check.result.as_str().to_owned(),
            });
            let values: Vec<f64> = points.iter().map(|p| p.value).collect();
            trends.insert(
                entry.check.criterion_id.clone(),
                Trend {
                    serial: device.serial.clone(),
                    unit: current.0.unit.clone(),
                    changes: changes(&values).into_iter().map(|c| c.index).collect(),
                    points,
                },
            );
        }
        Ok(trends)
    }
}

/// The report at `path`, read straight into its typed shape (never through a generic JSON
/// value, which a file of many small values would multiply in memory), and the SHA-256 of its
/// bytes.
fn read(path: &Path) -> Result<(Document, String), Diagnostic> {
    let fix = "pass an audit-<n>.json or compare.json written by dwpipe, or a run folder";
    let bytes = read_bounded(path, MAX_REPORT_BYTES, "a report")
        .map_err(|e| e.diagnostic("E_HISTORY_IMPORT", fix))?;
    let sha256 = sha256_hex(&bytes);
    let invalid = |message: String| Diagnostic::error("E_HISTORY_IMPORT", message).fix(fix);
    let keys = top_level_keys(&bytes)
        .map_err(|e| invalid(format!("`{}` is not a JSON object: {e}", path.display())))?;
    let document = if keys.iter().any(|k| k == "checks") {
        serde_json::from_slice(&bytes).map(|r| Document::Audit(Box::new(r)))
    } else {
        serde_json::from_slice(&bytes).map(|c| Document::Comparison(Box::new(c)))
    }
    .map_err(|e| {
        invalid(format!(
            "`{}` is neither an audit nor a comparison: {e}",
            path.display()
        ))
    })?;
    if let Document::Audit(report) = &document {
        report.readable(path, "E_HISTORY_IMPORT")?;
    }
    Ok((document, sha256))
}

/// A file's modification time, in seconds since the epoch.
fn modified(path: &Path) -> Option<i64> {
    let time = std::fs::metadata(path).and_then(|m| m.modified()).ok()?;
    let secs = time.duration_since(std::time::UNIX_EPOCH).ok()?.as_secs();
    i64::try_from(secs).ok()
}

/// The arms of an A/B session's record: each arm's report (resolved) and its name.
fn ab_arms(record: &Path) -> Result<Vec<(PathBuf, &'static str)>, String> {
    let bytes =
        read_bounded(record, MAX_REPORT_BYTES, "an A/B record").map_err(|e| e.to_string())?;
    let record_doc: AbRecord =
        serde_json::from_slice(&bytes).map_err(|e| format!("not an A/B session's record: {e}"))?;
    checked_ab(record, &record_doc)?;
    let dir = dir_or_dot(record.parent());
    Ok([
        (&record_doc.baseline.report, Arm::Baseline),
        (&record_doc.candidate.report, Arm::Candidate),
    ]
    .into_iter()
    .filter_map(|(report, arm)| Some((std::fs::canonicalize(dir.join(report)).ok()?, arm.as_str())))
    .collect())
}
