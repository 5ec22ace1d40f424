//! Two audits of one pack compared criterion by criterion, once the device, the pack and the
//! readings' extractors are shown to be the same.

use super::{CompareError, one, seed_of};
use crate::audit::MeasurementRecord;
use crate::device::DeviceInfo;
use crate::diagnostic::Diagnostic;
use crate::gate::AssertionVerdict;
use crate::pack::{Criterion, Frozen, Weight};
use crate::schema::{AuditReport, Compared, Comparison, Regression, Side};
use std::collections::HashMap;

/// Compares `candidate` with `baseline` by the criteria of `frozen`; `names` are the two
/// reports' paths and `lock` the lock's, relative to where the comparison is kept.
pub fn compare(
    baseline: &AuditReport,
    candidate: &AuditReport,
    frozen: &Frozen,
    names: (&str, &str),
    lock: &str,
) -> Result<Comparison, CompareError> {
    let pack = &frozen.pack;
    let mut diagnostics = Vec::new();
    same_arms(baseline, candidate, names, &mut diagnostics)?;
    let (in_baseline, in_candidate) = (by_id(baseline), by_id(candidate));
    // What each criterion needs, gathered first; the statistics (a 10,000-resample bootstrap
    // each) then run on every core.
    let mut jobs = Vec::new();
    for criterion in &pack.criteria {
        let (Some(&base), Some(&cand)) = (
            in_baseline.get(criterion.id.as_str()),
            in_candidate.get(criterion.id.as_str()),
        ) else {
            continue;
        };
        if base.0.probe != cand.0.probe {
            diagnostics.push(
                Diagnostic::warning(
                    "W_COMPARE_PROBE_CHANGED",
                    format!(
                        "measured by `{}` in the baseline, `{}` now: not compared",
                        base.0.probe, cand.0.probe
                    ),
                )
                .criterion(&criterion.id)
                .fix("compare audits of the same pack"),
            );
            continue;
        }
        jobs.push((criterion, base, cand));
    }
    let mut criteria = compared_in_parallel(&jobs, frozen, &candidate.pack_sha256);
    for (compared, (criterion, (base, _), (cand, _))) in criteria.iter_mut().zip(&jobs) {
        compared.statement = Some(criterion.statement.clone());
        let time = |report: &AuditReport, measured: &MeasurementRecord| {
            let time = report.device_time.as_ref()?;
            Some(time.seconds_of(measured.runs.iter()))
        };
        compared.device_seconds = match (time(baseline, base), time(candidate, cand)) {
            (Some(a), Some(b)) => Some(((a + b) * 1000.0).round() / 1000.0),
            _ => None,
        };
    }
    if criteria.is_empty() {
        return Err(CompareError::NothingInCommon);
    }
    let verdict = overall(&criteria, &mut diagnostics);
    Ok(Comparison {
        format_version: crate::format::COMPARE,
        dwpipe_version: env!("CARGO_PKG_VERSION").to_owned(),
        verdict,
        lock: lock.to_owned(),
        lock_sha256: Some(frozen.lock.sha256.clone()),
        baseline: side(baseline, names.0),
        candidate: side(candidate, names.1),
        criteria,
        diagnostics,
    })
}

/// Shows the two audits comparable: one device (an error otherwise); a different device state
/// or pack is said in `diagnostics`.
fn same_arms(
    baseline: &AuditReport,
    candidate: &AuditReport,
    names: (&str, &str),
    diagnostics: &mut Vec<Diagnostic>,
) -> Result<(), CompareError> {
    let (a, b) = (
        baseline
            .device
            .as_ref()
            .ok_or_else(|| CompareError::NoDevice(names.0.to_owned()))?,
        candidate
            .device
            .as_ref()
            .ok_or_else(|| CompareError::NoDevice(names.1.to_owned()))?,
    );
    same_device(a, b, diagnostics)?;
    if let (Some(x), Some(y)) = (&baseline.device_state, &candidate.device_state) {
        diagnostics.extend(x.before.differences(&y.before).map(|differs| {
            Diagnostic::warning(
                "W_COMPARE_STATE_DIFFERS",
                format!("the arms ran in different device states: {differs}"),
            )
            .fix("compare audits made in the same state (a lab's `device.require` holds every audit to one)")
        }));
    }
    if baseline.pack_sha256 != candidate.pack_sha256 {
        diagnostics.push(
            Diagnostic::warning(
                "W_COMPARE_PACKS_DIFFER",
                format!(
                    "the audits were held against different packs ({} and {}): only the criteria both measured are compared",
                    short(&baseline.pack_sha256),
                    short(&candidate.pack_sha256)
                ),
            )
            .fix("compare two audits of the same frozen pack"),
        );
    }
    Ok(())
}

