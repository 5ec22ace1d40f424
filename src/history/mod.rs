//! The history: every audit and comparison a delivery (or `--history PATH`) made, in an
//! embedded SQLite database, so that a lab can ask how a criterion moved across releases and
//! take the last passing audit as a baseline. WAL mode and a busy timeout let a lab's parallel
//! writers wait for each other instead of failing; each run is one transaction, so a run
//! killed mid-write leaves no partial rows; the schema is versioned (`PRAGMA user_version`)
//! and migrated forward, and a database from a newer dwpipe is refused with a fix. Replayed
//! audits are recorded as replays and never chosen as a baseline.

pub(crate) mod changes;
mod facts;
mod record;
mod schema;

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::device::Source;
use crate::diagnostic::{Diagnostic, chain};
use crate::schema::{AuditReport, Comparison, Point};
use rusqlite::{Connection, OptionalExtension, params};

pub(crate) use changes::{Window, shifts};
pub(crate) use facts::build_facts;
pub(crate) use record::{RecordError, Recorder, app_of};
pub(crate) use schema::SCHEMA;

/// How long a writer waits for another to finish before the write fails.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// The history's file beside a project's runs.
pub(crate) const DEFAULT_FILE: &str = "history.sqlite";

/// Why the history cannot be used.
#[derive(Debug, thiserror::Error)]
pub(crate) enum HistoryError {
    /// The path names something that is not a regular file (a device, a folder, a FIFO).
    #[error("the history `{}` is not a regular file", path.display())]
    NotAFile {
        /// The path.
        path: PathBuf,
    },
    /// The file cannot be opened as a database.
    #[error("the history `{}` cannot be opened", path.display())]
    Open {
        /// The database.
        path: PathBuf,
        /// SQLite's reason.
        #[source]
        source: rusqlite::Error,
    },
    /// It can be read but not written (its file or its folder is read-only).
    #[error("the history `{}` is read-only", path.display())]
    ReadOnly {
        /// The database.
        path: PathBuf,
    },
    /// A newer dwpipe wrote it.
    #[error("the history `{}` has schema version {found}; this dwpipe knows {SCHEMA} and older", path.display())]
    Newer {
        /// The database.
        path: PathBuf,
        /// Its version.
        found: i64,
    },
    /// A query or a write failed.
    #[error("the history `{}` could not be {doing}", path.display())]
    Sql {
        /// The database.
        path: PathBuf,
        /// `read` or `written`.
        doing: &'static str,
        /// SQLite's reason.
        #[source]
        source: rusqlite::Error,
    },
}

impl HistoryError {
    /// The stable code.
    pub(crate) fn code(&self) -> &'static str {
        match self {
            HistoryError::NotAFile { .. } => "E_HISTORY_NOT_A_FILE",
            HistoryError::Open { .. } => "E_HISTORY_OPEN",
            HistoryError::ReadOnly { .. } => "E_HISTORY_READ_ONLY",
            HistoryError::Newer { .. } => "E_HISTORY_NEWER",
            HistoryError::Sql { doing: "read", .. } => "E_HISTORY_READ",
            HistoryError::Sql { .. } => "E_HISTORY_WRITE",
        }
    }

    /// What to do about it.
    pub(crate) fn fix(&self) -> &'static str {
        match self {
            HistoryError::Newer { .. } => "use the dwpipe that wrote it, or a newer one",
            HistoryError::NotAFile { .. } => {
                "pass --history the path of a history file (it is created if missing)"
            }
            HistoryError::ReadOnly { .. } => {
                "make the file and its folder writable, or pass --history another path"
            }
            _ => {
                "check the path (and the disk); a damaged history can be moved aside and rebuilt with `dwpipe history import`"
            }
        }
    }
}

impl HistoryError {
    /// The error as a diagnostic, with its fix.
    pub(crate) fn diagnostic(&self) -> Diagnostic {
        Diagnostic::error(self.code(), chain(self)).fix(self.fix())
    }
}

/// What is known of an audit beyond its report.
#[derive(Clone, Debug, Default)]
pub(crate) struct RunFacts {
    /// The app's bundle (from the lock the audit was held against).
    pub(crate) app: String,
    /// The app's version (`versionName`), when known.
    pub(crate) app_version: Option<String>,
    /// The workspace's commit, when known.
    pub(crate) commit: Option<String>,
    /// The A/B arm the audit measured (`baseline`, `candidate`).
    pub(crate) arm: Option<&'static str>,
    /// When it was made (seconds since the epoch; default: now).
    pub(crate) time: Option<i64>,
}

/// Which points a query wants.
#[derive(Clone, Debug, Default)]
pub(crate) struct Filter {
    /// One criterion.
    pub(crate) criterion: Option<String>,
    /// One device model.
    pub(crate) model: Option<String>,
    /// Recorded at or after (`YYYY-MM-DD` or a full timestamp).
    pub(crate) since: Option<String>,
}

