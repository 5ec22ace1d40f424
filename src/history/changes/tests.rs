//! Tests of `crate::history::changes`.

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
    let (at, q) = best_split(&ranked(&[1.0, 2.0, 10.0, 11.0])).unwrap();
    assert_eq!(at, 2);
    assert!((q - 16.0).abs() < 1e-12, "{q}");
}

/// Q̂ of every split computed from its definition (every pairwise distance summed anew):
/// the split found from rank-indexed sums is the same split with the same Q̂, ties and
/// repeated values included.
#[test]
fn the_split_from_ranked_sums_is_the_split_by_definition() {
    // Q̂ of the split before `tau`, every distance summed anew.
    let q_at = |x: &[f64], tau: usize| -> f64 {
        let within = |part: &[f64]| -> f64 {
            let mut sum = 0.0;
            for i in 0..part.len() {
                for j in i + 1..part.len() {
                    sum += (part[i] - part[j]).abs();
                }
            }
            sum
        };
        let (l, r) = x.split_at(tau);
        let between: f64 = l
            .iter()
            .flat_map(|a| r.iter().map(move |b| (a - b).abs()))
            .sum();
        let (a, b) = (tau as f64, (x.len() - tau) as f64);
        let energy = 2.0 * between / (a * b)
            - within(l) / (a * (a - 1.0) / 2.0)
            - within(r) / (b * (b - 1.0) / 2.0);
        a * b / (a + b) * energy
    };
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for n in [4, 5, 9, 33, 120] {
        for _ in 0..5 {
            // Values from a small set: many ties.
            let x: Vec<f64> = (0..n).map(|_| (below(&mut rng, 9) * 10) as f64).collect();
            let (at, q) = best_split(&ranked(&x)).unwrap();
            let best = (MIN_SIDE..n - 1)
                .filter(|tau| n - tau >= MIN_SIDE)
                .map(|tau| q_at(&x, tau))
                .fold(f64::NEG_INFINITY, f64::max);
            assert!(close(q, q_at(&x, at)), "{x:?}: Q̂ at {at} is {q}");
            assert!(close(q, best), "{x:?}: {q}, the largest being {best}");
        }
    }
}
