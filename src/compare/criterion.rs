//! One criterion's two arms: by the statistics (Mann-Whitney U, Kolmogorov-Smirnov, a
//! bootstrap interval of the median delta against a floor) when both arms have numbers and the
//! assertion a direction, else by the two audits' verdicts.

use crate::assertion::{Expectation, Worse};
use crate::audit::MeasurementRecord;
use crate::gate::AssertionVerdict;
use crate::hash::sha256_hex;
use crate::pack::{Floor, Weight};
use crate::schema::{ArmStats, Compared, Outcome, Regression};

/// The significance a difference needs.
pub(super) const ALPHA: f64 = 0.01;
/// Runs per arm below which `p ≤ 0.01` cannot happen (4 against 4: at best 0.029).
pub(super) const MIN_RUNS: usize = 5;
/// The bootstrap's seed: the candidate's lock and the criterion, so a re-run gives the same
/// interval.
pub(super) fn seed_of(lock: &str, criterion: &str) -> [u8; 32] {
    let hex = sha256_hex(format!("{lock}:{criterion}").as_bytes());
    let mut seed = [0u8; 32];
    for (i, byte) in seed.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap_or(0);
    }
    seed
}

pub(super) fn numbers(m: &MeasurementRecord) -> Vec<f64> {
    m.runs
        .iter()
        .filter_map(|r| r.value.as_ref()?.as_number())
        .collect()
}

pub(super) fn arm(m: &MeasurementRecord, verdict: AssertionVerdict) -> ArmStats {
    let runs = numbers(m);
    ArmStats {
        n: runs.len(),
        median: super::stats::median(&runs),
        runs,
        verdict: verdict.as_str().to_owned(),
    }
}

/// One criterion: by the statistics when both arms have numbers and the assertion a
/// direction, else by the two audits' verdicts.
pub(super) fn one(
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
    let p = super::stats::mann_whitney(runs_a, runs_b)
        .1
        .min(super::stats::kolmogorov_smirnov(runs_a, runs_b).1);
    let ci = super::stats::bootstrap_ci(runs_a, runs_b, seed);
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
            "{} against {} runs: below {MIN_RUNS} runs an arm, p ≤ {ALPHA} is out of reach (4 against 4 is at best 0.029), and the interval is wider than ±{floor}{unit_text}; measure more runs: {} more on {} (at least {MIN_RUNS} an arm) before the comparison can decide",
            runs_a.len(),
            runs_b.len(),
            MIN_RUNS - runs_a.len().min(runs_b.len()),
            match (runs_a.len() < MIN_RUNS, runs_b.len() < MIN_RUNS) {
                (true, true) => "each arm",
                (true, false) => "the baseline",
                _ => "the candidate",
            }
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
    pub(crate) fn of_arms(
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
            statement: None,
            device_seconds: None,
        }
    }
}

/// A criterion without a direction, compared by its verdicts.
pub(super) fn by_verdicts(base: AssertionVerdict, cand: AssertionVerdict) -> (Regression, String) {
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
