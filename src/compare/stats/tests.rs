//! Tests of `crate::compare::stats`.

use super::*;

/// Reference values from scipy 1.15 (`scipy.stats.mannwhitneyu(a, b,
/// alternative='two-sided')` and `scipy.stats.ks_2samp(a, b)`, method `auto`), run on
/// 2026-12-01 with the samples below.
#[test]
fn p_values_match_scipy() {
    let large_a: Vec<f64> = (0..20).map(|i| 700.0 + ((i * 37) % 61) as f64).collect();
    let large_b: Vec<f64> = (0..20).map(|i| 690.0 + ((i * 53) % 67) as f64).collect();
    /// (name, a, b, U, its p, D, its p)
    type Row = (&'static str, Vec<f64>, Vec<f64>, f64, f64, f64, f64);
    let rows: Vec<Row> = vec![
        (
            "4 against 4, apart",
            vec![700.0, 720.0, 760.0, 710.0],
            vec![800.0, 790.0, 805.0, 820.0],
            0.0,
            0.02857142857142857,
            1.0,
            0.028571428571428577,
        ),
        (
            "ties",
            vec![700.0, 720.0, 720.0, 760.0, 710.0, 700.0],
            vec![720.0, 790.0, 805.0, 720.0, 820.0, 700.0],
            9.0,
            0.16281152672549914,
            0.5,
            0.474025974025974,
        ),
        (
            "20 against 20",
            large_a,
            large_b,
            242.0,
            0.2614821969497715,
            0.2,
            0.8319696107963263,
        ),
        (
            "5 against 10",
            vec![1.5, 2.5, 3.5, 10.0, 0.5],
            vec![2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 11.0, 12.0],
            11.0,
            0.09923409923409923,
            0.6,
            0.16583416583416583,
        ),
    ];
    for (name, a, b, u, p_u, d, p_d) in rows {
        let (got_u, got_pu) = mann_whitney(&a, &b);
        let (got_d, got_pd) = kolmogorov_smirnov(&a, &b);
        assert_eq!(got_u, u, "{name}: U");
        assert!(
            (got_pu - p_u).abs() < 1e-9,
            "{name}: MWU p {got_pu} vs {p_u}"
        );
        assert!((got_d - d).abs() < 1e-12, "{name}: D");
        assert!(
            (got_pd - p_d).abs() < 1e-9,
            "{name}: KS p {got_pd} vs {p_d}"
        );
    }
}

#[test]
fn four_runs_an_arm_cannot_reach_one_percent() {
    // The smallest two-sided p of 4 against 4 is 2/70: the arms wholly apart.
    let (_, p) = mann_whitney(&[1.0, 2.0, 3.0, 4.0], &[5.0, 6.0, 7.0, 8.0]);
    assert!((p - 2.0 / 70.0).abs() < 1e-12 && p > 0.01);
    assert_eq!(median(&[3.0, 1.0, 2.0, 10.0]), Some(2.5));
    assert_eq!(median(&[]), None);
}

#[test]
fn the_bootstrap_is_reproducible_and_brackets_the_shift() {
    let a: Vec<f64> = (0..30).map(|i| 700.0 + (i % 7) as f64).collect();
    let b: Vec<f64> = a.iter().map(|v| v + 70.0).collect();
    let seed = [7u8; 32];
    let first = bootstrap_ci(&a, &b, seed).unwrap();
    assert_eq!(
        first,
        bootstrap_ci(&a, &b, seed).unwrap(),
        "same seed, same interval"
    );
    assert!(first.0 <= 70.0 && 70.0 <= first.1, "{first:?}");
    assert!(bootstrap_ci(&[], &b, seed).is_none());
}
