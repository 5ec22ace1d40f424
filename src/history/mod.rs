//! The history: every audit and comparison a delivery (or `--history PATH`) made, in an
//! embedded SQLite database, so that a lab can ask how a criterion moved across releases and
//! take the last passing audit as a baseline. WAL mode and a busy timeout let a lab's parallel
//! writers wait for each other instead of failing; each run is one transaction, so a run
//! killed mid-write leaves no partial rows; the schema is versioned (`PRAGMA user_version`)
//! and migrated forward, and a database from a newer dwpipe is refused with a fix. Replayed
//! audits are recorded as replays and never chosen as a baseline.

pub(crate) mod changes;
mod copy;
mod db;
mod facts;
mod lease;
mod record;
mod schema;
mod store;

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::device::Source;
use crate::diagnostic::{Diagnostic, chain};
use crate::schema::{AuditReport, Comparison, Point};
use db::{Arg, Cells, Db, DbError};

pub(crate) use changes::{Window, shifts};
pub(crate) use db::Connection;
pub(crate) use facts::build_facts;
pub(crate) use lease::PgLeases;
pub(crate) use record::{RecordError, Recorder, app_of};
pub(crate) use schema::SCHEMA;
pub(crate) use store::{Server, Store};

/// How long a writer waits for another to finish before the write fails.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// The history's file beside a project's runs.
pub(crate) const DEFAULT_FILE: &str = "history.sqlite";

/// Why the history cannot be used (`at`: the file, or the server's URL without secrets).
#[derive(Debug, thiserror::Error)]
pub(crate) enum HistoryError {
    /// The path names something that is not a regular file (a device, a folder, a FIFO), or
    /// a link planted in dwpipe's own `.dwpipe` folder.
    #[error("the history `{at}` is not a regular file of dwpipe's")]
    NotAFile { at: String },
    /// The file cannot be opened as a database, or the server cannot be reached.
    #[error("the history `{at}` cannot be opened")]
    Open {
        at: String,
        #[source]
        source: DbError,
    },
    /// The folder for a new file cannot be made.
    #[error("the history's folder `{}` cannot be made", folder.display())]
    Folder {
        folder: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The server took the connection and did not answer within the bound.
    #[error("the history `{at}` did not answer within {}s", after.as_secs())]
    Silent { at: String, after: Duration },
    /// TLS to the server cannot be set up.
    #[error("TLS for the history cannot be set up: {why}")]
    Tls { why: String },
    /// It can be read but not written (its file or its folder is read-only).
    #[error("the history `{at}` is read-only")]
    ReadOnly { at: String },
    /// A newer dwpipe wrote it.
    #[error("the history `{at}` has schema version {found}; this dwpipe knows {SCHEMA} and older")]
    Newer { at: String, found: i64 },
    /// A query or a write failed.
    #[error("the history `{at}` could not be {doing}")]
    Sql {
        at: String,
        /// `read` or `written`.
        doing: &'static str,
        #[source]
        source: DbError,
    },
}

impl HistoryError {
    /// The stable code.
    pub(crate) fn code(&self) -> &'static str {
        match self {
            HistoryError::NotAFile { .. } => "E_HISTORY_NOT_A_FILE",
            HistoryError::Open { .. }
            | HistoryError::Folder { .. }
            | HistoryError::Silent { .. } => "E_HISTORY_OPEN",
            HistoryError::Tls { .. } => "E_HISTORY_TLS",
            HistoryError::ReadOnly { .. } => "E_HISTORY_READ_ONLY",
            HistoryError::Newer { .. } => "E_HISTORY_NEWER",
            HistoryError::Sql { doing: "read", .. } => "E_HISTORY_READ",
            HistoryError::Sql { .. } => "E_HISTORY_WRITE",
        }
    }