/// The criteria both audits measured with one probe, compared on every core (each a
/// 10,000-resample bootstrap).
fn compared_in_parallel(
    jobs: &[(&Criterion, Measured<'_>, Measured<'_>)],
    frozen: &Frozen,
    pack_sha256: &str,
) -> Vec<Compared> {
    let pack = &frozen.pack;
    let workers = std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .clamp(1, jobs.len().max(1));
    let per = jobs.len().div_ceil(workers).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = jobs
            .chunks(per)
            .map(|chunk| {
                scope.spawn(move || {
                    chunk
                        .iter()
                        .map(|(criterion, (base, base_verdict), (cand, cand_verdict))| {
                            one(
                                criterion.id.clone(),
                                criterion.weight,
                                (base, *base_verdict),
                                (cand, *cand_verdict),
                                criterion
                                    .assertion
                                    .as_ref()
                                    .map(|a| &a.assertion.expectation),
                                criterion.regression.as_ref().or(pack.regression.as_ref()),
                                seed_of(pack_sha256, &criterion.id),
                            )
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        // A worker that panicked is dwpipe's bug: it is raised again, never a criterion lost.
        handles
            .into_iter()
            .flat_map(|h| {
                h.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    })
}

/// One arm as the comparison names it.
fn side(report: &AuditReport, name: &str) -> Side {
    Side {
        report: name.to_owned(),
        report_sha256: None,
        pack_sha256: report.pack_sha256.clone(),
        device: report.device.clone(),
        source: report.source.clone(),
        installed: report
            .inputs
            .as_ref()
            .map(|i| i.installed.clone())
            .unwrap_or_default(),
    }
}

/// The first 12 characters of a hash.
pub(super) fn short(sha256: &str) -> &str {
    sha256.get(..12).unwrap_or(sha256)
}

/// An audit's measured criteria, by id: its measurement and recomputed verdict.
pub(super) type ById<'r> = HashMap<&'r str, Measured<'r>>;

/// A criterion's measurement in one audit and its recomputed verdict.
pub(super) type Measured<'r> = (&'r MeasurementRecord, AssertionVerdict);

/// Each audit's measured criteria by id, found once (a pack may hold thousands).
pub(super) fn by_id(report: &AuditReport) -> ById<'_> {
    report
        .checks
        .iter()
        .filter_map(|c| {
            let first = c.measurements.first()?;
            Some((
                c.check.criterion_id.as_str(),
                (first, c.check.assertion_verdict),
            ))
        })
        .collect()
}

/// Model, software and refresh rate must match; a refresh rate an older audit did not record
/// is a warning.
pub(super) fn same_device(
    a: &DeviceInfo,
    b: &DeviceInfo,
    diagnostics: &mut Vec<Diagnostic>,
) -> Result<(), CompareError> {
    let mut differs = Vec::new();
    let shown = |v: &Option<String>| {
        v.as_ref()
            .map_or_else(|| "unknown".to_owned(), |v| format!("`{v}`"))
    };
    if a.model != b.model {
        differs.push(format!(
            "model {} against {}",
            shown(&a.model),
            shown(&b.model)
        ));
    }
    if a.software_version != b.software_version {
        differs.push(format!(
            "software {} against {}",
            shown(&a.software_version),
            shown(&b.software_version)
        ));
    }
    match (a.refresh_rate, b.refresh_rate) {
        (Some(x), Some(y)) if x != y => differs.push(format!("refresh rate {x} Hz against {y} Hz")),
        (Some(_), Some(_)) => {}
        _ => diagnostics.push(
            Diagnostic::warning(
                "W_COMPARE_REFRESH_UNKNOWN",
                "an audit does not record the device's refresh rate: it may differ between the arms",
            )
            .fix("audit both arms with this dwpipe, which records it"),
        ),
    }
    if differs.is_empty() {
        Ok(())
    } else {
        Err(CompareError::DeviceDiffers(differs.join("; ")))
    }
}

/// Regressed if a must criterion regressed, inconclusive if one is, else improved or same;
/// a should criterion that regressed is a warning.
pub(super) fn overall(criteria: &[Compared], diagnostics: &mut Vec<Diagnostic>) -> Regression {
    for c in criteria
        .iter()
        .filter(|c| c.weight == Weight::Should && c.verdict == Regression::Regressed)
    {
        diagnostics.push(
            Diagnostic::warning("W_COMPARE_SHOULD_REGRESSED", c.reason.clone())
                .criterion(&c.criterion_id)
                .fix("look at the should criterion before the release"),
        );
    }
    let must = || criteria.iter().filter(|c| c.weight == Weight::Must);
    if must().any(|c| c.verdict == Regression::Regressed) {
        Regression::Regressed
    } else if must().any(|c| c.verdict == Regression::Inconclusive) {
        Regression::Inconclusive
    } else if criteria.iter().any(|c| c.verdict == Regression::Improved) {
        Regression::Improved
    } else {
        Regression::Same
    }
}
