//! The history's tables, versioned by `PRAGMA user_version`: an empty database is created at
//! the current version, an older one migrated step by step, a newer one refused. Creation and
//! migration run in one immediate transaction that reads the version again once it holds the
//! write lock, so any number of writers meeting a new or an old database at once agree: the
//! first migrates, the others find it done.

use std::path::Path;

use rusqlite::{Connection, TransactionBehavior};

use super::HistoryError;

/// The schema this dwpipe writes.
pub(crate) const SCHEMA: i64 = 2;

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

/// The steps from each version to the next: `STEPS[v]` takes version `v` to `v + 1`.
const STEPS: [&str; SCHEMA as usize] = [V1, V2];

/// Brings the database at `path` to [`SCHEMA`].
pub(super) fn migrate(conn: &mut Connection, path: &Path) -> Result<(), HistoryError> {
    let failed = |source| HistoryError::Sql {
        path: path.to_owned(),
        doing: "written",
        source,
    };
    let version = |conn: &Connection| -> Result<i64, HistoryError> {
        let found: i64 = conn
            .pragma_query_value(None, "user_version", |row| row.get(0))
            .map_err(|source| HistoryError::Open {
                path: path.to_owned(),
                source,
            })?;
        if found > SCHEMA {
            return Err(HistoryError::Newer {
                path: path.to_owned(),
                found,
            });
        }
        Ok(found)
    };
    // Most opens find the schema current: no write lock is taken for them.
    if version(conn)? == SCHEMA {
        return Ok(());
    }
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(failed)?;
    // Another writer may have migrated while this one waited for the lock.
    let found = version(&tx)?;
    for (step_version, step) in STEPS.iter().enumerate().skip(found.max(0) as usize) {
        tx.execute_batch(step).map_err(failed)?;
        tx.pragma_update(None, "user_version", step_version as i64 + 1)
            .map_err(failed)?;
    }
    tx.commit().map_err(failed)
}
