//! The history's SQLite file, opened for many writers: WAL mode, a busy timeout, foreign keys,
//! and a planted link in dwpipe's own folder refused.

use super::HistoryError;
use std::path::Path;
use std::time::Duration;

/// How long a writer waits for another to finish before the write fails.
pub(super) const BUSY_TIMEOUT: Duration = Duration::from_secs(30);
/// The SQLite file at `path`, opened for many writers: WAL, a busy timeout, foreign keys.
pub(super) fn open_file(path: &Path) -> Result<rusqlite::Connection, HistoryError> {
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
pub(super) fn wal(conn: &rusqlite::Connection) -> rusqlite::Result<()> {
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
mod tests;