/// A failed query or write of the history at `path`.
fn sql_error(path: &Path, doing: &'static str) -> impl Fn(rusqlite::Error) -> HistoryError + use<> {
    let path = path.to_owned();
    move |source| HistoryError::Sql {
        path: path.clone(),
        doing,
        source,
    }
}

/// An open history.
pub(crate) struct History {
    conn: Connection,
    path: PathBuf,
}

impl History {
    /// Opens (creating, migrating) the history at `path`.
    pub(crate) fn open(path: &Path) -> Result<History, HistoryError> {
        let open = |source| HistoryError::Open {
            path: path.to_owned(),
            source,
        };
        // The rule every reader follows: a regular file, or nothing yet (SQLite would write a
        // journal beside anything else: `/dev/null-journal`).
        if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
            return Err(HistoryError::NotAFile {
                path: path.to_owned(),
            });
        }
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .map_err(|e| open(rusqlite::Error::ToSqlConversionFailure(Box::new(e))))?;
        }
        let mut conn = Connection::open(path).map_err(open)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(open)?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(open)?;
        conn.pragma_update(None, "foreign_keys", "ON")
            .map_err(open)?;
        schema::migrate(&mut conn, path)?;
        Ok(History {
            conn,
            path: path.to_owned(),
        })
    }

    /// Whether SQLite could only open it for reading.
    fn read_only(&self) -> bool {
        self.conn.is_readonly(rusqlite::MAIN_DB).unwrap_or(true)
    }

    fn sql(&self, doing: &'static str) -> impl Fn(rusqlite::Error) -> HistoryError + use<> {
        sql_error(&self.path, doing)
    }

    /// Records an audit report (`path`: where it is, `sha256`: of its bytes), in one
    /// transaction; `false` when it was recorded before (an import repeated, a copy of it).
    pub(crate) fn record_audit(
        &mut self,
        report: &AuditReport,
        (path, sha256): (&Path, &str),
        facts: &RunFacts,
    ) -> Result<bool, HistoryError> {
        let identity = report.identity();
        let Some(device) = &report.device else {
            // An outside auditor's report has no device and no runs: nothing to chart.
            return Ok(false);
        };
        let replay = matches!(report.source, Some(Source::Replay { .. }));
        let report_path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned());
        let failed = self.sql("written");
        let tx = self.conn.transaction().map_err(&failed)?;
        let inserted = tx
            .execute(
                "INSERT OR IGNORE INTO runs (report_sha256, report, recorded_at, app, app_version, \
                 commit_sha, pack_sha256, serial, model, software_version, refresh_rate, replay, \
                 verdict, arm, report_id, run_key) VALUES (?1, ?2, strftime('%Y-%m-%dT%H:%M:%SZ', \
                 COALESCE(?3, unixepoch()), 'unixepoch'), ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, \
                 ?13, ?14, ?15, ?16)",
                params![
                    sha256,
                    report_path.display().to_string(),
                    facts.time,
                    facts.app,
                    facts.app_version,
                    facts.commit,
                    report.pack_sha256,
                    device.serial,
                    device.model,
                    device.software_version,
                    device.refresh_rate,
                    replay,
                    report.verdict.as_str(),
                    facts.arm,
                    identity.report_id,
                    identity.run_key,
                ],
            )
            .map_err(&failed)?;
        if inserted == 0 {
            return Ok(false);
        }
        let run = tx.last_insert_rowid();
        for entry in &report.checks {
            let Some(m) = entry.measurements.first() else {
                continue;
            };
            tx.execute(
                "INSERT INTO measurements (run_id, criterion, probe, unit, value, verdict) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![
                    run,
                    entry.check.criterion_id,
                    m.probe,
                    m.unit,
                    m.value.as_ref().and_then(crate::audit::Value::as_number),
                    entry.check.result.as_str(),
                ],
            )
            .map_err(&failed)?;
            for reading in &m.runs {
                tx.execute(
                    "INSERT INTO samples (run_id, criterion, run, value) VALUES (?1, ?2, ?3, ?4)",
                    params![
                        run,
                        entry.check.criterion_id,
                        reading.run,
                        reading
                            .value
                            .as_ref()
                            .and_then(crate::audit::Value::as_number),
                    ],
                )
                .map_err(&failed)?;
            }
        }
        tx.commit().map_err(&failed)?;
        Ok(true)
    }

    /// Records a comparison (`path`, `sha256` as for an audit), in one transaction.
    pub(crate) fn record_comparison(
        &mut self,
        comparison: &Comparison,
        (path, sha256): (&Path, &str),
    ) -> Result<bool, HistoryError> {
        let path_text = std::fs::canonicalize(path)
            .unwrap_or_else(|_| path.to_owned())
            .display()
            .to_string();
        let failed = self.sql("written");
        let tx = self.conn.transaction().map_err(&failed)?;
        let inserted = tx
            .execute(
                "INSERT OR IGNORE INTO comparisons (report_sha256, report, recorded_at, verdict, \
                 baseline, candidate, report_id) VALUES (?1, ?2, strftime('%Y-%m-%dT%H:%M:%SZ', \
                 'now'), ?3, ?4, ?5, ?6)",
                params![
                    sha256,
                    path_text,
                    comparison.verdict.as_str(),
                    comparison.baseline.report,
                    comparison.candidate.report,
                    crate::schema::content_id(comparison),
                ],
            )
            .map_err(&failed)?;
        if inserted == 0 {
            return Ok(false);
        }
        let id = tx.last_insert_rowid();
        for c in &comparison.criteria {
            tx.execute(
                "INSERT INTO compared (comparison_id, criterion, verdict, delta, delta_pct, p) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![
                    id,
                    c.criterion_id,
                    c.verdict.as_str(),
                    c.delta,
                    c.delta_pct,
                    c.p
                ],
            )
            .map_err(&failed)?;
        }
        tx.commit().map_err(&failed)?;
        Ok(true)
    }

    /// The points `filter` asks for, oldest first (in the order they were recorded).
    pub(crate) fn series(&self, filter: &Filter) -> Result<Vec<Point>, HistoryError> {
        let mut statement = self
            .conn
            .prepare_cached(
                "SELECT r.id, r.recorded_at, r.report, r.app, r.app_version, r.commit_sha, \
                 r.pack_sha256, r.serial, r.model, r.software_version, r.refresh_rate, r.replay, \
                 m.criterion, m.unit, m.value, m.verdict, \
                 (SELECT group_concat(s.value, ' ') FROM (SELECT value FROM samples s WHERE \
                 s.run_id = r.id AND s.criterion = m.criterion AND s.value IS NOT NULL ORDER BY \
                 s.run) s), r.arm \
                 FROM runs r JOIN measurements m ON m.run_id = r.id \
                 WHERE (?1 IS NULL OR m.criterion = ?1) AND (?2 IS NULL OR r.model = ?2) \
                 AND (?3 IS NULL OR r.recorded_at >= ?3) \
                 ORDER BY r.recorded_at, r.id, m.rowid",
            )
            .map_err(self.sql("read"))?;
        let rows = statement
            .query_map(
                params![filter.criterion, filter.model, filter.since],
                |row| {
                    let samples: Option<String> = row.get(16)?;
                    Ok(Point {
                        run: row.get(0)?,
                        recorded_at: row.get(1)?,
                        report: row.get(2)?,
                        app: row.get(3)?,
                        app_version: row.get(4)?,
                        commit: row.get(5)?,
                        pack_sha256: row.get(6)?,
                        serial: row.get(7)?,
                        model: row.get(8)?,
                        software_version: row.get(9)?,
                        refresh_rate: row.get(10)?,
                        replay: row.get(11)?,
                        criterion: row.get(12)?,
                        unit: row.get(13)?,
                        value: row.get(14)?,
                        verdict: row.get(15)?,
                        runs: samples
                            .unwrap_or_default()
                            .split(' ')
                            .filter_map(|v| v.parse().ok())
                            .collect(),
                        arm: row.get(17)?,
                    })
                },
            )
            .map_err(self.sql("read"))?;
        rows.collect::<Result<_, _>>().map_err(self.sql("read"))
    }

    /// The latest passing audit of `app` on a device of `model` and `software_version`, made
    /// on a device (never a replay) and not the candidate — by its content, its run or its
    /// path: its report's path.
    pub(crate) fn last_pass(
        &self,
        app: &str,
        (model, software_version): (Option<&str>, Option<&str>),
        candidate: (&AuditReport, &Path),
    ) -> Result<Option<PathBuf>, HistoryError> {
        let (report, path) = candidate;
        let not = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned());
        let identity = report.identity();
        self.conn
            .query_row(
                "SELECT report FROM runs WHERE app = ?1 AND model IS ?2 AND software_version IS ?3 \
                 AND verdict = 'pass' AND replay = 0 AND report != ?4 AND report_id IS NOT ?5 \
                 AND (run_key IS NULL OR run_key IS NOT ?6) \
                 ORDER BY recorded_at DESC, id DESC LIMIT 1",
                params![
                    app,
                    model,
                    software_version,
                    not.display().to_string(),
                    identity.report_id,
                    identity.run_key
                ],
                |row| row.get::<_, String>(0),
            )
            .optional()
            .map(|report| report.map(PathBuf::from))
            .map_err(self.sql("read"))
    }
}
