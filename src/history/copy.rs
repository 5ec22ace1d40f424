//! `dwpipe history import HISTORY.sqlite`: a whole SQLite history moved into another history
//! (a lab's host files into the shared PostgreSQL server, or two files into one). Rows are
//! copied as they were recorded (their times, their reports' paths on the host that made
//! them); a report the target has already (by its bytes or its content) is counted, not
//! copied twice, so an import repeated or interrupted and run again records each audit once.
//! Read in pages by id and written one transaction per page: memory stays bounded whatever
//! the history's size, and a page is all there or not at all. A row the target cannot hold
//! (PostgreSQL takes no NUL byte in text; an index row has a size limit) is named and passed
//! over: its page is written again a row at a time, so an import from SQLite is never stopped
//! (nor every rerun of it blocked) by one report.

use super::db::Db;
use super::{
    Arg, Cells, DbError, History, HistoryError, MeasurementRow, RunRow, insert_samples, run_columns,
};
use crate::schema::Imported;

/// Audits (or comparisons) per page.
const PAGE: i64 = 500;

/// Whether `path` is an SQLite database (its first 16 bytes say so).
pub(crate) fn is_sqlite(path: &std::path::Path) -> bool {
    use std::io::Read;
    let mut magic = [0u8; 16];
    std::fs::File::open(path)
        .and_then(|mut file| file.read_exact(&mut magic))
        .is_ok_and(|()| &magic == b"SQLite format 3\0")
}

/// A comparison's row and its criteria.
struct ComparisonRow {
    id: i64,
    report_sha256: String,
    report: String,
    recorded_at: String,
    verdict: String,
    baseline: String,
    candidate: String,
    report_id: Option<String>,
}

impl History {
    /// Copies every audit and comparison of `self` into `into`, counting them in `imported`.
    pub(crate) fn copy_into(
        &mut self,
        into: &mut History,
        imported: &mut Imported,
    ) -> Result<(), HistoryError> {
        let (read, written) = (self.failed("read"), into.failed("written"));
        let mut after = 0;
        loop {
            let runs = self
                .db
                .rows(
                    concat!(
                        "SELECT id, ",
                        run_columns!(),
                        " FROM runs WHERE id > ?1 ORDER BY id LIMIT ?2"
                    ),
                    &[Arg::Int(Some(after)), Arg::Int(Some(PAGE))],
                    |row| Ok((row.int(0)?.unwrap_or_default(), RunRow::read(row, 1)?)),
                )
                .map_err(&read)?;
            let Some((last, _)) = runs.last() else { break };
            after = *last;
            let mut page = Vec::with_capacity(runs.len());
            for (id, run) in runs {
                let measurements = self.db.rows(
                    "SELECT criterion, probe, unit, value, verdict, run_values FROM measurements \
                     WHERE run_id = ?1 ORDER BY rowid",
                    &[Arg::Int(Some(id))],
                    MeasurementRow::read,
                );
                let samples = self.db.rows(
                    "SELECT criterion, run, value FROM samples WHERE run_id = ?1 \
                     ORDER BY criterion, run",
                    &[Arg::Int(Some(id))],
                    |row| {
                        Ok((
                            row.text(0)?.unwrap_or_default(),
                            row.int(1)?.unwrap_or_default(),
                            row.real(2)?,
                        ))
                    },
                );
                page.push((run, measurements.map_err(&read)?, samples.map_err(&read)?));
            }
            let (copied, known) = by_rows(&mut into.db, &page, write_runs, imported, |row| {
                &row.0.report
            })
            .map_err(&written)?;
            imported.audits += copied;
            imported.known += known;
        }
        self.copy_comparisons(into, imported)
    }

    /// The comparisons, after the audits.
    fn copy_comparisons(
        &mut self,
        into: &mut History,
        imported: &mut Imported,
    ) -> Result<(), HistoryError> {
        let (read, written) = (self.failed("read"), into.failed("written"));
        let mut after = 0;
        loop {
            let rows = self
                .db
                .rows(
                    "SELECT id, report_sha256, report, recorded_at, verdict, baseline, \
                     candidate, report_id FROM comparisons WHERE id > ?1 ORDER BY id LIMIT ?2",
                    &[Arg::Int(Some(after)), Arg::Int(Some(PAGE))],
                    comparison_row,
                )
                .map_err(&read)?;
            let Some(last) = rows.last() else { break };
            after = last.id;
            let mut page = Vec::with_capacity(rows.len());
            for row in rows {
                let criteria = self
                    .db
                    .rows(
                        "SELECT criterion, verdict, delta, delta_pct, p FROM compared \
                         WHERE comparison_id = ?1 ORDER BY rowid",
                        &[Arg::Int(Some(row.id))],
                        |c| {
                            Ok((
                                c.text(0)?.unwrap_or_default(),
                                c.text(1)?.unwrap_or_default(),
                                c.real(2)?,
                                c.real(3)?,
                                c.real(4)?,
                            ))
                        },
                    )
                    .map_err(&read)?;
                page.push((row, criteria));
            }
            let (copied, known) =
                by_rows(&mut into.db, &page, write_comparisons, imported, |row| {
                    &row.0.report
                })
                .map_err(&written)?;
            imported.comparisons += copied;
            imported.known += known;
        }
        Ok(())
    }
}

/// An audit's row, its measurements and its runs' values.
type RunPage = (RunRow, Vec<MeasurementRow>, Vec<(String, i64, Option<f64>)>);

