//! What the hook answers, as a pure function of the gate's outcome, the session's earlier
//! rounds in this loop, the repair limits and the review's fail mode. Only a gate that passed
//! lets the agent stop as verified; every other way of stopping is said to be unverified.

use super::state::Round;
use super::words::Said;
use crate::config::{FailMode, Repair};
use crate::pipeline::{Next, RepairGuard};
use crate::schema::TerminalReason;

/// What the gate came to.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Gate<'a> {
    /// Verification and the audit passed.
    Passed,
    /// Something failed.
    Failed {
        /// What the repair guard counts.
        fingerprint: &'a str,
        /// The repair brief.
        brief: &'a str,
        /// The criteria (or verification commands) that did not pass.
        unresolved: &'a [String],
    },
    /// The gate could not decide (it could not run, or the audit showed no verdict).
    Undecided {
        /// Why.
        why: &'a str,
    },
    /// The agent's loop ended otherwise than by finishing (aborted, failed): not gated.
    NotFinished {
        /// How it ended.
        how: &'a str,
    },
}

/// Let the agent stop, or send it back with a reason (its next instruction).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Answer {
    /// Let it stop.
    Allow,
    /// Send it back.
    Block(String),
}

/// The hook's answer and what it records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Decision {
    /// What the harness is told.
    pub(crate) answer: Answer,
    /// What the record says.
    pub(crate) said: Said,
    /// For the user, when the agent is let stop unverified.
    pub(crate) note: Option<String>,
}

/// The answer to a stop. `earlier` are this loop's earlier rounds; `run` names the gate's run.
pub(crate) fn decide(
    earlier: &[Round],
    gate: Gate<'_>,
    limits: Repair,
    fail_mode: FailMode,
    run: &str,
) -> Decision {
    let why = match gate {
        Gate::Passed => {
            return Decision {
                answer: Answer::Allow,
                said: Said::Verified,
                note: None,
            };
        }
        Gate::NotFinished { how } => {
            return Decision {
                answer: Answer::Allow,
                said: Said::NotGated,
                note: Some(format!(
                    "dwpipe: the agent's loop ended {how}; the change was not gated and is unverified"
                )),
            };
        }
        Gate::Failed {
            fingerprint,
            brief,
            unresolved,
        } => {
            let mut guard = RepairGuard::new(limits);
            for failure in earlier.iter().filter_map(|r| r.failure.as_deref()) {
                guard.after_failure(failure);
            }
            match guard.after_failure(fingerprint) {
                Next::Repair(round) => {
                    return Decision {
                        answer: Answer::Block(format!(
                            "dwpipe's gate refused to let this turn end: the change does not pass \
                             yet (unresolved: {}; repair round {round} of {}; run {run}).\n\n{brief}",
                            unresolved.join(", "),
                            limits.max_rounds
                        )),
                        said: Said::Repair,
                        note: None,
                    };
                }
                Next::Stop(TerminalReason::RepeatedFailure) => format!(
                    "the same failure came back more than repair.max-same-failure ({}) times \
                     (unresolved: {})",
                    limits.max_same_failure,
                    unresolved.join(", ")
                ),
                Next::Stop(_) => format!(
                    "the repair rounds are used up (repair.max-rounds: {}; unresolved: {})",
                    limits.max_rounds,
                    unresolved.join(", ")
                ),
            }
        }
        Gate::Undecided { why } => format!("the gate could not decide: {why}"),
    };
    let unverified = |said| Decision {
        answer: Answer::Allow,
        said,
        note: Some(format!(
            "dwpipe: the change is NOT verified ({why}); let stop by review.fail-mode {fail_mode} (run {run})"
        )),
    };
    match fail_mode {
        FailMode::Open => unverified(Said::AllowedUnverified),
        FailMode::Warn if earlier.iter().any(|r| r.said == Said::Warned) => {
            unverified(Said::AllowedUnverified)
        }
        FailMode::Warn => Decision {
            answer: Answer::Block(format!(
                "dwpipe: {why}. The change is NOT verified. Stop working on it now, and say so in \
                 your final message: tell the user the change is unverified and why. Do not claim \
                 that it passes. (run {run})"
            )),
            said: Said::Warned,
            note: None,
        },
        FailMode::Closed => Decision {
            answer: Answer::Block(format!(
                "dwpipe: {why}. review.fail-mode is closed: dwpipe keeps refusing to let this task \
                 end as verified. Tell the user the change is unverified and what failed; do not \
                 claim that it passes. (run {run})"
            )),
            said: Said::Refused,
            note: None,
        },
    }
}

/// The answer when the session's rounds cannot be counted (its record cannot be read or
/// kept, `why`): the gate still decides a pass, and a loop that ended otherwise is not gated;
/// anything else is never a reason to let the agent stop verified — `closed` refuses, `open`
/// and `warn` let it stop unverified (without a count, `warn` cannot tell it said so once).
pub(crate) fn decide_uncounted(
    gate: Gate<'_>,
    fail_mode: FailMode,
    why: &str,
    run: &str,
) -> Decision {
    let failed = match gate {
        Gate::Passed | Gate::NotFinished { .. } => {
            return decide(&[], gate, Repair::default(), fail_mode, run);
        }
        Gate::Failed { unresolved, .. } => {
            format!(
                "the change does not pass (unresolved: {})",
                unresolved.join(", ")
            )
        }
        Gate::Undecided { why } => format!("the gate could not decide: {why}"),
    };
    match fail_mode {
        FailMode::Closed => Decision {
            answer: Answer::Block(format!(
                "dwpipe: {failed}, and this session's rounds cannot be counted ({why}). \
                 review.fail-mode is closed: dwpipe keeps refusing to let this task end as \
                 verified. Tell the user the change is unverified and why; do not claim that it \
                 passes. (run {run})"
            )),
            said: Said::Refused,
            note: None,
        },
        FailMode::Open | FailMode::Warn => Decision {
            answer: Answer::Allow,
            said: Said::AllowedUnverified,
            note: Some(format!(
                "dwpipe: the change is NOT verified ({failed}; this session's rounds cannot be counted: {why}); let stop by review.fail-mode {fail_mode} (run {run})"
            )),
        },
    }
}

#[cfg(test)]
mod tests;
