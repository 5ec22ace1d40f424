//! `dwpipe deliver --resume RUN`: where an interrupted delivery picks up, decided from its
//! ledger and the workspace as it is now. Evidence is reused only while it is fresh: a passed
//! verification only under the same workspace fingerprint, never across a changed pack (the
//! run directory holds one lock).

use crate::schema::VerifyReport;

use super::ledger::{Entry, Input, Outcome, Stage};
use crate::schema::TerminalReason;

/// Where a resumed delivery starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum StartAt {
    /// Run the agent on the round's brief (already written).
    Agent,
    /// The agent finished: verify the workspace, whose fingerprint is now this.
    Verify(String),
    /// Verification passed on this fingerprint and nothing changed since: audit.
    Audit(String),
}

/// The resume point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Resume {
    /// The round to continue.
    pub(crate) round: u32,
    /// The stage to start at.
    pub(crate) start: StartAt,
    /// Failure fingerprints of the earlier rounds, in order (the repair guard's memory).
    pub(crate) failures: Vec<String>,
}

/// A run that already ended with a verdict of its own: it is not resumed.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("the run already ended `{0}`; start a new delivery instead")]
pub(crate) struct Ended(pub TerminalReason);

/// Decides where to resume from the ledger, the workspace's current fingerprint and the
/// verification report of a round (`verified(round)`, when it can be read); `None` when no
/// brief was written yet (the delivery starts over in the same run directory).
pub(crate) fn decide(
    ledger: &[Entry],
    current: &str,
    verified: &dyn Fn(u32) -> Option<VerifyReport>,
) -> Result<Option<Resume>, Ended> {
    // Only a delivery that was cut (or resumed, or failed for its environment) goes on.
    if let Some(ended) = ledger.iter().rev().find(|e| e.stage == Stage::Deliver)
        && let Outcome::Ended(reason) = ended.outcome
        && !matches!(
            reason,
            TerminalReason::Interrupted | TerminalReason::EnvironmentError
        )
    {
        return Err(Ended(reason));
    }
    let Some(round) = ledger
        .iter()
        .filter(|e| e.stage == Stage::Brief)
        .filter_map(|e| e.round)
        .max()
    else {
        return Ok(None);
    };
    // The resumed round's own failures are measured again; earlier ones stay counted.
    let failures = ledger
        .iter()
        .filter(|e| e.round.is_some_and(|r| r < round) && e.outcome == Outcome::Fail)
        .filter_map(|e| e.input(Input::Failure).map(str::to_owned))
        .collect();
    let this_round = || ledger.iter().filter(|e| e.round == Some(round)).rev();
    // A pass stands only for the workspace it was taken on: the report says which.
    let verified_as_is = this_round()
        .any(|e| e.stage == Stage::Verify && e.outcome == Outcome::Pass)
        && verified(round).is_some_and(|report| report.is_fresh(current));
    let start = if verified_as_is {
        StartAt::Audit(current.to_owned())
    } else if this_round()
        .any(|e| e.stage == Stage::Agent && matches!(e.outcome, Outcome::Agent(_)))
    {
        // The agent's work is done (a DevEco Code run that ended incomplete is recorded with
        // its end too); whatever the workspace holds now is what gets verified.
        StartAt::Verify(current.to_owned())
    } else if this_round()
        .find(|e| e.stage == Stage::Agent)
        .is_some_and(|cut| {
            cut.outcome == Outcome::Interrupted && cut.input(Input::Workspace) != Some(current)
        })
    {
        // Cut after it edited the workspace (its line holds the fingerprint from before it
        // started): that work is verified, not handed to the agent again as if undone.
        StartAt::Verify(current.to_owned())
    } else {
        StartAt::Agent
    };
    Ok(Some(Resume {
        round,
        start,
        failures,
    }))
}

#[cfg(test)]
mod tests;
