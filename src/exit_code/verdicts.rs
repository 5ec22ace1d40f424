//! Exit codes, for every command, and the one place verdicts become them (the CLI's error
//! type maps errors). Nothing else in dwpipe picks an exit code.

use crate::gate::Verdict;
use crate::review::ReviewVerdict;
use crate::schema::{LabVerdict, Regression, TerminalReason};

/// Success; the verdict is pass.
pub(crate) const OK: i32 = 0;
/// The verdict is fail: a must criterion failed, the gate refused an audit.
pub(crate) const VERDICT_FAILED: i32 = 1;
/// Invalid input: usage, config, pack, capture or report that does not validate.
pub(crate) const INVALID_INPUT: i32 = 2;
/// Environment: a tool is missing, a device is unreachable, a file cannot be written.
pub(crate) const ENVIRONMENT: i32 = 3;
/// Interrupted by SIGINT or SIGTERM.
pub(crate) const INTERRUPTED: i32 = 130;

/// An audit's (or the gate's) verdict.
pub(crate) fn of_verdict(verdict: Verdict) -> i32 {
    match verdict {
        Verdict::Pass => OK,
        Verdict::Fail => VERDICT_FAILED,
    }
}

/// An audit's report: its verdict, unless it is incomplete — its device did not meet a
/// precondition (nothing was measured) or its lease was lost: the environment's failure, not
/// the app's.
pub(crate) fn of_audit(verdict: Verdict, incomplete: bool) -> i32 {
    if incomplete {
        ENVIRONMENT
    } else {
        of_verdict(verdict)
    }
}

/// A verdict's code once its records are written: a passing verdict whose reports the
/// history could not record is the environment's failure (a failed verdict still says so).
pub(crate) fn unless_unrecorded(code: i32, unrecorded: bool) -> i32 {
    if code == OK && unrecorded {
        ENVIRONMENT
    } else {
        code
    }
}

/// A regression comparison: regressed and inconclusive both fail (nothing not shown passes).
pub(crate) fn of_regression(verdict: Regression) -> i32 {
    match verdict {
        Regression::Same | Regression::Improved => OK,
        Regression::Regressed | Regression::Inconclusive => VERDICT_FAILED,
    }
}

/// An A/B session: the candidate passed the pack and is the same or better, or not.
pub(crate) fn of_ab(passed: bool) -> i32 {
    if passed { OK } else { VERDICT_FAILED }
}

/// A lab's verdict: a failed device fails it; none failed but one could not be audited is
/// the environment's fault.
pub(crate) fn of_lab(verdict: LabVerdict) -> i32 {
    match verdict {
        LabVerdict::Pass => OK,
        LabVerdict::Fail => VERDICT_FAILED,
        LabVerdict::Incomplete => ENVIRONMENT,
    }
}

/// A delivery's terminal reason: anything but verified is a failed delivery, short of the
/// environment and a signal.
pub(crate) fn of_delivery(reason: TerminalReason) -> i32 {
    match reason {
        TerminalReason::Verified => OK,
        TerminalReason::Interrupted => INTERRUPTED,
        TerminalReason::EnvironmentError => ENVIRONMENT,
        TerminalReason::NoChanges
        | TerminalReason::VerificationFailed
        | TerminalReason::AuditFailed
        | TerminalReason::RepeatedFailure
        | TerminalReason::BudgetExhausted
        | TerminalReason::ReviewBlocked
        | TerminalReason::AgentIncomplete
        // Not the machine's fault: a run whose records changed is simply not verified.
        | TerminalReason::RecordsTampered => VERDICT_FAILED,
    }
}

/// A review: 0 when delivery may go on, 1 when the pack must change or the review blocks.
pub(crate) fn of_review(verdict: ReviewVerdict) -> i32 {
    if verdict.allows_dispatch() {
        OK
    } else {
        VERDICT_FAILED
    }
}

/// `verify-evidence`: 0 when everything checks out, 1 on any difference.
pub(crate) fn of_differences(count: usize) -> i32 {
    if count == 0 { OK } else { VERDICT_FAILED }
}
