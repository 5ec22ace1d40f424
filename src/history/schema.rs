//! The history's tables, versioned (SQLite: `PRAGMA user_version`; PostgreSQL: the
//! `dwpipe_schema` table): an empty history is created at the current version, an older one
//! migrated step by step, a newer one refused. Creation and migration run in one transaction
//! that holds the write lock (SQLite's immediate transaction, PostgreSQL's advisory lock) and
//! reads the version again once it does, so any number of writers meeting a new or an old
//! history at once, from any number of hosts, agree: the first migrates, the others find it
//! done.

use super::HistoryError;
use super::db::{Arg, Db, DbError};

/// The schema this dwpipe writes.
pub(crate) const SCHEMA: i64 = 5;

/// Version 1: audits (`runs`), each criterion's aggregate (`measurements`) and every run's
/// value (`samples`); comparisons and their criteria.
const V1: &str = "
CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    report_sha256 TEXT NOT NULL UNIQUE,
    report TEXT NOT NULL,
    recorded_at TEXT NOT NULL,
    app TEXT NOT NULL,
    app_version TEXT,
    commit_sha TEXT,
    pack_sha256 TEXT NOT NULL,
    serial TEXT NOT NULL,
    model TEXT,
    software_version TEXT,
    refresh_rate REAL,
    replay INTEGER NOT NULL,
    verdict TEXT NOT NULL,
    arm TEXT
);
CREATE INDEX runs_baseline ON runs (app, model, software_version, verdict, replay, recorded_at);
CREATE TABLE measurements (
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    criterion TEXT NOT NULL,
    probe TEXT NOT NULL,
    unit TEXT,
    value REAL,
    verdict TEXT NOT NULL,
    PRIMARY KEY (run_id, criterion)
);
CREATE INDEX measurements_criterion ON measurements (criterion);
CREATE TABLE samples (
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    criterion TEXT NOT NULL,
    run INTEGER NOT NULL,
    value REAL,
    PRIMARY KEY (run_id, criterion, run)
);
CREATE TABLE comparisons (
    id INTEGER PRIMARY KEY,
    report_sha256 TEXT NOT NULL UNIQUE,
    report TEXT NOT NULL,
    recorded_at TEXT NOT NULL,
    verdict TEXT NOT NULL,
    baseline TEXT NOT NULL,
    candidate TEXT NOT NULL
);
CREATE TABLE compared (
    comparison_id INTEGER NOT NULL REFERENCES comparisons (id) ON DELETE CASCADE,
    criterion TEXT NOT NULL,
    verdict TEXT NOT NULL,
    delta REAL,
    delta_pct REAL,
    p REAL,
    PRIMARY KEY (comparison_id, criterion)
);
";

/// Version 2: reports identified by their content (`report_id`: the SHA-256 of the report as
/// dwpipe reads it back, the same however the file was re-serialized; reports recorded before
/// keep their file's hash) and audits by their run (`run_key`: the device and when it
/// started), so neither a re-serialized copy nor the candidate itself is recorded twice or
/// taken as its own baseline; indexes for the series and the trends.
const V2: &str = "
ALTER TABLE runs ADD COLUMN report_id TEXT;
UPDATE runs SET report_id = report_sha256;
CREATE UNIQUE INDEX runs_report_id ON runs (report_id);
ALTER TABLE runs ADD COLUMN run_key TEXT;
CREATE INDEX runs_run_key ON runs (run_key);
CREATE INDEX runs_model_time ON runs (model, recorded_at);
ALTER TABLE comparisons ADD COLUMN report_id TEXT;
UPDATE comparisons SET report_id = report_sha256;
CREATE UNIQUE INDEX comparisons_report_id ON comparisons (report_id);
CREATE INDEX measurements_series ON measurements (criterion, run_id);
";

/// Version 3, in the SQL both engines speak: each measurement keeps its runs' values as the
/// series lists them (space-separated, in run order), so that listing a long series reads no
/// sample rows; an index for what is pruned and listed by time.
const V3: &str = "
ALTER TABLE measurements ADD COLUMN run_values TEXT;
UPDATE measurements SET run_values = (SELECT string_agg(CAST(s.value AS TEXT), ' ' ORDER BY s.run)
    FROM samples s WHERE s.run_id = measurements.run_id AND s.criterion = measurements.criterion
    AND s.value IS NOT NULL);
CREATE INDEX runs_time ON runs (recorded_at);
";

/// Version 4: how each audit's verdict was reached (`verdict_by`): `measured` by the dwpipe
/// that recorded it, `rebuilt` from its evidence at its import (every field as the report
/// says), or only `readings` — re-gated from the report's own readings, its evidence absent:
/// unverified. Only the first two are ever a baseline. Audits recorded before say nothing
/// (NULL), and are not one until imported again from their run folders.
const V4: &str = "
ALTER TABLE runs ADD COLUMN verdict_by TEXT;
";

/// Version 5: each audit's run by its own name (`run_uid`: the `run-id` it kept with its
/// times), so that a copy of it under other times is known for the run it is. Audits
/// recorded before, and audits that kept no times, say nothing (NULL).
const V5: &str = "
ALTER TABLE runs ADD COLUMN run_uid TEXT;
CREATE INDEX runs_run_uid ON runs (run_uid);
";

/// The steps from each version to the next: `STEPS[v]` takes version `v` to `v + 1`.
const STEPS: [&str; SCHEMA as usize] = [V1, V2, V3, V4, V5];

/// The version PostgreSQL histories begin at: the tables as [`V1`] then [`V2`] left them,
/// in PostgreSQL's types (an identity for SQLite's rowid, booleans, double precision). A
/// step after it is written for both engines.
const PG_FROM: i64 = 2;

