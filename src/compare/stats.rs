//! The statistics of a regression comparison, as Chromium's Pinpoint uses them: the median of
//! each arm, a percentile-bootstrap 95 % interval of the median delta, and
//! `p = min(Mann–Whitney U, two-sample Kolmogorov–Smirnov)` (Mann–Whitney misses changes of
//! spread, Kolmogorov–Smirnov is weak on discrete data). Both tests are two-sided and follow
//! scipy's choices, so their p-values can be checked against it: Mann–Whitney exact when an
//! arm has at most 8 runs and nothing ties, else normal with the tie correction and a
//! continuity correction; Kolmogorov–Smirnov exact (the probability that a random merge of the
//! two samples stays inside the observed distance).

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{RngCore, SeedableRng};

/// Resamples of the bootstrap.
pub(crate) const RESAMPLES: usize = 10_000;

/// The median (the mean of the middle two for an even count); `None` for no values.
pub(crate) fn median(values: &[f64]) -> Option<f64> {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2]),
        _ => Some((sorted[n / 2 - 1] + sorted[n / 2]) / 2.0),
    }
}

/// Mann–Whitney U of `a` against `b`: `U` of `a` (scipy's statistic) and the two-sided p.
pub(crate) fn mann_whitney(a: &[f64], b: &[f64]) -> (f64, f64) {
    let (n1, n2) = (a.len(), b.len());
    let mut all: Vec<(f64, bool)> = a
        .iter()
        .map(|v| (*v, true))
        .chain(b.iter().map(|v| (*v, false)))
        .collect();
    all.sort_by(|x, y| x.0.total_cmp(&y.0));
    // Midranks, and the tie sizes for the variance's correction.
    let mut rank_sum_a = 0.0;
    let mut tie_term = 0.0;
    let mut i = 0;
    while i < all.len() {
        let mut j = i;
        while j + 1 < all.len() && all[j + 1].0 == all[i].0 {
            j += 1;
        }
        let rank = (i + j) as f64 / 2.0 + 1.0;
        let t = (j - i + 1) as f64;
        tie_term += t * t * t - t;
        rank_sum_a += rank * all[i..=j].iter().filter(|x| x.1).count() as f64;
        i = j + 1;
    }
    let u1 = rank_sum_a - (n1 * (n1 + 1)) as f64 / 2.0;
    let (f1, f2) = (n1 as f64, n2 as f64);
    let u2 = f1 * f2 - u1;
    let p = if (n1 <= 8 || n2 <= 8) && tie_term == 0.0 {
        exact_mann_whitney(n1, n2, u1.max(u2) as usize)
    } else {
        let n = f1 + f2;
        let sigma = (f1 * f2 / 12.0 * ((n + 1.0) - tie_term / (n * (n - 1.0)))).sqrt();
        if sigma == 0.0 {
            1.0
        } else {
            let z = (u1.max(u2) - f1 * f2 / 2.0 - 0.5) / sigma;
            (libm::erfc(z / std::f64::consts::SQRT_2)).min(1.0)
        }
    };
    (u1, p.clamp(0.0, 1.0))
}

/// Two-sided exact p of `U ≥ big` (the larger of the two U's) without ties: twice the upper
/// tail of U's distribution over every arrangement of the two arms, by the recursion
/// `f(m, n, u) = f(m − 1, n, u − n) + f(m, n − 1, u)` (the largest value is of the first arm
/// and beats all `n` of the second, or it is of the second), rolled over `n`.
fn exact_mann_whitney(n1: usize, n2: usize, big: usize) -> f64 {
    let max_u = n1 * n2;
    // by_m[m][u] = f(m, n, u) for the current n.
    let mut by_m: Vec<Vec<f64>> = (0..=n1)
        .map(|_| {
            let mut d = vec![0.0; max_u + 1];
            d[0] = 1.0;
            d
        })
        .collect();
    for n in 1..=n2 {
        for m in 1..=n1 {
            // by_m[m] still holds f(m, n − 1, ·); by_m[m − 1] already holds f(m − 1, n, ·).
            let (done, rest) = by_m.split_at_mut(m);
            let (shorter, this) = (&done[m - 1], &mut rest[0]);
            for u in (n..=max_u).rev() {
                this[u] += shorter[u - n];
            }
        }
    }
    let counts = &by_m[n1];
    let total: f64 = counts.iter().sum();
    let upper: f64 = counts[big.min(max_u)..].iter().sum();
    (2.0 * upper / total).min(1.0)
}

