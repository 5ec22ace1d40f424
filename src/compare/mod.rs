//! The regression gate: a candidate audit held against a baseline audit of the same device
//! model, software and refresh rate, criterion by criterion. Three honest outcomes per
//! criterion (Pinpoint's): `different` when `p ≤ 0.01` and the median moved at least the
//! floor, `same` when the whole 95 % interval of the median delta lies strictly inside the
//! floor, `unknown` otherwise; the assertion's direction turns them into `regressed`,
//! `improved`, `same` or `inconclusive`. Nothing that was not shown is a pass: inconclusive
//! fails like regressed.

mod files;
pub(crate) mod stats;

use std::collections::HashMap;

use crate::assertion::{Expectation, Worse};
use crate::audit::MeasurementRecord;
use crate::device::DeviceInfo;
use crate::diagnostic::Diagnostic;
use crate::gate::AssertionVerdict;
use crate::hash::sha256_hex;
use crate::pack::{Floor, Frozen, Weight};
use crate::schema::{ArmStats, AuditReport, Compared, Comparison, Outcome, Regression, Side};

pub(crate) use files::{from_files, read_audit};

/// The significance a difference needs.
const ALPHA: f64 = 0.01;
/// Runs per arm below which `p ≤ 0.01` cannot happen (4 against 4: at best 0.029).
const MIN_RUNS: usize = 5;

/// Why two audits cannot be compared.
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    /// An audit of an outside auditor's report has no device and no runs.
    #[error("`{0}` is not an audit of a device (it holds an outside auditor's checks)")]
    NoDevice(String),
    /// The devices differ in what moves the numbers.
    #[error("the audits were made on different devices: {0}")]
    DeviceDiffers(String),
    /// No criterion of the pack was measured in both audits: a gate that compared nothing.
    #[error("no criterion of the pack was measured in both audits: nothing would be compared")]
    NothingInCommon,
}

impl CompareError {
    /// The stable code.
    pub(crate) fn code(&self) -> &'static str {
        match self {
            CompareError::NoDevice(_) => "E_COMPARE_NOT_AN_AUDIT",
            CompareError::DeviceDiffers(_) => "E_COMPARE_DEVICE_DIFFERS",
            CompareError::NothingInCommon => "E_COMPARE_NOTHING_IN_COMMON",
        }
    }

    /// How to put it right.
    pub(crate) fn fix(&self) -> &'static str {
        match self {
            CompareError::NoDevice(_) | CompareError::DeviceDiffers(_) => {
                "compare audits of one device model, software version and refresh rate"
            }
            CompareError::NothingInCommon => {
                "compare two audits of the same pack (or of packs that share criteria with probes)"
            }
        }
    }
}

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
    let mut diagnostics = Vec::new();
    same_device(a, b, &mut diagnostics)?;
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
    let workers = std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .clamp(1, jobs.len().max(1));
    let per = jobs.len().div_ceil(workers).max(1);
    let criteria: Vec<Compared> = std::thread::scope(|scope| {
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
                                seed_of(&candidate.pack_sha256, &criterion.id),
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
    });
    if criteria.is_empty() {
        return Err(CompareError::NothingInCommon);
    }
    let verdict = overall(&criteria, &mut diagnostics);
    let side = |report: &AuditReport, name: &str| Side {
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
    };
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

/// The first 12 characters of a hash.
fn short(sha256: &str) -> &str {
    sha256.get(..12).unwrap_or(sha256)
}

