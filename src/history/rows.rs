//! The rows an audit becomes: the run itself, each criterion's measurement and its runs'
//! samples, written in statements of bounded size.

use super::db::{Arg, Cells, Db, DbError};

/// A criterion's row in `measurements` (after its audit's id).
pub(super) struct MeasurementRow {
    pub(super) criterion: String,
    pub(super) probe: String,
    pub(super) unit: Option<String>,
    pub(super) value: Option<f64>,
    pub(super) verdict: String,
    /// Its runs' values, space-separated in run order, as a series lists them.
    pub(super) run_values: Option<String>,
}

impl MeasurementRow {
    /// A row of `SELECT criterion, probe, unit, value, verdict, run_values`.
    pub(crate) fn read(row: &dyn Cells) -> Result<MeasurementRow, DbError> {
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
    pub(crate) fn insert(&self, db: &mut Db, run_id: i64) -> Result<(), DbError> {
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
pub(super) const SAMPLES_PER_STATEMENT: usize = 250;

/// Writes the runs' values `samples` (criterion, run, value) of the audit `run_id`.
pub(super) fn insert_samples(
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

/// An audit's row in `runs` (the columns after `id`, in order).
pub(super) struct RunRow {
    pub(super) report_sha256: String,
    pub(super) report: String,
    pub(super) recorded_at: String,
    pub(super) app: String,
    pub(super) app_version: Option<String>,
    pub(super) commit: Option<String>,
    pub(super) pack_sha256: String,
    pub(super) serial: String,
    pub(super) model: Option<String>,
    pub(super) software_version: Option<String>,
    pub(super) refresh_rate: Option<f64>,
    pub(super) replay: bool,
    pub(super) verdict: String,
    pub(super) arm: Option<String>,
    pub(super) report_id: Option<String>,
    pub(super) run_key: Option<String>,
    /// How its verdict was reached (`None`: recorded before dwpipe kept it).
    pub(super) verdict_by: Option<String>,
    /// The run's own name (`None`: recorded before, or an audit that kept no times).
    pub(super) run_uid: Option<String>,
}

/// The columns of a [`RunRow`], in order.
macro_rules! run_columns {
    () => {
        "report_sha256, report, recorded_at, app, app_version, commit_sha, pack_sha256, serial, \
         model, software_version, refresh_rate, replay, verdict, arm, report_id, run_key, \
         verdict_by, run_uid"
    };
}

pub(super) use run_columns;

impl RunRow {
    /// A row whose cells from `at` on are [`run_columns`].
    pub(crate) fn read(row: &dyn Cells, at: usize) -> Result<RunRow, DbError> {
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
            run_uid: row.text(at + 17)?,
        })
    }

    /// Inserts it; its id, or `None` when the history has the report (by its bytes or its
    /// content) already.
    pub(crate) fn insert(&self, db: &mut Db) -> Result<Option<i64>, DbError> {
        let ids = db.rows(
            concat!(
                "INSERT INTO runs (",
                run_columns!(),
                ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, \
                 ?17, ?18) ON CONFLICT DO NOTHING RETURNING id"
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
                Arg::Text(self.run_uid.as_deref()),
            ],
            |row| row.int(0),
        )?;
        Ok(ids.into_iter().flatten().next())
    }
}