/// A comparison's row and its criteria (criterion, verdict, delta, delta %, p).
type ComparisonPage = (
    ComparisonRow,
    Vec<(String, String, Option<f64>, Option<f64>, Option<f64>)>,
);

/// What writing a page did: rows copied, rows the target had, and rows refused (their report
/// and why).
#[derive(Default)]
struct Written {
    copied: usize,
    known: usize,
    refused: Vec<(String, String)>,
}

/// Writes a page's rows.
type WritePage<T> = fn(&mut Db, &[T]) -> Result<Written, DbError>;

/// Writes `page` in one transaction by `write` (rows copied, rows known, each refused row named
/// in `imported`); when the store refuses a row's values, again a row at a time, each such row
/// named in `imported` by its report (`report`) and passed over.
fn by_rows<T>(
    db: &mut Db,
    page: &[T],
    write: WritePage<T>,
    imported: &mut Imported,
    report: impl Fn(&T) -> &str,
) -> Result<(usize, usize), DbError> {
    let said = |written: Written, imported: &mut Imported| {
        for (report, why) in written.refused {
            imported.refuse(std::path::Path::new(&report), why);
        }
        (written.copied, written.known)
    };
    match db.transaction(std::convert::identity, |db| write(db, page)) {
        Err(e) if e.refuses_the_values() => {}
        done => return done.map(|written| said(written, imported)),
    }
    let (mut copied, mut known) = (0, 0);
    for row in page {
        match db.transaction(std::convert::identity, |db| {
            write(db, std::slice::from_ref(row))
        }) {
            Ok(written) => {
                let (c, k) = said(written, imported);
                copied += c;
                known += k;
            }
            Err(e) if e.refuses_the_values() => imported.refuse(
                std::path::Path::new(report(row)),
                format!(
                    "the history cannot hold it: {}",
                    crate::diagnostic::chain(&e)
                ),
            ),
            Err(e) => return Err(e),
        }
    }
    Ok((copied, known))
}

/// Copies audits' rows. A run the target holds already as another report (two hosts' files,
/// one holding an audit and the other a re-dated copy of it) is refused, as its import is.
fn write_runs(db: &mut Db, page: &[RunPage]) -> Result<Written, DbError> {
    let mut written = Written::default();
    for (run, measurements, samples) in page {
        if let Some(uid) = &run.run_uid {
            let held = db.rows(
                "SELECT report FROM runs WHERE run_uid = ?1 AND report_id IS DISTINCT FROM ?2 \
                 LIMIT 1",
                &[Arg::Text(Some(uid)), Arg::Text(run.report_id.as_deref())],
                |row| row.text(0),
            )?;
            if let Some(held) = held.into_iter().next() {
                written.refused.push((
                    run.report.clone(),
                    format!(
                        "the history holds this audit's run ({uid}) already, as {}: a copy of one audit under other times is not another audit",
                        held.unwrap_or_default()
                    ),
                ));
                continue;
            }
        }
        let Some(id) = run.insert(db)? else {
            written.known += 1;
            continue;
        };
        for measurement in measurements {
            measurement.insert(db, id)?;
        }
        let samples: Vec<(&str, i64, Option<f64>)> = samples
            .iter()
            .map(|(criterion, run, value)| (criterion.as_str(), *run, *value))
            .collect();
        insert_samples(db, id, &samples)?;
        written.copied += 1;
    }
    Ok(written)
}

/// Copies comparisons' rows.
fn write_comparisons(db: &mut Db, page: &[ComparisonPage]) -> Result<Written, DbError> {
    let mut written = Written::default();
    for (c, criteria) in page {
        let ids = db.rows(
            "INSERT INTO comparisons (report_sha256, report, recorded_at, verdict, baseline, \
             candidate, report_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) \
             ON CONFLICT DO NOTHING RETURNING id",
            &[
                Arg::Text(Some(&c.report_sha256)),
                Arg::Text(Some(&c.report)),
                Arg::Text(Some(&c.recorded_at)),
                Arg::Text(Some(&c.verdict)),
                Arg::Text(Some(&c.baseline)),
                Arg::Text(Some(&c.candidate)),
                Arg::Text(c.report_id.as_deref()),
            ],
            |row| row.int(0),
        )?;
        let Some(Some(id)) = ids.first().copied() else {
            written.known += 1;
            continue;
        };
        for (criterion, verdict, delta, delta_pct, p) in criteria {
            db.execute(
                "INSERT INTO compared (comparison_id, criterion, verdict, delta, delta_pct, p) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                &[
                    Arg::Int(Some(id)),
                    Arg::Text(Some(criterion)),
                    Arg::Text(Some(verdict)),
                    Arg::Real(*delta),
                    Arg::Real(*delta_pct),
                    Arg::Real(*p),
                ],
            )?;
        }
        written.copied += 1;
    }
    Ok(written)
}

fn comparison_row(row: &dyn Cells) -> Result<ComparisonRow, DbError> {
    let text = |i| row.text(i).map(Option::unwrap_or_default);
    Ok(ComparisonRow {
        id: row.int(0)?.unwrap_or_default(),
        report_sha256: text(1)?,
        report: text(2)?,
        recorded_at: text(3)?,
        verdict: text(4)?,
        baseline: text(5)?,
        candidate: text(6)?,
        report_id: row.text(7)?,
    })
}
