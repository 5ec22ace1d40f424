//! Putting reports into the history: an audit or a comparison read back from the file it was
//! published to (so that what is recorded is what is on disk, hashed), the run folders of
//! `dwpipe history import`, and the trend of every criterion an audit's page draws.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::audit::{Trend, TrendPoint};
use crate::diagnostic::Diagnostic;
use crate::hash::sha256_hex;
use crate::input::{MAX_REPORT_BYTES, read_bounded};
use crate::output::dir_or_dot;
use crate::schema::{AuditReport, Comparison, Imported, files};

use super::changes::changes;
use super::{Filter, History, RunFacts};

/// Points a trend draws at most (the latest).
const TREND_POINTS: usize = 60;

/// Where audits are recorded, with what a delivery knows of the build.
#[derive(Clone, Debug)]
pub(crate) struct Recorder {
    /// The database.
    pub(crate) path: PathBuf,
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

impl Recorder {
    /// A recorder into `path` that knows nothing of the build.
    pub(crate) fn at(path: &Path) -> Recorder {
        Recorder {
            path: path.to_owned(),
            app_version: None,
            commit: None,
        }
    }

    /// Records the report published at `path` (an audit, with its A/B `arm` if any, or a
    /// comparison); `false` when the history had it.
    pub(crate) fn record(
        &self,
        path: &Path,
        arm: Option<&'static str>,
    ) -> Result<bool, Diagnostic> {
        let mut history = History::open(&self.path).map_err(Diagnostic::from)?;
        self.record_into(&mut history, path, (arm, None), &mut Apps::new())
    }

