//! Tests of `crate::session::builds`.

use super::*;

#[test]
fn arm_runs_take_their_defaults_and_refuse_what_cannot_alternate() {
    assert_eq!(
        ArmRuns::new(None, None).unwrap(),
        ArmRuns { first: 10, max: 40 }
    );
    assert_eq!(
        ArmRuns::new(Some(50), None).unwrap(),
        ArmRuns { first: 50, max: 50 },
        "the bound is never below the runs asked for"
    );
    assert_eq!(
        ArmRuns::new(Some(4), Some(8)).unwrap(),
        ArmRuns { first: 4, max: 8 }
    );
    for (runs, max) in [(Some(1), None), (Some(6), Some(4))] {
        let refused = ArmRuns::new(runs, max).unwrap_err();
        assert_eq!(refused.code, "E_AB_RUNS", "{runs:?} {max:?}");
    }
}
