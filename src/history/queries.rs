//! An open history: opened (or created and migrated), and a criterion's series and the last
//! passing audit read back (what is recorded into it: [`super::writes`]).

use super::db::{Arg, Cells, Db, DbError};
use super::{HistoryError, open_file};
use crate::history::Store;
use crate::schema::{AuditReport, Point};
use std::path::{Path, PathBuf};

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
    /// One device (its connect key).
    pub(crate) serial: Option<String>,
    /// Recorded at or after (`YYYY-MM-DD` or a full timestamp).
    pub(crate) since: Option<String>,
    /// Only the latest this many points.
    pub(crate) latest: Option<usize>,
}

/// An open history.
pub(crate) struct History {
    pub(super) db: Db,
    /// Where it is, as it may be shown.
    pub(super) at: String,
}

/// The query for the points `filter` asks for, and its values: in the order they were
/// recorded (newest first for the latest few) and, within an audit, in its report's order
/// (the measurements' insertion order: SQLite's `rowid`, PostgreSQL's `seq`). Only the
/// conditions given are written, so that each can use its index. Each row as [`point`] reads
/// it.
pub(super) fn series_sql<'f>(db: &Db, filter: &'f Filter) -> (String, Vec<Arg<'f>>) {
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
        ("r.serial =", &filter.serial),
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
pub(super) fn point(row: &dyn Cells) -> Result<Point, DbError> {
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
            Store::Postgres(server) => {
                Db::Postgres(Box::new(super::db::Server::new(server.connect()?)))
            }
        };
        super::schema::migrate(&mut db, &at)?;
        Ok(History { db, at })
    }

    /// Whether it can only be read (SQLite opens a file it may not write read-only, without a
    /// word; a server says so at the write).
    pub(crate) fn read_only(&self) -> bool {
        match &self.db {
            Db::Sqlite(conn) => conn.is_readonly(rusqlite::MAIN_DB).unwrap_or(true),
            Db::Postgres(_) => false,
        }
    }

    pub(crate) fn failed(&self, doing: &'static str) -> impl Fn(DbError) -> HistoryError + use<> {
        let at = self.at.clone();
        move |source| HistoryError::Sql {
            at: at.clone(),
            doing,
            source,
        }
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
            // `?7` is cast where it stands alone: PostgreSQL cannot tell a bare `IS NULL`
            // parameter's type.
            .rows(
                "SELECT report FROM runs WHERE app = ?1 AND model IS NOT DISTINCT FROM ?2 \
                 AND software_version IS NOT DISTINCT FROM ?3 AND verdict = 'pass' \
                 AND verdict_by IN ('measured', 'rebuilt') \
                 AND NOT replay AND report != ?4 AND report_id IS DISTINCT FROM ?5 \
                 AND NOT ((run_uid IS NOT NULL AND CAST(?7 AS TEXT) IS NOT NULL \
                           AND run_uid = ?7) \
                      OR ((run_uid IS NULL OR CAST(?7 AS TEXT) IS NULL) AND run_key IS NOT NULL \
                          AND run_key = ?6)) \
                 ORDER BY recorded_at DESC, id DESC LIMIT 1",
                &[
                    Arg::Text(Some(app)),
                    Arg::Text(model),
                    Arg::Text(software_version),
                    Arg::Text(Some(&not)),
                    Arg::Text(Some(&identity.report_id)),
                    Arg::Text(identity.run_key.as_deref()),
                    Arg::Text(identity.run_id.as_deref()),
                ],
                |row| row.text(0),
            )
            .map_err(failed)?;
        Ok(found.into_iter().flatten().next().map(PathBuf::from))
    }
}
