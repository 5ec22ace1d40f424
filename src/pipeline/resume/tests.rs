//! Tests of `crate::pipeline::resume`.

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
        crate::schema::CommandStatus::Pass
    } else {
        crate::schema::CommandStatus::Fail
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
        let expected = expected
            .map(|r| r.map(|(n, at, f)| (n, at, f.into_iter().map(str::to_owned).collect())));
        assert_eq!(decided(&ledger, current), expected, "{name}");
    }
}

/// What `decide` makes of `ledger` with the workspace at `current`, as the table spells it:
/// the run folder holds one verification report per verify line.
fn decided(ledger: &[Entry], current: &str) -> Result<Option<(u32, StartAt, Vec<String>)>, Ended> {
    let verified = |round: u32| {
        ledger
            .iter()
            .rev()
            .find(|e| e.stage == Stage::Verify && e.round == Some(round))
            .map(|e| report(e.outcome, e.input(Input::Workspace).unwrap_or("")))
    };
    decide(ledger, current, &verified).map(|r| r.map(|r| (r.round, r.start, r.failures)))
}

#[test]
fn a_pass_without_its_report_is_verified_again() {
    // The ledger says verified, but the report is gone (or another workspace's): the pass
    // proves nothing, so the round is verified again.
    let review = line("review", 0, "pass", &[]);
    let brief0 = line("brief", 0, "written", &[]);
    let agent0 = line("agent", 0, "exited 0", &[("workspace", "A")]);
    let verify_a = line("verify", 0, "pass", &[("workspace", "A")]);
    let ledger = [review, brief0, agent0, verify_a];
    let gone = decide(&ledger, "A", &|_| None).unwrap().unwrap();
    assert_eq!(gone.start, StartAt::Verify("A".into()));
    let other = decide(&ledger, "A", &|_| Some(report(Outcome::Pass, "B")));
    assert_eq!(other.unwrap().unwrap().start, StartAt::Verify("A".into()));
}