    /// What to do about it.
    pub(crate) fn fix(&self) -> &'static str {
        match self {
            HistoryError::Newer { .. } => {
                "use the dwpipe that wrote it, or a newer one (every dwpipe writing into one history must be as new as its newest)"
            }
            HistoryError::NotAFile { .. } => {
                "pass --history the path of a history file (it is created if missing; one in a .dwpipe folder is never a link: remove the link)"
            }
            HistoryError::ReadOnly { .. } => {
                "make the file and its folder writable, or pass --history another path"
            }
            HistoryError::Silent { .. } => {
                "check that the address names a PostgreSQL server (its port, the host), and that it is not overloaded or stopped mid-start"
            }
            HistoryError::Open {
                source: DbError::Postgres(_),
                ..
            } => {
                "check the server is up and reachable, the user and database in the URL, and the password in PGPASSWORD or ~/.pgpass (a server with a certificate of its own CA: PGSSLROOTCERT=ca.pem)"
            }
            HistoryError::Tls { .. } => {
                "PGSSLROOTCERT names a PEM file of the CA that signed the server's certificate"
            }
            HistoryError::Sql {
                source: DbError::Postgres(e),
                ..
            } if e.code() == Some(&postgres::error::SqlState::INSUFFICIENT_PRIVILEGE) => {
                "the role in the URL may not do this on the history's tables: grant it SELECT on all of them to read the history (dwpipe_schema included), INSERT, UPDATE and DELETE too to record and prune (GRANT … ON ALL TABLES IN SCHEMA public TO role), or use the role that created the history"
            }
            HistoryError::Sql {
                source: DbError::Postgres(_),
                ..
            } => {
                "the server refused the statement: its log says why (a full disk, a lost connection, a limit); run the command again once it is fixed"
            }
            _ => {
                "check the path (and the disk); a damaged history can be moved aside and rebuilt with `dwpipe history import`"
            }
        }
    }

    /// Whether the history refused one report's values (a NUL byte, a value past the store's
    /// limits) and would take another's: an import names that report and goes on.
    pub(crate) fn refuses_the_values(&self) -> bool {
        matches!(self, HistoryError::Sql { source, .. } if source.refuses_the_values())
    }

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
    /// How its verdict was reached.
    pub(crate) verdict_by: VerdictBy,
}

crate::words::words! {
    /// How an audit's verdict was reached before the history keeps it.
    #[derive(Default)]
    pub(crate) enum VerdictBy {
        /// Measured and gated by the dwpipe that records it.
        #[default]
        Measured = "measured",
        /// Imported: rebuilt from its evidence, every field as the report says.
        Rebuilt = "rebuilt",
        /// Imported without its evidence: re-gated from the report's own readings, which
        /// agree with its verdict — unverified, never a baseline.
        Readings = "readings",
    }
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
    /// Only the latest this many points.
    pub(crate) latest: Option<usize>,
}

/// An open history.
pub(crate) struct History {
    db: Db,
    /// Where it is, as it may be shown.
    at: String,
}

/// The query for the points `filter` asks for, and its values: in the order they were
/// recorded (newest first for the latest few) and, within an audit, in its report's order
/// (the measurements' insertion order: SQLite's `rowid`, PostgreSQL's `seq`). Only the
/// conditions given are written, so that each can use its index. Each row as [`point`] reads
/// it.
fn series_sql<'f>(db: &Db, filter: &'f Filter) -> (String, Vec<Arg<'f>>) {
    use std::fmt::Write;
    let mut sql = String::from(
        "SELECT r.id, r.recorded_at, r.report, r.app, r.app_version, r.commit_sha, \
         r.pack_sha256, r.serial, r.model, r.software_version, r.refresh_rate, r.replay, \
         m.criterion, m.unit, m.value, m.verdict, r.arm, m.run_values \
         FROM runs r JOIN measurements m ON m.run_id = r.id WHERE TRUE",
    );
    let mut args = Vec::new();
    for (column, value) in [
        ("m.criterion =", &filter.criterion),
        ("r.model =", &filter.model),
        ("r.recorded_at >=", &filter.since),
    ] {
        if let Some(value) = value {
            args.push(Arg::Text(Some(value)));
            let _ = write!(sql, " AND {column} ?{}", args.len());
        }
    }
    let order = match db {
        Db::Sqlite(_) => "m.rowid",
        Db::Postgres(_) => "m.seq",
    };
    match filter.latest {
        None => {
            let _ = write!(sql, " ORDER BY r.recorded_at, r.id, {order}");
        }
        Some(n) => {
            args.push(Arg::Int(Some(i64::try_from(n).unwrap_or(i64::MAX))));
            let _ = write!(
                sql,
                " ORDER BY r.recorded_at DESC, r.id DESC, {order} DESC LIMIT ?{}",
                args.len()
            );
        }
    }
    (sql, args)
}