/// An audit's measured criteria, by id: its measurement and recomputed verdict.
type ById<'r> = HashMap<&'r str, (&'r MeasurementRecord, AssertionVerdict)>;

/// Each audit's measured criteria by id, found once (a pack may hold thousands).
fn by_id(report: &AuditReport) -> ById<'_> {
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
fn same_device(
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

/// The bootstrap's seed: the candidate's lock and the criterion, so a re-run gives the same
/// interval.
fn seed_of(lock: &str, criterion: &str) -> [u8; 32] {
    let hex = sha256_hex(format!("{lock}:{criterion}").as_bytes());
    let mut seed = [0u8; 32];
    for (i, byte) in seed.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap_or(0);
    }
    seed
}

fn numbers(m: &MeasurementRecord) -> Vec<f64> {
    m.runs
        .iter()
        .filter_map(|r| r.value.as_ref()?.as_number())
        .collect()
}

fn arm(m: &MeasurementRecord, verdict: AssertionVerdict) -> ArmStats {
    let runs = numbers(m);
    ArmStats {
        n: runs.len(),
        median: stats::median(&runs),
        runs,
        verdict: verdict.as_str().to_owned(),
    }
}

/// One criterion: by the statistics when both arms have numbers and the assertion a
/// direction, else by the two audits' verdicts.
fn one(
    criterion_id: String,
    weight: Weight,
    (base, base_verdict): (&MeasurementRecord, AssertionVerdict),
    (cand, cand_verdict): (&MeasurementRecord, AssertionVerdict),
    expectation: Option<&Expectation>,
    floor: Option<&Floor>,
    seed: [u8; 32],
) -> Compared {
    let mut compared = Compared::of_arms(
        criterion_id,
        weight,
        cand,
        arm(base, base_verdict),
        arm(cand, cand_verdict),
    );
    let direction = expectation.and_then(Expectation::worse);
    let (Some(direction), Some(median_a), Some(median_b)) = (
        direction,
        compared.baseline.median,
        compared.candidate.median,
    ) else {
        let (verdict, reason) = by_verdicts(base_verdict, cand_verdict);
        compared.verdict = verdict;
        compared.reason = reason;
        return compared;
    };
    let (runs_a, runs_b) = (&compared.baseline.runs, &compared.candidate.runs);
    let unit = cand.unit.as_deref();
    let floor = floor
        .and_then(|f| f.amount(unit, median_a).ok())
        .unwrap_or_else(|| Floor::default_for(unit));
    let delta = median_b - median_a;
    let p = stats::mann_whitney(runs_a, runs_b)
        .1
        .min(stats::kolmogorov_smirnov(runs_a, runs_b).1);
    let ci = stats::bootstrap_ci(runs_a, runs_b, seed);
    let outcome = if p <= ALPHA && delta.abs() >= floor {
        Outcome::Different
    } else if ci.is_some_and(|(lo, hi)| -floor < lo && hi < floor) {
        Outcome::Same
    } else {
        Outcome::Unknown
    };
    let unit_text = unit.unwrap_or("");
    let p_text = if p < 1e-4 {
        format!("{p:.1e}")
    } else {
        format!("{p:.4}")
    };
    compared.reason = match outcome {
        Outcome::Different => format!(
            "the median moved {delta:+.3}{unit_text} (p = {p_text} ≤ {ALPHA}), at least the {floor}{unit_text} floor"
        ),
        Outcome::Same => {
            format!("the 95% interval of the median delta lies inside ±{floor}{unit_text}")
        }
        Outcome::Unknown if runs_a.len().min(runs_b.len()) < MIN_RUNS => format!(
            "{} against {} runs: below {MIN_RUNS} runs an arm, p ≤ {ALPHA} is out of reach (4 against 4 is at best 0.029), and the interval is wider than ±{floor}{unit_text}; measure more runs",
            runs_a.len(),
            runs_b.len()
        ),
        Outcome::Unknown => format!(
            "neither shown different (p = {p_text}, delta {delta:+.3}{unit_text}) nor within ±{floor}{unit_text}; measure more runs"
        ),
    };
    let worse_now = match direction {
        Worse::Larger => delta > 0.0,
        Worse::Smaller => delta < 0.0,
        Worse::AwayFrom(middle) => (median_b - middle).abs() > (median_a - middle).abs(),
    };
    compared.verdict = match outcome {
        Outcome::Different if worse_now => Regression::Regressed,
        Outcome::Different => Regression::Improved,
        Outcome::Same => Regression::Same,
        Outcome::Unknown => Regression::Inconclusive,
    };
    compared.delta = Some(delta);
    compared.delta_pct = (median_a != 0.0).then(|| delta / median_a * 100.0);
    compared.ci95 = ci.map(|(lo, hi)| [lo, hi]);
    compared.p = Some(p);
    compared.floor = Some(floor);
    compared.outcome = Some(outcome);
    compared
}

impl Compared {
    /// A criterion's two arms, with nothing concluded yet (inconclusive until shown).
    fn of_arms(
        criterion_id: String,
        weight: Weight,
        measured: &MeasurementRecord,
        baseline: ArmStats,
        candidate: ArmStats,
    ) -> Compared {
        Compared {
            criterion_id,
            weight,
            probe: measured.probe.clone(),
            unit: measured.unit.clone(),
            baseline,
            candidate,
            delta: None,
            delta_pct: None,
            ci95: None,
            p: None,
            floor: None,
            outcome: None,
            verdict: Regression::Inconclusive,
            reason: String::new(),
        }
    }
}

/// A criterion without a direction, compared by its verdicts.
fn by_verdicts(base: AssertionVerdict, cand: AssertionVerdict) -> (Regression, String) {
    use AssertionVerdict::{Fail, Pass};
    let said = format!("{} in the baseline, {} now", base.as_str(), cand.as_str());
    let verdict = match (base, cand) {
        (Pass, Fail) => Regression::Regressed,
        (Fail, Pass) => Regression::Improved,
        (Pass, Pass) | (Fail, Fail) => Regression::Same,
        _ => Regression::Inconclusive,
    };
    (verdict, said)
}

/// Regressed if a must criterion regressed, inconclusive if one is, else improved or same;
/// a should criterion that regressed is a warning.
fn overall(criteria: &[Compared], diagnostics: &mut Vec<Diagnostic>) -> Regression {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn criteria_without_a_direction_are_compared_by_their_verdicts() {
        use AssertionVerdict::{Fail, None, Pass};
        let rows = [
            (Pass, Fail, Regression::Regressed),
            (Fail, Pass, Regression::Improved),
            (Pass, Pass, Regression::Same),
            (Fail, Fail, Regression::Same),
            (Pass, None, Regression::Inconclusive),
            (None, Pass, Regression::Inconclusive),
        ];
        for (base, cand, expected) in rows {
            assert_eq!(by_verdicts(base, cand).0, expected, "{base:?} → {cand:?}");
        }
    }

    fn compared(weight: Weight, verdict: Regression) -> Compared {
        let arm = ArmStats {
            n: 0,
            median: None,
            runs: Vec::new(),
            verdict: String::new(),
        };
        let record: MeasurementRecord = serde_json::from_value(serde_json::json!({
            "criterion-id": "X", "probe": "perf.cold-start", "extractor": "cold-start",
            "aggregate": "median", "value": null, "unit": "ms", "actual": null,
            "resolution": 1.0, "runs": []
        }))
        .unwrap();
        Compared {
            verdict,
            reason: "why".into(),
            ..Compared::of_arms("X".into(), weight, &record, arm.clone(), arm)
        }
    }

    #[test]
    fn a_must_regression_or_doubt_decides_and_a_should_regression_warns() {
        use Regression::*;
        let rows: [(&[(Weight, Regression)], Regression); 5] = [
            (
                &[(Weight::Must, Same), (Weight::Must, Regressed)],
                Regressed,
            ),
            (
                &[(Weight::Must, Inconclusive), (Weight::Must, Improved)],
                Inconclusive,
            ),
            (
                &[(Weight::Must, Same), (Weight::Should, Inconclusive)],
                Same,
            ),
            (
                &[(Weight::Must, Same), (Weight::Should, Improved)],
                Improved,
            ),
            (&[(Weight::Must, Same), (Weight::Should, Regressed)], Same),
        ];
        for (criteria, expected) in rows {
            let criteria: Vec<Compared> = criteria.iter().map(|(w, v)| compared(*w, *v)).collect();
            let mut diagnostics = Vec::new();
            assert_eq!(overall(&criteria, &mut diagnostics), expected);
            let warned = criteria
                .iter()
                .any(|c| c.weight == Weight::Should && c.verdict == Regressed);
            assert_eq!(!diagnostics.is_empty(), warned);
        }
    }
}