/// A PostgreSQL history created at [`PG_FROM`] (the steps after it then run as for SQLite).
/// `seq` keeps the measurements' insertion order (SQLite's rowid), which a series lists them
/// in.
const PG_CREATE: &str = "
CREATE TABLE runs (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    report_sha256 TEXT NOT NULL UNIQUE,
    report TEXT NOT NULL,
    recorded_at TEXT NOT NULL,
    app TEXT NOT NULL,
    app_version TEXT,
    commit_sha TEXT,
    pack_sha256 TEXT NOT NULL,
    serial TEXT NOT NULL,
    model TEXT,
    software_version TEXT,
    refresh_rate DOUBLE PRECISION,
    replay BOOLEAN NOT NULL,
    verdict TEXT NOT NULL,
    arm TEXT,
    report_id TEXT,
    run_key TEXT
);
CREATE INDEX runs_baseline ON runs (app, model, software_version, verdict, replay, recorded_at);
CREATE UNIQUE INDEX runs_report_id ON runs (report_id);
CREATE INDEX runs_run_key ON runs (run_key);
CREATE INDEX runs_model_time ON runs (model, recorded_at);
CREATE TABLE measurements (
    seq BIGINT GENERATED ALWAYS AS IDENTITY,
    run_id BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    criterion TEXT NOT NULL,
    probe TEXT NOT NULL,
    unit TEXT,
    value DOUBLE PRECISION,
    verdict TEXT NOT NULL,
    PRIMARY KEY (run_id, criterion)
);
CREATE INDEX measurements_criterion ON measurements (criterion);
CREATE INDEX measurements_series ON measurements (criterion, run_id);
CREATE TABLE samples (
    run_id BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    criterion TEXT NOT NULL,
    run BIGINT NOT NULL,
    value DOUBLE PRECISION,
    PRIMARY KEY (run_id, criterion, run)
);
CREATE TABLE comparisons (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    report_sha256 TEXT NOT NULL UNIQUE,
    report TEXT NOT NULL,
    recorded_at TEXT NOT NULL,
    verdict TEXT NOT NULL,
    baseline TEXT NOT NULL,
    candidate TEXT NOT NULL,
    report_id TEXT
);
CREATE UNIQUE INDEX comparisons_report_id ON comparisons (report_id);
CREATE TABLE compared (
    comparison_id BIGINT NOT NULL REFERENCES comparisons (id) ON DELETE CASCADE,
    criterion TEXT NOT NULL,
    verdict TEXT NOT NULL,
    delta DOUBLE PRECISION,
    delta_pct DOUBLE PRECISION,
    p DOUBLE PRECISION,
    PRIMARY KEY (comparison_id, criterion)
);
";

/// The lock every dwpipe takes on a PostgreSQL history before it creates or migrates it
/// (a transaction's advisory lock, released at its end): the same key in every release.
const PG_MIGRATION_LOCK: i64 = 0x6477_7069_7065_0001;

/// Brings the history to [`SCHEMA`] (`at`: where it is, as shown).
pub(super) fn migrate(db: &mut Db, at: &str) -> Result<(), HistoryError> {
    let failed = |source| HistoryError::Sql {
        at: at.to_owned(),
        doing: "written",
        source,
    };
    let unread = |source| HistoryError::Sql {
        at: at.to_owned(),
        doing: "read",
        source,
    };
    let checked = |found: i64| {
        if found > SCHEMA {
            return Err(HistoryError::Newer {
                at: at.to_owned(),
                found,
                known: SCHEMA,
            });
        }
        Ok(found)
    };
    // Most opens find the schema current: no write lock is taken for them.
    if checked(version(db).map_err(unread)?)? == SCHEMA {
        return Ok(());
    }
    db.transaction(failed, |db| {
        let pg = matches!(db, Db::Postgres(_));
        if pg {
            db.script(&format!(
                "SELECT pg_advisory_xact_lock({PG_MIGRATION_LOCK}); \
                 CREATE TABLE IF NOT EXISTS dwpipe_schema (version BIGINT NOT NULL)"
            ))
            .map_err(failed)?;
        }
        // Another writer may have migrated while this one waited for the lock.
        let mut found = checked(version(db).map_err(failed)?)?;
        if pg && found == 0 {
            db.script(PG_CREATE).map_err(failed)?;
            found = PG_FROM;
        }
        for (step_version, step) in STEPS.iter().enumerate().skip(found.max(0) as usize) {
            db.script(step).map_err(failed)?;
            found = step_version as i64 + 1;
        }
        set_version(db, found).map_err(failed)
    })
}

/// The schema version the history records (0: none yet).
fn version(db: &mut Db) -> Result<i64, DbError> {
    match db {
        Db::Sqlite(conn) => Ok(conn.pragma_query_value(None, "user_version", |row| row.get(0))?),
        Db::Postgres(_) => {
            let exists = db.rows(
                "SELECT to_regclass('dwpipe_schema') IS NOT NULL",
                &[],
                |row| row.boolean(0),
            )?;
            if exists.first() != Some(&true) {
                return Ok(0);
            }
            let found = db.rows("SELECT max(version) FROM dwpipe_schema", &[], |row| {
                row.int(0)
            })?;
            Ok(found.into_iter().flatten().next().unwrap_or(0))
        }
    }
}

/// Records the schema version.
fn set_version(db: &mut Db, version: i64) -> Result<(), DbError> {
    match db {
        Db::Sqlite(conn) => Ok(conn.pragma_update(None, "user_version", version)?),
        Db::Postgres(_) => {
            db.script("DELETE FROM dwpipe_schema")?;
            db.execute(
                "INSERT INTO dwpipe_schema (version) VALUES (?1)",
                &[Arg::Int(Some(version))],
            )
            .map(drop)
        }
    }
}

#[cfg(test)]
mod tests;
