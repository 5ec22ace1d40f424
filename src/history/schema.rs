//! The history's tables, versioned by `PRAGMA user_version`: an empty database is created at
//! the current version, an older one migrated step by step (each step one transaction), a
//! newer one refused.

use std::path::Path;

use rusqlite::Connection;

use super::HistoryError;

/// The schema this dwpipe writes.
pub(crate) const SCHEMA: i64 = 1;

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

/// The steps from each version to the next: `STEPS[v]` takes version `v` to `v + 1`.
const STEPS: [&str; SCHEMA as usize] = [V1];

/// Brings the database at `path` to [`SCHEMA`].
pub(super) fn migrate(conn: &mut Connection, path: &Path) -> Result<(), HistoryError> {
    let failed = |source| HistoryError::Sql {
        path: path.to_owned(),
        doing: "written",
        source,
    };
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
    for (version, step) in STEPS.iter().enumerate().skip(found.max(0) as usize) {
        let tx = conn.transaction().map_err(failed)?;
        tx.execute_batch(step).map_err(failed)?;
        tx.pragma_update(None, "user_version", version as i64 + 1)
            .map_err(failed)?;
        tx.commit().map_err(failed)?;
    }
    Ok(())
}
