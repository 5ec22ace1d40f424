//! Tests of `crate::pipeline::guard`.

use super::*;

#[test]
fn four_repairs_and_the_same_failure_twice() {
    let mut guard = RepairGuard::new(Repair {
        max_rounds: 4,
        max_same_failure: 2,
    });
    assert_eq!(guard.after_failure("a"), Next::Repair(1));
    assert_eq!(guard.after_failure("a"), Next::Repair(2));
    assert_eq!(
        guard.after_failure("a"),
        Next::Stop(TerminalReason::RepeatedFailure),
        "a third identical failure"
    );
    let mut guard = RepairGuard::new(Repair {
        max_rounds: 4,
        max_same_failure: 2,
    });
    for (round, failure) in ["a", "b", "c", "d"].iter().enumerate() {
        assert_eq!(guard.after_failure(failure), Next::Repair(round as u32 + 1));
    }
    assert_eq!(
        guard.after_failure("e"),
        Next::Stop(TerminalReason::BudgetExhausted)
    );
    assert_eq!(guard.repairs(), 4);
}