/// The two-sample Kolmogorov–Smirnov statistic and its exact two-sided p.
pub(crate) fn kolmogorov_smirnov(a: &[f64], b: &[f64]) -> (f64, f64) {
    let (n1, n2) = (a.len(), b.len());
    if n1 == 0 || n2 == 0 {
        return (0.0, 1.0);
    }
    let mut x = a.to_vec();
    let mut y = b.to_vec();
    x.sort_by(f64::total_cmp);
    y.sort_by(f64::total_cmp);
    // The largest |i·n2 − j·n1| over the values, ties taken together: D = that / (n1·n2).
    let (mut i, mut j, mut d) = (0usize, 0usize, 0i64);
    while i < n1 || j < n2 {
        let v = match (x.get(i), y.get(j)) {
            (Some(p), Some(q)) => p.min(*q),
            (Some(p), None) => *p,
            (None, Some(q)) => *q,
            (None, None) => break,
        };
        while i < n1 && x[i] == v {
            i += 1;
        }
        while j < n2 && y[j] == v {
            j += 1;
        }
        d = d.max((i as i64 * n2 as i64 - j as i64 * n1 as i64).abs());
    }
    let statistic = d as f64 / (n1 * n2) as f64;
    (statistic, 1.0 - inside(n1, n2, d))
}

/// The probability that a uniformly random merge of `n1` and `n2` values keeps
/// `|i·n2 − j·n1| < d` at every step: drawing the merge one value at a time, an `a` value
/// comes next with the probability of what is left of `a`.
fn inside(n1: usize, n2: usize, d: i64) -> f64 {
    let ok = |i: usize, j: usize| (i as i64 * n2 as i64 - j as i64 * n1 as i64).abs() < d;
    let mut row = vec![0.0f64; n2 + 1];
    row[0] = 1.0;
    for i in 0..=n1 {
        let mut next = vec![0.0f64; n2 + 1];
        for j in 0..=n2 {
            if !ok(i, j) {
                row[j] = 0.0;
                continue;
            }
            let p = row[j];
            if p == 0.0 {
                continue;
            }
            let left = (n1 - i + n2 - j) as f64;
            if i < n1 {
                next[j] += p * (n1 - i) as f64 / left;
            }
            if j < n2 {
                row[j + 1] += p * (n2 - j) as f64 / left;
            }
        }
        if i == n1 {
            return row[n2];
        }
        row = next;
    }
    0.0
}

/// The percentile bootstrap 95 % interval of `median(b) − median(a)`: each arm resampled with
/// replacement [`RESAMPLES`] times by ChaCha8 seeded with `seed`, the 2.5th and 97.5th
/// percentiles of the deltas (linear interpolation between ranks, numpy's default).
pub(crate) fn bootstrap_ci(a: &[f64], b: &[f64], seed: [u8; 32]) -> Option<(f64, f64)> {
    if a.is_empty() || b.is_empty() {
        return None;
    }
    let mut rng = ChaCha8Rng::from_seed(seed);
    let (a, b) = (Resampler::new(a), Resampler::new(b));
    let (mut counts_a, mut counts_b) = (vec![0u32; a.sorted.len()], vec![0u32; b.sorted.len()]);
    let mut deltas: Vec<f64> = (0..RESAMPLES)
        .map(|_| b.median(&mut rng, &mut counts_b) - a.median(&mut rng, &mut counts_a))
        .collect();
    deltas.sort_by(f64::total_cmp);
    Some((percentile(&deltas, 2.5), percentile(&deltas, 97.5)))
}

/// An arm, sorted once: a resample is how often each of its values was drawn, and its median
/// is found by walking those counts (no sort per resample).
struct Resampler {
    sorted: Vec<f64>,
}

impl Resampler {
    fn new(values: &[f64]) -> Resampler {
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        Resampler { sorted }
    }

    /// The median of one resample with replacement.
    fn median(&self, rng: &mut ChaCha8Rng, counts: &mut [u32]) -> f64 {
        let n = self.sorted.len();
        counts.fill(0);
        for _ in 0..n {
            counts[below(rng, n)] += 1;
        }
        // The values at 0-based ranks `n/2` (and `n/2 − 1` for an even count).
        let nth = |rank: usize| {
            let mut seen = 0usize;
            for (i, c) in counts.iter().enumerate() {
                seen += *c as usize;
                if seen > rank {
                    return self.sorted[i];
                }
            }
            self.sorted[n - 1]
        };
        if n % 2 == 1 {
            nth(n / 2)
        } else {
            (nth(n / 2 - 1) + nth(n / 2)) / 2.0
        }
    }
}

/// An index below `n`, unbiased: Lemire's multiply-shift on 32 random bits, rejecting the
/// few low products that would favour some indices.
fn below(rng: &mut ChaCha8Rng, n: usize) -> usize {
    let n = u32::try_from(n).unwrap_or(u32::MAX);
    let threshold = n.wrapping_neg() % n;
    loop {
        let product = u64::from(rng.next_u32()) * u64::from(n);
        if (product as u32) >= threshold {
            return (product >> 32) as usize;
        }
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let at = p / 100.0 * (sorted.len() - 1) as f64;
    let (lo, hi) = (at.floor() as usize, at.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo as f64)
}

#[cfg(test)]
mod tests;