/// One point of a series: a row of [`series_sql`] (its runs' values space-separated).
fn point(row: &dyn Cells) -> Result<Point, DbError> {
    let text = |i| row.text(i).map(Option::unwrap_or_default);
    Ok(Point {
        run: row.int(0)?.unwrap_or_default(),
        recorded_at: text(1)?,
        report: text(2)?,
        app: text(3)?,
        app_version: row.text(4)?,
        commit: row.text(5)?,
        pack_sha256: text(6)?,
        serial: text(7)?,
        model: row.text(8)?,
        software_version: row.text(9)?,
        refresh_rate: row.real(10)?,
        replay: row.boolean(11)?,
        criterion: text(12)?,
        unit: row.text(13)?,
        value: row.real(14)?,
        verdict: text(15)?,
        arm: row.text(16)?,
        runs: row
            .text(17)?
            .unwrap_or_default()
            .split(' ')
            .filter_map(|v| v.parse().ok())
            .collect(),
    })
}

impl History {
    /// Opens (creating, migrating) the history in `store`.
    pub(crate) fn open(store: &Store) -> Result<History, HistoryError> {
        let at = store.to_string();
        let mut db = match store {
            Store::Sqlite(path) => Db::Sqlite(open_file(path)?),
            Store::Postgres(server) => Db::Postgres(Box::new(db::Server::new(server.connect()?))),
        };
        schema::migrate(&mut db, &at)?;
        Ok(History { db, at })
    }

    /// Whether it can only be read (SQLite opens a file it may not write read-only, without a
    /// word; a server says so at the write).
    fn read_only(&self) -> bool {
        match &self.db {
            Db::Sqlite(conn) => conn.is_readonly(rusqlite::MAIN_DB).unwrap_or(true),
            Db::Postgres(_) => false,
        }
    }

