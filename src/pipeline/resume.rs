//! `dwpipe deliver --resume RUN`: where an interrupted delivery picks up, decided from its
//! ledger and the workspace as it is now. Evidence is reused only while it is fresh: a passed
//! verification only under the same workspace fingerprint, never across a changed pack (the
//! run directory holds one lock).

use crate::verify::VerifyReport;

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
mod tests {
    use super::*;

    /// A ledger line as the words the ledger holds (parsed as `read` would).
    fn line(stage: &str, round: u32, outcome: &str, inputs: &[(&str, &str)]) -> Entry {
        let stage = Stage::parse(stage).unwrap();
        let mut entry = Entry::new(
            stage,
            Outcome::parse(stage, outcome).unwrap(),
            std::time::Duration::ZERO,
        );
        entry.round = (stage != Stage::Deliver).then_some(round);
        entry.inputs = inputs
            .iter()
            .map(|(k, v)| (Input::parse(k).unwrap(), (*v).to_owned()))
            .collect();
        entry
    }

    /// A verification report of this outcome, taken on `workspace`.
    fn report(outcome: Outcome, workspace: &str) -> VerifyReport {
        let verdict = if outcome == Outcome::Pass {
            crate::verify::CommandStatus::Pass
        } else {
            crate::verify::CommandStatus::Fail
        };
        VerifyReport {
            format_version: crate::format::VERIFY,
            round: 0,
            fingerprint_before: workspace.to_owned(),
            fingerprint_after: workspace.to_owned(),
            rerun: false,
            verdict,
            commands: Vec::new(),
        }
    }

    /// The resume point as `(round, start, failures)`, or the refusal.
    type Expected = Result<Option<(u32, StartAt, Vec<&'static str>)>, Ended>;

    #[test]
    fn the_resume_point_follows_the_ledger_and_the_workspace() {
        let review = line("review", 0, "pass", &[]);
        let brief0 = line("brief", 0, "written", &[]);
        let agent0 = line("agent", 0, "exited 0", &[("workspace", "A")]);
        let verify0_fail = line(
            "verify",
            0,
            "fail",
            &[("workspace", "A"), ("failure", "F1")],
        );
        let brief1 = line("brief", 1, "written", &[]);
        let agent1 = line("agent", 1, "exited 0", &[("workspace", "B")]);
        let verify1 = line("verify", 1, "pass", &[("workspace", "B")]);
        let audit1_cut = line("audit", 1, "interrupted", &[("workspace", "B")]);
        let agent0_cut = line("agent", 0, "interrupted", &[("workspace", "Z")]);
        let ended = |o: &str| line("deliver", 0, o, &[]);

        let rows: Vec<(&str, Vec<Entry>, &str, Expected)> = vec![
            ("nothing briefed yet", vec![review.clone()], "A", Ok(None)),
            (
                "cut during the first agent run",
                vec![
                    review.clone(),
                    brief0.clone(),
                    agent0_cut.clone(),
                    ended("interrupted"),
                ],
                "Z",
                Ok(Some((0, StartAt::Agent, vec![]))),
            ),
            (
                "cut during the agent after it edited the workspace",
                vec![
                    review.clone(),
                    brief0.clone(),
                    agent0_cut.clone(),
                    ended("interrupted"),
                ],
                "Z2",
                Ok(Some((0, StartAt::Verify("Z2".into()), vec![]))),
            ),
            (
                "agent done, workspace untouched since",
                vec![review.clone(), brief0.clone(), agent0.clone()],
                "A",
                Ok(Some((0, StartAt::Verify("A".into()), vec![]))),
            ),
            (
                "agent done, edited by hand since",
                vec![review.clone(), brief0.clone(), agent0.clone()],
                "A2",
                Ok(Some((0, StartAt::Verify("A2".into()), vec![]))),
            ),
            (
                "verified, audit cut: the verification is reused",
                vec![
                    review.clone(),
                    brief0.clone(),
                    agent0.clone(),
                    verify0_fail.clone(),
                    brief1.clone(),
                    agent1.clone(),
                    verify1.clone(),
                    audit1_cut.clone(),
                    ended("interrupted"),
                ],
                "B",
                Ok(Some((1, StartAt::Audit("B".into()), vec!["F1"]))),
            ),
            (
                "verified, then edited by hand: verify again",
                vec![
                    review.clone(),
                    brief0.clone(),
                    agent0.clone(),
                    verify0_fail.clone(),
                    brief1.clone(),
                    agent1.clone(),
                    verify1.clone(),
                ],
                "C",
                Ok(Some((1, StartAt::Verify("C".into()), vec!["F1"]))),
            ),
            (
                "resumed once already",
                vec![
                    review.clone(),
                    brief0.clone(),
                    agent0_cut.clone(),
                    ended("interrupted"),
                    ended("resumed"),
                ],
                "Z",
                Ok(Some((0, StartAt::Agent, vec![]))),
            ),
            (
                "a finished run",
                vec![
                    review.clone(),
                    brief0.clone(),
                    agent0.clone(),
                    ended("no_changes"),
                ],
                "A",
                Err(Ended(TerminalReason::NoChanges)),
            ),
        ];
        for (name, ledger, current, expected) in rows {
            // The verification reports the run directory holds: one per verify line.
            let verified = |round: u32| {
                ledger
                    .iter()
                    .rev()
                    .find(|e| e.stage == Stage::Verify && e.round == Some(round))
                    .map(|e| report(e.outcome, e.input(Input::Workspace).unwrap_or("")))
            };
            let got = decide(&ledger, current, &verified)
                .map(|r| r.map(|r| (r.round, r.start, r.failures)));
            let expected = expected.map(|r| {
                r.map(|(round, start, failures)| {
                    (
                        round,
                        start,
                        failures.into_iter().map(str::to_owned).collect::<Vec<_>>(),
                    )
                })
            });
            assert_eq!(got, expected, "{name}");
        }
        // The ledger says verified, but the report is gone (or another workspace's): the pass
        // proves nothing, so the round is verified again.
        let verify_a = line("verify", 0, "pass", &[("workspace", "A")]);
        let ledger = [review, brief0, agent0, verify_a];
        let gone = decide(&ledger, "A", &|_| None).unwrap().unwrap();
        assert_eq!(gone.start, StartAt::Verify("A".into()));
        let other = decide(&ledger, "A", &|_| Some(report(Outcome::Pass, "B")));
        assert_eq!(other.unwrap().unwrap().start, StartAt::Verify("A".into()));
    }
}
