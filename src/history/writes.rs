//! What a history is told: an audit report or a comparison, each recorded in one
//! transaction (a report recorded before is not recorded twice).

use super::db::Arg;
use super::queries::{History, RunFacts, VerdictBy};
use super::{HistoryError, MeasurementRow, RunRow, insert_samples};
use crate::device::Source;
use crate::schema::{AuditReport, Comparison};
use std::path::Path;

impl History {
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
        let report_path = crate::text::doc_path(&report_path);
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
            run_uid: identity.run_id.clone(),
        };
        let at = self.at.clone();
        let mut held_run = None;
        let recorded = self
            .db
            .transaction(std::convert::identity, |db| {
                // The run held already as another report: a copy under other times.
                if let Some(uid) = &run.run_uid {
                    let held = db.rows(
                        "SELECT report, recorded_at FROM runs WHERE run_uid = ?1 \
                         AND report_id IS DISTINCT FROM ?2 LIMIT 1",
                        &[Arg::Text(Some(uid)), Arg::Text(run.report_id.as_deref())],
                        |row| Ok((row.text(0)?, row.text(1)?)),
                    )?;
                    if let Some((report, recorded)) = held.into_iter().next() {
                        held_run = Some((report.unwrap_or_default(), recorded.unwrap_or_default()));
                        return Ok(false);
                    }
                }
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
            .map_err(failed)?;
        match held_run {
            Some((held, recorded)) => Err(HistoryError::SameRun {
                at,
                run_id: run.run_uid.clone().unwrap_or_default(),
                held,
                recorded,
            }),
            None => Ok(recorded),
        }
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
}