    /// Records the report at `path` as an `arm` at `time`; `apps` remembers the app of every
    /// lock read so far (an import of a lab's runs reads each lock once).
    fn record_into(
        &self,
        history: &mut History,
        path: &Path,
        (arm, time): (Option<&'static str>, Option<i64>),
        apps: &mut Apps,
    ) -> Result<bool, Diagnostic> {
        let (document, sha256) = read(path)?;
        match document {
            Document::Audit(report) => {
                let lock = lock_of(&report, path)?;
                let app = match apps.get(&lock) {
                    Some(app) => app.clone(),
                    None => {
                        let app = app_in(&lock, path)?;
                        apps.insert(lock, app.clone());
                        app
                    }
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
                };
                history.record_audit(&report, (path, &sha256), &facts)
            }
            Document::Comparison(comparison) => {
                history.record_comparison(&comparison, (path, &sha256))
            }
        }
        .map_err(Diagnostic::from)
    }

    /// Records every report under `paths` (files, or folders searched for `audit-<n>.json` and
    /// `compare.json`), each audit at its file's modification time, in one pass.
    pub(crate) fn import(&self, paths: &[PathBuf]) -> Result<Imported, Diagnostic> {
        let mut files = Vec::new();
        for path in paths {
            if path.is_dir() {
                for entry in walkdir::WalkDir::new(path).sort_by_file_name() {
                    let entry = entry.map_err(|e| {
                        Diagnostic::error("E_HISTORY_IMPORT", format!("`{}`: {e}", path.display()))
                            .fix("pass run folders or report files dwpipe wrote")
                    })?;
                    let name = entry.file_name().to_string_lossy();
                    let report = files::is_audit(&name) || name == files::COMPARISON;
                    if entry.file_type().is_file() && report {
                        files.push(entry.into_path());
                    }
                }
            } else {
                files.push(path.clone());
            }
        }
        // Each file's modification time, read once: the audit's time in the history.
        let mut files: Vec<(PathBuf, Option<i64>)> = files
            .into_iter()
            .map(|path| {
                let time = std::fs::metadata(&path)
                    .and_then(|m| m.modified())
                    .ok()
                    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                    .map(|d| d.as_secs() as i64);
                (path, time)
            })
            .collect();
        // Audits before the comparisons of them, each kind oldest first.
        files.sort_by(|(a, at), (b, bt)| {
            (a.ends_with(files::COMPARISON), at, a).cmp(&(b.ends_with(files::COMPARISON), bt, b))
        });
        let mut history = History::open(&self.path).map_err(Diagnostic::from)?;
        let mut imported = Imported::default();
        let mut apps = Apps::new();
        for (file, time) in &files {
            let new = self.record_into(&mut history, file, (None, *time), &mut apps)?;
            match (new, file.ends_with(files::COMPARISON)) {
                (false, _) => imported.known += 1,
                (true, true) => imported.comparisons += 1,
                (true, false) => imported.audits += 1,
            }
        }
        Ok(imported)
    }

    /// Every numeric criterion of `report` over the history of its device model, the report
    /// itself the last point, with the change points found.
    pub(crate) fn trends(
        &self,
        report: &AuditReport,
    ) -> Result<BTreeMap<String, Trend>, Diagnostic> {
        let Some(device) = &report.device else {
            return Ok(BTreeMap::new());
        };
        let history = History::open(&self.path).map_err(Diagnostic::from)?;
        let mut trends = BTreeMap::new();
        for entry in &report.checks {
            let Some(current) = entry
                .measurements
                .first()
                .and_then(|m| Some((m, m.value.as_ref()?.as_number()?)))
            else {
                continue;
            };
            let filter = Filter {
                criterion: Some(entry.check.criterion_id.clone()),
                model: device.model.clone(),
                since: None,
            };
            let mut points: Vec<TrendPoint> = history
                .series(&filter)
                .map_err(Diagnostic::from)?
                .into_iter()
                .filter_map(|p| {
                    Some(TrendPoint {
                        label: p.recorded_at,
                        value: p.value?,
                        current: false,
                    })
                })
                .collect();
            points.push(TrendPoint {
                label: "this audit".to_owned(),
                value: current.1,
                current: true,
            });
            let points = points.split_off(points.len().saturating_sub(TREND_POINTS));
            let values: Vec<f64> = points.iter().map(|p| p.value).collect();
            trends.insert(
                entry.check.criterion_id.clone(),
                Trend {
                    unit: current.0.unit.clone(),
                    changes: changes(&values).into_iter().map(|c| c.index).collect(),
                    points,
                },
            );
        }
        Ok(trends)
    }
}

/// The report at `path`, and the SHA-256 of its bytes.
fn read(path: &Path) -> Result<(Document, String), Diagnostic> {
    let fix = "pass an audit-<n>.json or compare.json written by dwpipe, or a run folder";
    let bytes = read_bounded(path, MAX_REPORT_BYTES, "a report")
        .map_err(|e| e.diagnostic("E_HISTORY_IMPORT", fix))?;
    let sha256 = sha256_hex(&bytes);
    let value: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| {
        Diagnostic::error(
            "E_HISTORY_IMPORT",
            format!("`{}` is not JSON: {e}", path.display()),
        )
        .fix(fix)
    })?;
    let document = if value.get("checks").is_some() {
        serde_json::from_value(value).map(Document::Audit)
    } else {
        serde_json::from_value(value).map(Document::Comparison)
    }
    .map_err(|e| {
        Diagnostic::error(
            "E_HISTORY_IMPORT",
            format!(
                "`{}` is neither an audit nor a comparison: {e}",
                path.display()
            ),
        )
        .fix(fix)
    })?;
    if let Document::Audit(report) = &document {
        report.readable(path, "E_HISTORY_IMPORT")?;
    }
    Ok((document, sha256))
}

/// The app of each lock read, by its path.
type Apps = std::collections::HashMap<PathBuf, String>;

/// The lock an audit names, as a path.
fn lock_of(report: &AuditReport, path: &Path) -> Result<PathBuf, Diagnostic> {
    let lock = report
        .lock
        .as_deref()
        .ok_or_else(|| no_lock(path, "is not named"))?;
    let lock = dir_or_dot(path.parent()).join(lock);
    Ok(std::fs::canonicalize(&lock).unwrap_or(lock))
}

/// The app an audit measured: the bundle of the lock it names.
pub(crate) fn app_of(report: &AuditReport, path: &Path) -> Result<String, Diagnostic> {
    app_in(&lock_of(report, path)?, path)
}

/// The bundle of `lock`, named by the audit at `path`.
fn app_in(lock: &Path, path: &Path) -> Result<String, Diagnostic> {
    let frozen = crate::pack::load_lock(lock).map_err(|found| {
        no_lock(
            path,
            &format!(
                "(`{}`) cannot be read: {}",
                lock.display(),
                found.first().map(ToString::to_string).unwrap_or_default()
            ),
        )
    })?;
    Ok(frozen.pack.doc.app.bundle.value.clone())
}

fn no_lock(path: &Path, why: &str) -> Diagnostic {
    Diagnostic::error(
        "E_HISTORY_IMPORT",
        format!("`{}`: the lock it was held against {why}", path.display()),
    )
    .fix("import the run folder as dwpipe wrote it, its pack.lock.json included")
}