    fn failed(&self, doing: &'static str) -> impl Fn(DbError) -> HistoryError + use<> {
        let at = self.at.clone();
        move |source| HistoryError::Sql {
            at: at.clone(),
            doing,
            source,
        }
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
        let report_path = report_path.display().to_string();
        let recorded_at = facts.time.map_or_else(crate::time::now, |secs| {
            crate::time::iso8601(secs.max(0) as u64)
        });
        let failed = self.failed("written");
        let run = RunRow {
            report_sha256: sha256.to_owned(),
            report: report_path,
            recorded_at,
            app: facts.app.clone(),
            app_version: facts.app_version.clone(),
            commit: facts.commit.clone(),
            pack_sha256: report.pack_sha256.clone(),
            serial: device.serial.clone(),
            model: device.model.clone(),
            software_version: device.software_version.clone(),
            refresh_rate: device.refresh_rate.map(f64::from),
            replay,
            verdict: report.verdict.as_str().to_owned(),
            arm: facts.arm.map(str::to_owned),
            report_id: Some(identity.report_id.clone()),
            run_key: identity.run_key.clone(),
            verdict_by: Some(facts.verdict_by.as_str().to_owned()),
        };
        self.db
            .transaction(std::convert::identity, |db| {
                let Some(run_id) = run.insert(db)? else {
                    // Known: an audit recorded before dwpipe kept how its verdict was
                    // reached learns it when it is imported again and rebuilt.
                    if facts.verdict_by == VerdictBy::Rebuilt {
                        db.execute(
                            "UPDATE runs SET verdict_by = ?1 WHERE verdict_by IS NULL \
                             AND (report_sha256 = ?2 OR report_id = ?3)",
                            &[
                                Arg::Text(Some(VerdictBy::Rebuilt.as_str())),
                                Arg::Text(Some(&run.report_sha256)),
                                Arg::Text(run.report_id.as_deref()),
                            ],
                        )?;
                    }
                    return Ok(false);
                };
                for entry in &report.checks {
                    let Some(m) = entry.measurements.first() else {
                        continue;
                    };
                    let criterion = entry.check.criterion_id.as_str();
                    let number = |v: &Option<crate::audit::Value>| {
                        v.as_ref().and_then(crate::audit::Value::as_number)
                    };
                    // The runs' values as a series lists them: in run order.
                    let mut runs: Vec<(u32, f64)> = m
                        .runs
                        .iter()
                        .filter_map(|r| Some((r.run, number(&r.value)?)))
                        .collect();
                    runs.sort_by_key(|(run, _)| *run);
                    let run_values: Vec<String> = runs.iter().map(|(_, v)| v.to_string()).collect();
                    MeasurementRow {
                        criterion: criterion.to_owned(),
                        probe: m.probe.clone(),
                        unit: m.unit.clone(),
                        value: number(&m.value),
                        verdict: entry.check.result.as_str().to_owned(),
                        run_values: Some(run_values.join(" ")).filter(|v| !v.is_empty()),
                    }
                    .insert(db, run_id)?;
                    let samples: Vec<(&str, i64, Option<f64>)> = m
                        .runs
                        .iter()
                        .map(|r| (criterion, i64::from(r.run), number(&r.value)))
                        .collect();
                    insert_samples(db, run_id, &samples)?;
                }
                Ok(true)
            })
            .map_err(failed)
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
        let report_id = crate::schema::content_id(comparison);
        let now = crate::time::now();
        let failed = self.failed("written");
        self.db
            .transaction(std::convert::identity, |db| {
                let inserted = db.rows(
                    "INSERT INTO comparisons (report_sha256, report, recorded_at, verdict, \
                     baseline, candidate, report_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) \
                     ON CONFLICT DO NOTHING RETURNING id",
                    &[
                        Arg::Text(Some(sha256)),
                        Arg::Text(Some(&path_text)),
                        Arg::Text(Some(&now)),
                        Arg::Text(Some(comparison.verdict.as_str())),
                        Arg::Text(Some(&comparison.baseline.report)),
                        Arg::Text(Some(&comparison.candidate.report)),
                        Arg::Text(Some(&report_id)),
                    ],
                    |row| row.int(0),
                )?;
                let Some(Some(id)) = inserted.first().copied() else {
                    return Ok(false);
                };
                for c in &comparison.criteria {
                    db.execute(
                        "INSERT INTO compared (comparison_id, criterion, verdict, delta, \
                         delta_pct, p) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                        &[
                            Arg::Int(Some(id)),
                            Arg::Text(Some(&c.criterion_id)),
                            Arg::Text(Some(c.verdict.as_str())),
                            Arg::Real(c.delta),
                            Arg::Real(c.delta_pct),
                            Arg::Real(c.p),
                        ],
                    )?;
                }
                Ok(true)
            })
            .map_err(failed)
    }

    /// The points `filter` asks for, oldest first (in the order they were recorded); only
    /// the latest ones when it says how many (read newest first, so that a long history's
    /// trend reads no more than it draws).
    pub(crate) fn series(&mut self, filter: &Filter) -> Result<Vec<Point>, HistoryError> {
        let (sql, args) = series_sql(&self.db, filter);
        let failed = self.failed("read");
        let mut points = self.db.rows(&sql, &args, point).map_err(failed)?;
        if filter.latest.is_some() {
            points.reverse();
        }
        Ok(points)
    }

    /// The latest passing audit of `app` on a device of `model` and `software_version`, made
    /// on a device (never a replay), whose verdict dwpipe reached itself (measured, or rebuilt
    /// from its evidence at its import: never a report taken at its word), and not the
    /// candidate — by its content, its run or its path: its report's path.
    pub(crate) fn last_pass(
        &mut self,
        app: &str,
        (model, software_version): (Option<&str>, Option<&str>),
        candidate: (&AuditReport, &Path),
    ) -> Result<Option<PathBuf>, HistoryError> {
        let (report, path) = candidate;
        let not = std::fs::canonicalize(path)
            .unwrap_or_else(|_| path.to_owned())
            .display()
            .to_string();
        let identity = report.identity();
        let failed = self.failed("read");
        let found = self
            .db
            .rows(
                "SELECT report FROM runs WHERE app = ?1 AND model IS NOT DISTINCT FROM ?2 \
                 AND software_version IS NOT DISTINCT FROM ?3 AND verdict = 'pass' \
                 AND verdict_by IN ('measured', 'rebuilt') \
                 AND NOT replay AND report != ?4 AND report_id IS DISTINCT FROM ?5 \
                 AND (run_key IS NULL OR run_key IS DISTINCT FROM ?6) \
                 ORDER BY recorded_at DESC, id DESC LIMIT 1",
                &[
                    Arg::Text(Some(app)),
                    Arg::Text(model),
                    Arg::Text(software_version),
                    Arg::Text(Some(&not)),
                    Arg::Text(Some(&identity.report_id)),
                    Arg::Text(identity.run_key.as_deref()),
                ],
                |row| row.text(0),
            )
            .map_err(failed)?;
        Ok(found.into_iter().flatten().next().map(PathBuf::from))
    }
}

