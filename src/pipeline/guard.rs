//! The repair loop guard (docs/design.md §6): at most `max-rounds` repair rounds, the same failure at
//! most `max-same-failure` times.

use std::collections::HashMap;

use crate::config::Repair;

use crate::schema::TerminalReason;

/// What the loop does after a failed round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Next {
    /// Send a repair brief for this round.
    Repair(u32),
    /// Stop with this reason.
    Stop(TerminalReason),
}

/// Counts rounds and failure fingerprints.
#[derive(Debug)]
pub(crate) struct RepairGuard {
    limits: Repair,
    repairs: u32,
    seen: HashMap<String, u32>,
}

impl RepairGuard {
    /// A guard with these limits.
    pub(crate) fn new(limits: Repair) -> RepairGuard {
        RepairGuard {
            limits,
            repairs: 0,
            seen: HashMap::new(),
        }
    }

    /// Records a failed round with its failure fingerprint and decides what comes next.
    pub(crate) fn after_failure(&mut self, fingerprint: &str) -> Next {
        let count = self.seen.entry(fingerprint.to_owned()).or_default();
        *count += 1;
        if *count > self.limits.max_same_failure {
            return Next::Stop(TerminalReason::RepeatedFailure);
        }
        if self.repairs >= self.limits.max_rounds {
            return Next::Stop(TerminalReason::BudgetExhausted);
        }
        self.repairs += 1;
        Next::Repair(self.repairs)
    }

    /// Repair rounds sent so far.
    pub(crate) fn repairs(&self) -> u32 {
        self.repairs
    }
}

#[cfg(test)]
mod tests;
