//! The comparison's statistics and verdicts, table-tested.

use crate::audit::MeasurementRecord;
use crate::compare::audits::overall;
use crate::compare::criterion::by_verdicts;
use crate::gate::AssertionVerdict;
use crate::pack::Weight;
use crate::schema::ArmStats;
use crate::schema::Compared;
use crate::schema::Regression;

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
        statement: None,
        device_seconds: None,
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