/// A criterion's row in `measurements` (after its audit's id).
struct MeasurementRow {
    criterion: String,
    probe: String,
    unit: Option<String>,
    value: Option<f64>,
    verdict: String,
    /// Its runs' values, space-separated in run order, as a series lists them.
    run_values: Option<String>,
}

impl MeasurementRow {
    /// A row of `SELECT criterion, probe, unit, value, verdict, run_values`.
    fn read(row: &dyn Cells) -> Result<MeasurementRow, DbError> {
        Ok(MeasurementRow {
            criterion: row.text(0)?.unwrap_or_default(),
            probe: row.text(1)?.unwrap_or_default(),
            unit: row.text(2)?,
            value: row.real(3)?,
            verdict: row.text(4)?.unwrap_or_default(),
            run_values: row.text(5)?,
        })
    }

    /// Writes it as a measurement of the audit `run_id`.
    fn insert(&self, db: &mut Db, run_id: i64) -> Result<(), DbError> {
        db.execute(
            "INSERT INTO measurements (run_id, criterion, probe, unit, value, verdict, \
             run_values) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            &[
                Arg::Int(Some(run_id)),
                Arg::Text(Some(&self.criterion)),
                Arg::Text(Some(&self.probe)),
                Arg::Text(self.unit.as_deref()),
                Arg::Real(self.value),
                Arg::Text(Some(&self.verdict)),
                Arg::Text(self.run_values.as_deref()),
            ],
        )
        .map(drop)
    }
}

/// Rows of `samples` written per statement: one round trip for a measurement's runs, not one
/// each (a PostgreSQL history is a network away).
const SAMPLES_PER_STATEMENT: usize = 250;

/// Writes the runs' values `samples` (criterion, run, value) of the audit `run_id`.
fn insert_samples(
    db: &mut Db,
    run_id: i64,
    samples: &[(&str, i64, Option<f64>)],
) -> Result<(), DbError> {
    use std::fmt::Write;
    for chunk in samples.chunks(SAMPLES_PER_STATEMENT) {
        let mut sql = String::from("INSERT INTO samples (run_id, criterion, run, value) VALUES ");
        let mut args = Vec::with_capacity(chunk.len() * 4);
        for (i, (criterion, run, value)) in chunk.iter().enumerate() {
            let at = i * 4;
            let comma = if i == 0 { "" } else { ", " };
            let _ = write!(
                sql,
                "{comma}(?{}, ?{}, ?{}, ?{})",
                at + 1,
                at + 2,
                at + 3,
                at + 4
            );
            args.extend([
                Arg::Int(Some(run_id)),
                Arg::Text(Some(criterion)),
                Arg::Int(Some(*run)),
                Arg::Real(*value),
            ]);
        }
        db.execute(&sql, &args)?;
    }
    Ok(())
}

/// What `history prune` deleted and kept.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub(crate) struct Pruned {
    /// Audits deleted (with their measurements and runs' values).
    pub(crate) audits: u64,
    /// Comparisons deleted (with their criteria).
    pub(crate) comparisons: u64,
    /// Audits left.
    pub(crate) kept: i64,
}

