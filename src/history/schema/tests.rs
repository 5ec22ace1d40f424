//! Tests of `crate::history::schema`.

use super::*;
use crate::history::{Filter, History, Store};

/// A history written by a dwpipe of schema 2 (an audit, its measurement, its runs'
/// values) opens migrated: the values are listed as before, from the new column.
#[test]
fn a_version_2_history_is_migrated_and_lists_its_runs_values() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.sqlite");
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(V1).unwrap();
        conn.execute_batch(V2).unwrap();
        conn.execute_batch(
            "INSERT INTO runs (id, report_sha256, report, recorded_at, app, pack_sha256, \
             serial, model, replay, verdict, report_id) VALUES (1, 'a', '/r/audit-1.json', \
             '2026-01-01T00:00:00Z', 'com.example.notes', 'p', 'S', 'M', 0, 'pass', 'a');
             INSERT INTO measurements VALUES (1, 'P-01', 'cold-start', 'ms', 701.5, 'pass');
             INSERT INTO samples VALUES (1, 'P-01', 2, 702.5), (1, 'P-01', 1, 700.5),
             (1, 'P-01', 3, NULL);
             PRAGMA user_version = 2;",
        )
        .unwrap();
    }
    let mut history = History::open(&Store::Sqlite(path.clone())).unwrap();
    let points = history.series(&Filter::default()).unwrap();
    assert_eq!(points.len(), 1);
    assert_eq!(
        points[0].runs,
        [700.5, 702.5],
        "in run order, the unread run left out"
    );
    let conn = rusqlite::Connection::open(&path).unwrap();
    let version: i64 = conn
        .pragma_query_value(None, "user_version", |row| row.get(0))
        .unwrap();
    assert_eq!(version, SCHEMA);
}
