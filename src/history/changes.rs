//! Where a metric's series shifted: E-Divisive with means (Matteson & James 2014, as MongoDB's
//! `signal-processing-algorithms` runs it over its performance history). The split that
//! maximises the energy statistic `Q̂` is tested by permutation (100 shuffles of the segment,
//! a ChaCha8 generator seeded 1234, so a re-run finds the same points); a significant split
//! (`p ≤ 0.05`) is kept and both halves are searched again, the largest `Q̂` first, until a
//! split is not significant.

use std::collections::BTreeMap;

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{RngCore, SeedableRng};

use crate::schema::{Point, Shift};

/// The significance a split needs.
pub(crate) const P_VALUE: f64 = 0.05;
/// Shuffles per significance test.
pub(crate) const PERMUTATIONS: u32 = 100;
/// The generator's seed (MongoDB's default).
const SEED: u64 = 1234;
/// Points each side of a split needs (the within-sample sums divide by `n(n−1)/2`).
const MIN_SIDE: usize = 2;

/// A change point: the series changed from `index` on.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Change {
    /// The first point after the change.
    pub(crate) index: usize,
    /// `Q̂` of the split.
    pub(crate) q: f64,
    /// Its permutation p-value.
    pub(crate) p: f64,
}

/// The change points of `series`, in index order.
pub(crate) fn changes(series: &[f64]) -> Vec<Change> {
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    let mut cuts = vec![0, series.len()];
    let mut found = Vec::new();
    loop {
        // The best split of every segment between the cuts so far; the largest is tested.
        let best = cuts
            .windows(2)
            .filter_map(|w| {
                let (start, end) = (w[0], w[1]);
                best_split(&series[start..end]).map(|(at, q)| (start, end, start + at, q))
            })
            .max_by(|a, b| a.3.total_cmp(&b.3));
        let Some((start, end, index, q)) = best else {
            break;
        };
        let p = significance(&series[start..end], q, &mut rng);
        if p > P_VALUE {
            break;
        }
        found.push(Change { index, q, p });
        cuts.push(index);
        cuts.sort_unstable();
    }
    found.sort_by_key(|c| c.index);
    found
}

/// The split of `x` with the largest `Q̂`, and that `Q̂`; none when `x` is too short.
fn best_split(x: &[f64]) -> Option<(usize, f64)> {
    let n = x.len();
    if n < 2 * MIN_SIDE {
        return None;
    }
    // Sums of |xi − xj| within the left part [0, τ), within the right [τ, n), and between,
    // moved one point at a time from right to left: O(n²) for every split.
    let distance_to = |k: usize, range: std::ops::Range<usize>| -> f64 {
        x[range].iter().map(|v| (v - x[k]).abs()).sum()
    };
    let mut left = 0.0;
    let mut right: f64 = (0..n).map(|k| distance_to(k, k + 1..n)).sum();
    let mut between = 0.0;
    let mut best: Option<(usize, f64)> = None;
    for tau in 1..n - 1 {
        // Point tau − 1 moves from the right part to the left.
        let k = tau - 1;
        let to_left = distance_to(k, 0..k);
        let to_right = distance_to(k, k + 1..n);
        left += to_left;
        right -= to_right;
        between += to_right - to_left;
        let (a, b) = (tau as f64, (n - tau) as f64);
        if tau < MIN_SIDE || n - tau < MIN_SIDE {
            continue;
        }
        let energy =
            2.0 * between / (a * b) - left / (a * (a - 1.0) / 2.0) - right / (b * (b - 1.0) / 2.0);
        let q = a * b / (a + b) * energy;
        if best.is_none_or(|(_, top)| q > top) {
            best = Some((tau, q));
        }
    }
    best
}

/// The permutation p-value of `q` for the segment `x`: the share of shuffles whose best split
/// is at least as strong, counting the observed one.
fn significance(x: &[f64], q: f64, rng: &mut ChaCha8Rng) -> f64 {
    let mut shuffled = x.to_vec();
    let mut as_strong = 0u32;
    for _ in 0..PERMUTATIONS {
        shuffle(&mut shuffled, rng);
        if best_split(&shuffled).is_some_and(|(_, top)| top >= q) {
            as_strong += 1;
        }
    }
    f64::from(as_strong + 1) / f64::from(PERMUTATIONS + 1)
}