impl History {
    /// Deletes the audits recorded before `before` (if given) that are not among the latest
    /// `keep_last` of their series, an app on a device model (if given), never the latest
    /// passing audit on a device of an app, model and software (the last-pass baseline);
    /// and the comparisons recorded before `before`. One transaction.
    pub(crate) fn prune(
        &mut self,
        before: Option<&str>,
        keep_last: Option<u32>,
    ) -> Result<Pruned, HistoryError> {
        let failed = self.failed("written");
        let keep = keep_last.map(i64::from);
        self.db
            .transaction(std::convert::identity, |db| {
                let audits = db.execute(
                    "DELETE FROM runs WHERE id IN (SELECT id FROM (SELECT id, recorded_at, \
                     ROW_NUMBER() OVER (PARTITION BY app, model \
                     ORDER BY recorded_at DESC, id DESC) AS newest, \
                     CASE WHEN verdict = 'pass' AND NOT replay \
                     AND verdict_by IN ('measured', 'rebuilt') THEN ROW_NUMBER() OVER ( \
                     PARTITION BY app, model, software_version, verdict = 'pass' AND NOT replay \
                     AND verdict_by IN ('measured', 'rebuilt') \
                     ORDER BY recorded_at DESC, id DESC) ELSE 0 END AS baseline FROM runs) ranked \
                     WHERE (CAST(?1 AS TEXT) IS NULL OR recorded_at < ?1) \
                     AND (CAST(?2 AS BIGINT) IS NULL OR newest > ?2) AND baseline != 1)",
                    &[Arg::Text(before), Arg::Int(keep)],
                )?;
                let comparisons = db.execute(
                    "DELETE FROM comparisons WHERE CAST(?1 AS TEXT) IS NOT NULL \
                     AND recorded_at < ?1",
                    &[Arg::Text(before)],
                )?;
                let kept = db.rows("SELECT count(*) FROM runs", &[], |row| row.int(0))?;
                Ok(Pruned {
                    audits,
                    comparisons,
                    kept: kept.into_iter().flatten().next().unwrap_or_default(),
                })
            })
            .map_err(failed)
    }
}

/// An audit's row in `runs` (the columns after `id`, in order).
struct RunRow {
    report_sha256: String,
    report: String,
    recorded_at: String,
    app: String,
    app_version: Option<String>,
    commit: Option<String>,
    pack_sha256: String,
    serial: String,
    model: Option<String>,
    software_version: Option<String>,
    refresh_rate: Option<f64>,
    replay: bool,
    verdict: String,
    arm: Option<String>,
    report_id: Option<String>,
    run_key: Option<String>,
    /// How its verdict was reached (`None`: recorded before dwpipe kept it).
    verdict_by: Option<String>,
}

/// The columns of a [`RunRow`], in order.
macro_rules! run_columns {
    () => {
        "report_sha256, report, recorded_at, app, app_version, commit_sha, pack_sha256, serial, \
         model, software_version, refresh_rate, replay, verdict, arm, report_id, run_key, \
         verdict_by"
    };
}
use run_columns;

impl RunRow {
    /// A row whose cells from `at` on are [`run_columns`].
    fn read(row: &dyn Cells, at: usize) -> Result<RunRow, DbError> {
        let text = |i| row.text(at + i).map(Option::unwrap_or_default);
        Ok(RunRow {
            report_sha256: text(0)?,
            report: text(1)?,
            recorded_at: text(2)?,
            app: text(3)?,
            app_version: row.text(at + 4)?,
            commit: row.text(at + 5)?,
            pack_sha256: text(6)?,
            serial: text(7)?,
            model: row.text(at + 8)?,
            software_version: row.text(at + 9)?,
            refresh_rate: row.real(at + 10)?,
            replay: row.boolean(at + 11)?,
            verdict: text(12)?,
            arm: row.text(at + 13)?,
            report_id: row.text(at + 14)?,
            run_key: row.text(at + 15)?,
            verdict_by: row.text(at + 16)?,
        })
    }

