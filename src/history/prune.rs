//! Pruning: what `history prune` deletes (audits older than a date, never a criterion's
//! last passing baseline), in one transaction.

use super::db::Arg;
use super::{History, HistoryError};

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