/// Fisher–Yates, with Lemire's unbiased draws.
fn shuffle(x: &mut [f64], rng: &mut ChaCha8Rng) {
    for i in (1..x.len()).rev() {
        let j = below(rng, i as u64 + 1) as usize;
        x.swap(i, j);
    }
}

/// A uniform draw from `0..n`.
fn below(rng: &mut ChaCha8Rng, n: u64) -> u64 {
    loop {
        let m = u128::from(rng.next_u64()) * u128::from(n);
        let low = m as u64;
        if low >= n.wrapping_neg() % n {
            return (m >> 64) as u64;
        }
    }
}

/// Every criterion's series per device model, and where each shifted.
pub(crate) fn shifts(points: &[Point]) -> Vec<Shift> {
    let mut series: BTreeMap<(&str, Option<&str>), Vec<&Point>> = BTreeMap::new();
    for point in points.iter().filter(|p| p.value.is_some()) {
        series
            .entry((point.criterion.as_str(), point.model.as_deref()))
            .or_default()
            .push(point);
    }
    let mut shifts = Vec::new();
    for ((criterion, model), series) in series {
        let values: Vec<f64> = series.iter().filter_map(|p| p.value).collect();
        let found = changes(&values);
        let mut bounds: Vec<usize> = found.iter().map(|c| c.index).collect();
        bounds.insert(0, 0);
        bounds.push(values.len());
        for (i, Change { index, p, .. }) in found.iter().enumerate() {
            let mean = |range: std::ops::Range<usize>| {
                values[range.clone()].iter().sum::<f64>() / range.len() as f64
            };
            let first = series[*index];
            shifts.push(Shift {
                criterion: criterion.to_owned(),
                device_model: model.map(str::to_owned),
                run: first.run,
                recorded_at: first.recorded_at.clone(),
                report: first.report.clone(),
                before: mean(bounds[i]..*index),
                after: mean(*index..bounds[i + 2]),
                unit: first.unit.clone(),
                p: *p,
            });
        }
    }
    shifts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_planted_step_is_found_where_it_was_planted() {
        // 30 points around 700, then 30 around 770 (deterministic wobble of ±6).
        let series: Vec<f64> = (0..60)
            .map(|i| if i < 30 { 700.0 } else { 770.0 } + f64::from((i * 7) % 13) - 6.0)
            .collect();
        let found = changes(&series);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].index, 30);
        assert!(found[0].p <= P_VALUE);
        // Re-run: the same point and the same p.
        assert_eq!(changes(&series), found);
    }

    #[test]
    fn a_flat_series_has_no_change_and_two_steps_are_both_found() {
        let flat: Vec<f64> = (0..40).map(|i| 700.0 + f64::from((i * 7) % 13)).collect();
        assert_eq!(changes(&flat), vec![]);
        let steps: Vec<f64> = (0..60)
            .map(|i| match i {
                0..20 => 700.0,
                20..40 => 800.0,
                _ => 650.0,
            } + f64::from((i * 5) % 7))
            .collect();
        let at: Vec<usize> = changes(&steps).iter().map(|c| c.index).collect();
        assert_eq!(at, [20, 40]);
        assert_eq!(changes(&[1.0, 2.0, 3.0]), vec![]);
    }

    #[test]
    fn q_hat_matches_the_energy_statistic_computed_by_its_definition() {
        // By hand for x = [1, 2, 10, 11], τ = 2: between = |1−10|+|1−11|+|2−10|+|2−11| = 36,
        // within left = 1, within right = 1; Ê = 2·36/4 − 1/1 − 1/1 = 16; Q̂ = (2·2/4)·16 = 16.
        let (at, q) = best_split(&[1.0, 2.0, 10.0, 11.0]).unwrap();
        assert_eq!(at, 2);
        assert!((q - 16.0).abs() < 1e-12, "{q}");
    }
}