    /// Inserts it; its id, or `None` when the history has the report (by its bytes or its
    /// content) already.
    fn insert(&self, db: &mut Db) -> Result<Option<i64>, DbError> {
        let ids = db.rows(
            concat!(
                "INSERT INTO runs (",
                run_columns!(),
                ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, \
                 ?17) ON CONFLICT DO NOTHING RETURNING id"
            ),
            &[
                Arg::Text(Some(&self.report_sha256)),
                Arg::Text(Some(&self.report)),
                Arg::Text(Some(&self.recorded_at)),
                Arg::Text(Some(&self.app)),
                Arg::Text(self.app_version.as_deref()),
                Arg::Text(self.commit.as_deref()),
                Arg::Text(Some(&self.pack_sha256)),
                Arg::Text(Some(&self.serial)),
                Arg::Text(self.model.as_deref()),
                Arg::Text(self.software_version.as_deref()),
                Arg::Real(self.refresh_rate),
                Arg::Bool(self.replay),
                Arg::Text(Some(&self.verdict)),
                Arg::Text(self.arm.as_deref()),
                Arg::Text(self.report_id.as_deref()),
                Arg::Text(self.run_key.as_deref()),
                Arg::Text(self.verdict_by.as_deref()),
            ],
            |row| row.int(0),
        )?;
        Ok(ids.into_iter().flatten().next())
    }
}

/// The SQLite file at `path`, opened for many writers: WAL, a busy timeout, foreign keys.
fn open_file(path: &Path) -> Result<rusqlite::Connection, HistoryError> {
    let at = path.display().to_string();
    let open = |source: rusqlite::Error| HistoryError::Open {
        at: at.clone(),
        source: source.into(),
    };
    // The rule every reader follows: a regular file, or nothing yet (SQLite would write a
    // journal beside anything else: `/dev/null-journal`).
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        return Err(HistoryError::NotAFile { at });
    }
    // In a `.dwpipe` folder (dwpipe's own place, which an agent may write), the history is
    // dwpipe's file: a link there was planted, to make dwpipe write into the database it
    // leads to.
    if path.components().any(|c| c.as_os_str() == ".dwpipe")
        && (std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
            || path
                .parent()
                .is_some_and(|dir| crate::lock_file::planted_links(dir).is_err()))
    {
        return Err(HistoryError::NotAFile { at });
    }
    if let Some(folder) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(folder).map_err(|source| HistoryError::Folder {
            folder: folder.to_owned(),
            source,
        })?;
    }
    let conn = rusqlite::Connection::open(path).map_err(open)?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(open)?;
    wal(&conn).map_err(open)?;
    conn.pragma_update(None, "foreign_keys", "ON")
        .map_err(open)?;
    Ok(conn)
}

/// Puts the file in WAL mode. WAL is the file's own (once set, every later open finds it, and
/// takes no lock to ask); setting it takes the file's exclusive lock, and SQLite answers
/// `SQLITE_BUSY` at once when another process holds any lock, without its busy handler — so
/// many first writers of a new history each ask again, within the busy timeout, until the
/// file is WAL (by their hand or another's).
fn wal(conn: &rusqlite::Connection) -> rusqlite::Result<()> {
    let started = std::time::Instant::now();
    let mut pause = Duration::from_millis(5);
    loop {
        let mode: String = conn.pragma_query_value(None, "journal_mode", |row| row.get(0))?;
        if mode.eq_ignore_ascii_case("wal") {
            return Ok(());
        }
        match conn.pragma_update(None, "journal_mode", "WAL") {
            Err(rusqlite::Error::SqliteFailure(e, _))
                if e.code == rusqlite::ErrorCode::DatabaseBusy
                    && started.elapsed() < BUSY_TIMEOUT =>
            {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(200));
            }
            done => return done,
        }
    }
}

#[cfg(test)]
mod tests {
    /// Sixteen first openers of a new file at once, thirty times over: each finds it in WAL
    /// mode. (SQLite refuses the conversion at once, without its busy handler, while another
    /// opener holds a lock: asked once, some of these openers failed with `database is
    /// locked`.)
    #[test]
    fn many_first_openers_of_a_new_file_all_get_it_in_wal_mode() {
        for _ in 0..30 {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("h.sqlite");
            let start = std::sync::Barrier::new(16);
            std::thread::scope(|scope| {
                let openers: Vec<_> = (0..16)
                    .map(|_| {
                        scope.spawn(|| {
                            start.wait();
                            let conn = super::open_file(&path).map_err(|e| e.to_string())?;
                            conn.pragma_query_value(None, "journal_mode", |row| {
                                row.get::<_, String>(0)
                            })
                            .map_err(|e| e.to_string())
                        })
                    })
                    .collect();
                for opener in openers {
                    assert_eq!(opener.join().unwrap().as_deref(), Ok("wal"));
                }
            });
        }
    }
}
