//! Tests of `crate::hook::decide`.

use super::*;

fn failed(fingerprint: &str) -> Round {
    Round {
        run: None,
        continuing: true,
        verdict: "audit_failed".into(),
        failure: Some(fingerprint.into()),
        said: Said::Repair,
        claim: None,
        pack: None,
    }
}

const LIMITS: Repair = Repair {
    max_rounds: 2,
    max_same_failure: 2,
};

#[test]
fn the_rounds_and_the_fail_modes() {
    let unresolved = ["P-01".to_owned()];
    let fail = |fingerprint| Gate::Failed {
        fingerprint,
        brief: "# Repair round",
        unresolved: &unresolved,
    };
    let warned = Round {
        said: Said::Warned,
        failure: None,
        ..failed("a")
    };
    let rows: Vec<(Vec<Round>, Gate<'_>, FailMode, Said, &str)> = vec![
        (vec![], Gate::Passed, FailMode::Closed, Said::Verified, ""),
        // Sent back with the brief while rounds last.
        (
            vec![],
            fail("a"),
            FailMode::Warn,
            Said::Repair,
            "repair round 1 of 2",
        ),
        (
            vec![failed("a")],
            fail("b"),
            FailMode::Warn,
            Said::Repair,
            "repair round 2 of 2",
        ),
        // The budget is spent: the fail mode decides.
        (
            vec![failed("a"), failed("b")],
            fail("c"),
            FailMode::Open,
            Said::AllowedUnverified,
            "NOT verified (the repair rounds are used up",
        ),
        (
            vec![failed("a"), failed("b")],
            fail("c"),
            FailMode::Warn,
            Said::Warned,
            "say so in your final message",
        ),
        (
            vec![failed("a"), failed("b"), warned.clone()],
            fail("c"),
            FailMode::Warn,
            Said::AllowedUnverified,
            "NOT verified",
        ),
        (
            vec![failed("a"), failed("b"), warned],
            fail("c"),
            FailMode::Closed,
            Said::Refused,
            "keeps refusing",
        ),
        // The same failure a third time ends the rounds early.
        (
            vec![failed("a"), failed("a")],
            fail("a"),
            FailMode::Closed,
            Said::Refused,
            "max-same-failure (2)",
        ),
        // A gate that cannot decide is no pass.
        (
            vec![],
            Gate::Undecided { why: "no device" },
            FailMode::Open,
            Said::AllowedUnverified,
            "the gate could not decide: no device",
        ),
        (
            vec![],
            Gate::Undecided { why: "no device" },
            FailMode::Closed,
            Said::Refused,
            "could not decide",
        ),
        (
            vec![],
            Gate::NotFinished { how: "aborted" },
            FailMode::Closed,
            Said::NotGated,
            "ended aborted",
        ),
    ];
    for (earlier, gate, mode, said, text) in rows {
        let decision = decide(&earlier, gate, LIMITS, mode, "r1");
        assert_eq!(decision.said, said, "{gate:?} {mode}");
        let shown = match &decision.answer {
            Answer::Block(reason) => reason.clone(),
            Answer::Allow => decision.note.clone().unwrap_or_default(),
        };
        assert!(shown.contains(text), "{gate:?} {mode}: {shown}");
        assert_eq!(
            matches!(decision.answer, Answer::Allow),
            said.lets_stop(),
            "{said}"
        );
    }
}

/// A record that cannot be read never lets a red gate stop: `closed` refuses, the other
/// modes let it stop unverified; a pass is still a pass.
#[test]
fn uncounted_rounds_never_open_the_gate() {
    let unresolved = ["P-01".to_owned()];
    let fail = Gate::Failed {
        fingerprint: "a",
        brief: "# Repair",
        unresolved: &unresolved,
    };
    let rows = [
        (Gate::Passed, FailMode::Closed, Said::Verified),
        (fail, FailMode::Closed, Said::Refused),
        (
            Gate::Undecided { why: "x" },
            FailMode::Closed,
            Said::Refused,
        ),
        (fail, FailMode::Warn, Said::AllowedUnverified),
        (fail, FailMode::Open, Said::AllowedUnverified),
        (
            Gate::NotFinished { how: "aborted" },
            FailMode::Closed,
            Said::NotGated,
        ),
    ];
    for (gate, mode, said) in rows {
        let decision = decide_uncounted(gate, mode, "its record is garbage", "r1");
        assert_eq!(decision.said, said, "{gate:?} {mode}");
        let shown = match &decision.answer {
            Answer::Block(reason) => reason.clone(),
            Answer::Allow => decision.note.clone().unwrap_or_default(),
        };
        if said != Said::Verified && said != Said::NotGated {
            assert!(shown.contains("its record is garbage"), "{shown}");
        }
    }
}
