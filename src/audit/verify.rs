//! `verify-evidence`: re-hash every evidence file of an audit report and recompute every
//! reading, aggregate and assertion verdict from the files alone, offline.

use std::path::Path;

use serde::Deserialize;

use crate::assertion::UnitContext;
use crate::hash::sha256_hex;
use crate::pack::Frozen;

use super::{Context, Decoded, Files, MeasurementRecord, aggregate, extract};

#[derive(Debug, Deserialize)]
#[serde(rename_all = "kebab-case")]
struct ReportDoc {
    pack_sha256: String,
    device: Option<DeviceDoc>,
    checks: Vec<CheckDoc>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "kebab-case")]
struct DeviceDoc {
    virtual_pixel_ratio: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CheckDoc {
    assertion_verdict: String,
    #[serde(default)]
    measurements: Vec<MeasurementRecord>,
}

/// What verification found.
#[derive(Debug, Default)]
pub(crate) struct Verification {
    /// Files re-hashed.
    pub(crate) files: usize,
    /// Measurements recomputed.
    pub(crate) measurements: usize,
    /// Every difference, in words.
    pub(crate) differences: Vec<String>,
}

/// The report is not an audit report dwpipe can read.
#[derive(Debug, thiserror::Error)]
#[error("not a dwpipe audit report")]
pub(crate) struct NotAnAuditReport(#[source] serde_json::Error);

/// Verifies the audit report at `report_path` (its text already read) against `frozen`.
pub(crate) fn verify(
    report_path: &Path,
    text: &str,
    frozen: &Frozen,
) -> Result<Verification, NotAnAuditReport> {
    let report: ReportDoc = serde_json::from_str(text).map_err(NotAnAuditReport)?;
    let base = report_path.parent().unwrap_or(Path::new("."));
    let mut found = Verification::default();
    if report.pack_sha256 != frozen.lock.sha256 {
        found.differences.push(format!(
            "the report names pack {}, the lock is {}",
            report.pack_sha256, frozen.lock.sha256
        ));
    }
    let context = Context {
        bundle: &frozen.pack.doc.app.bundle.value,
        vpr: report.device.as_ref().and_then(|d| d.virtual_pixel_ratio),
    };
    for check in &report.checks {
        for measurement in &check.measurements {
            found.measurements += 1;
            let id = &measurement.criterion_id;
            let probe = frozen
                .pack
                .criteria
                .iter()
                .find(|c| &c.id == id)
                .and_then(|c| c.assertion.as_ref()?.probe.as_ref());
            let Some(probe) = probe else {
                found
                    .differences
                    .push(format!("{id}: the pack has no probe for this criterion"));
                continue;
            };
            let mut values = Vec::new();
            for run in &measurement.runs {
                let mut files = Files::new();
                for file in &run.files {
                    found.files += 1;
                    let path = base.join(&file.path);
                    match std::fs::read(&path) {
                        Ok(bytes) if sha256_hex(&bytes) == file.sha256 => {}
                        Ok(bytes) => found.differences.push(format!(
                            "{id} run {}: `{}` hashes to {}, the report says {}",
                            run.run,
                            file.path,
                            sha256_hex(&bytes),
                            file.sha256
                        )),
                        Err(e) => found
                            .differences
                            .push(format!("{id} run {}: `{}`: {e}", run.run, file.path)),
                    }
                    if let Some(name) = path.file_name() {
                        files.insert(name.to_string_lossy().into_owned(), path);
                    }
                }
                let evidence = Decoded::new(&files, context);
                let recomputed = extract(measurement.extractor, &evidence, &probe.args)
                    .ok()
                    .map(|r| r.value);
                if recomputed != run.value {
                    found.differences.push(format!(
                        "{id} run {}: the files give {recomputed:?}, the report says {:?}",
                        run.run, run.value
                    ));
                }
                values.extend(recomputed);
            }
            let recomputed = if values.len() == measurement.runs.len() {
                aggregate(&values, measurement.aggregate)
            } else {
                None
            };
            if recomputed != measurement.value {
                found.differences.push(format!(
                    "{id}: the runs aggregate to {recomputed:?}, the report says {:?}",
                    measurement.value
                ));
            }
            let verdict = match (
                &recomputed,
                frozen
                    .pack
                    .criteria
                    .iter()
                    .find(|c| &c.id == id)
                    .and_then(|c| c.assertion.as_ref()),
            ) {
                (Some(value), Some(assertion)) => {
                    let actual = super::actual(value, measurement.unit.as_deref());
                    match assertion
                        .assertion
                        .evaluate(&actual, UnitContext::default())
                    {
                        Ok(e) if e.passed => "pass",
                        _ => "fail",
                    }
                }
                _ => "none",
            };
            if recomputed.is_some() && verdict != check.assertion_verdict {
                found.differences.push(format!(
                    "{id}: the assertion recomputes to {verdict}, the report says {}",
                    check.assertion_verdict
                ));
            }
        }
    }
    Ok(found)
}
