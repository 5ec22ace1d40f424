//! Where a metric's series shifted: E-Divisive with means (Matteson & James 2014, as MongoDB's
//! `signal-processing-algorithms` runs it over its performance history). The split that
//! maximises the energy statistic `Q̂` is tested by permutation (100 shuffles of the segment,
//! a ChaCha8 generator seeded 1234, so a re-run finds the same points); a significant split
//! (`p ≤ 0.05`) is kept and both halves are searched again, the largest `Q̂` first, until a
//! split is not significant.

use std::collections::BTreeMap;

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{RngCore, SeedableRng};

use crate::schema::{Point, Searched, Shift};

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
                let segment = ranked(&series[w[0]..w[1]]);
                let (at, q) = best_split(&segment)?;
                Some((segment, w[0] + at, q))
            })
            .max_by(|a, b| a.2.total_cmp(&b.2));
        let Some((segment, index, q)) = best else {
            break;
        };
        let p = significance(&segment, q, &mut rng);
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

/// A segment's values, each with its rank among them: a shuffle moves the pairs, so the ranks
/// are found once per segment, not once per shuffle.
type Ranked = Vec<(f64, usize)>;

/// `x` with each value's rank (ties broken by position: equal values are 0 apart either way).
fn ranked(x: &[f64]) -> Ranked {
    let mut order: Vec<usize> = (0..x.len()).collect();
    order.sort_by(|a, b| x[*a].total_cmp(&x[*b]).then(a.cmp(b)));
    let mut ranks = vec![0; x.len()];
    for (rank, i) in order.into_iter().enumerate() {
        ranks[i] = rank;
    }
    x.iter().copied().zip(ranks).collect()
}

/// A set of values by rank (a Fenwick tree of counts and sums): the sum of distances from a
/// value to every member in O(log n).
struct RankSet {
    count: Vec<f64>,
    sum: Vec<f64>,
    size: f64,
    total: f64,
}

impl RankSet {
    fn new(n: usize) -> RankSet {
        RankSet {
            count: vec![0.0; n + 1],
            sum: vec![0.0; n + 1],
            size: 0.0,
            total: 0.0,
        }
    }

    /// Adds (`sign` 1) or removes (`sign` −1) the value `v` of rank `rank`.
    fn change(&mut self, (v, rank): (f64, usize), sign: f64) {
        self.size += sign;
        self.total += sign * v;
        let mut i = rank + 1;
        while i < self.count.len() {
            self.count[i] += sign;
            self.sum[i] += sign * v;
            i += i & i.wrapping_neg();
        }
    }

    /// Σ |v − m| over the members m (a member equal to `v` adds nothing).
    fn distance(&self, (v, rank): (f64, usize)) -> f64 {
        let (mut below, mut below_sum) = (0.0, 0.0);
        let mut i = rank;
        while i > 0 {
            below += self.count[i];
            below_sum += self.sum[i];
            i -= i & i.wrapping_neg();
        }
        let (above, above_sum) = (self.size - below, self.total - below_sum);
        (v * below - below_sum) + (above_sum - v * above)
    }
}

/// The split of `x` with the largest `Q̂`, and that `Q̂`; none when `x` is too short. Points
/// move from the right part to the left one at a time, each move's distances to both parts
/// read from rank-indexed sums: O(n log n) for every split of a segment (the sums of all
/// pairwise distances a naive pass recomputes made 20,000 audits a matter of minutes).
fn best_split(x: &[(f64, usize)]) -> Option<(usize, f64)> {
    let n = x.len();
    if n < 2 * MIN_SIDE {
        return None;
    }
    let mut left_set = RankSet::new(n);
    let mut right_set = RankSet::new(n);
    let mut sorted: Vec<f64> = vec![0.0; n];
    for point in x {
        right_set.change(*point, 1.0);
        sorted[point.1] = point.0;
    }
    // Σ over pairs of |xi − xj| = Σ_k sorted[k]·(2k − n + 1).
    let mut right: f64 = sorted
        .iter()
        .enumerate()
        .map(|(k, v)| v * (2.0 * k as f64 - (n - 1) as f64))
        .sum();
    let (mut left, mut between) = (0.0, 0.0);
    let mut best: Option<(usize, f64)> = None;
    for tau in 1..n - 1 {
        // Point tau − 1 moves from the right part to the left.
        let point = x[tau - 1];
        let to_left = left_set.distance(point);
        let to_right = right_set.distance(point);
        right_set.change(point, -1.0);
        left_set.change(point, 1.0);
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
fn significance(x: &[(f64, usize)], q: f64, rng: &mut ChaCha8Rng) -> f64 {
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
fn shuffle<T>(x: &mut [T], rng: &mut ChaCha8Rng) {
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

/// How much of each series `--changes` searches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Window {
    /// Its latest audits, at most this many.
    Last(usize),
    /// All of it.
    All,
}

impl Window {
    /// The window a search uses unless told: the latest 5,000 audits of each series (over a
    /// decade of nightly runs; 20,000 take 0.3 s, `cargo bench --bench history`), so that the
    /// work is bounded however long a history grows.
    pub(crate) const DEFAULT: Window = Window::Last(5_000);
}

/// Every criterion's series per device model — within `window`, its latest audits — and where
/// each shifted; with what was searched of each series.
pub(crate) fn shifts(points: &[Point], window: Window) -> (Vec<Shift>, Vec<Searched>) {
    let mut series: BTreeMap<(&str, Option<&str>), Vec<&Point>> = BTreeMap::new();
    for point in points.iter().filter(|p| p.value.is_some()) {
        series
            .entry((point.criterion.as_str(), point.model.as_deref()))
            .or_default()
            .push(point);
    }
    let mut shifts = Vec::new();
    let mut searched = Vec::new();
    for ((criterion, model), whole) in series {
        let from = match window {
            Window::Last(n) => whole.len().saturating_sub(n),
            Window::All => 0,
        };
        let series = &whole[from..];
        searched.push(Searched {
            criterion: criterion.to_owned(),
            device_model: model.map(str::to_owned),
            audits: whole.len(),
            searched: series.len(),
            since: series.first().map(|p| p.recorded_at.clone()),
        });
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
    (shifts, searched)
}

#[cfg(test)]
mod tests;
