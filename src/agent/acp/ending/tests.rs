//! Tests of `crate::agent::acp::ending`.

use super::*;

fn incomplete(ending: Ending) -> String {
    match ending {
        Ending::Incomplete(why) => why,
        Ending::Finished => "finished".to_owned(),
    }
}

#[test]
fn a_clean_end_turn_is_finished_even_when_dwpipe_closed_the_agent() {
    let ended = Turn::Ended("end_turn".into());
    let none = Shown::default();
    assert_eq!(
        ending(&ended, AgentEnd::Exited(0), false, None, &none),
        Ending::Finished
    );
    // Closed by dwpipe after a clean turn: still finished.
    assert_eq!(
        ending(&ended, AgentEnd::Signalled(15), true, None, &none),
        Ending::Finished
    );
}

#[test]
fn only_an_end_turn_with_nothing_denied_is_finished() {
    let ended = Turn::Ended("end_turn".into());
    let clean = AgentEnd::Exited(0);
    let none = Shown::default();
    let denied = Shown {
        denied: vec!["edit `/x`: /x is outside the workspace".into()],
        ..Shown::default()
    };
    let rejected = Shown {
        rejected: vec!["edit (not available to the agent)".into()],
        ..Shown::default()
    };
    let subagent = Shown {
        tasks: vec!["Set the spacing".into()],
        ..Shown::default()
    };
    let deaf = Shown {
        unread: Some(64 * 1024 * 1024),
        ..Shown::default()
    };
    let minute = Duration::from_secs(60);
    let rows = [
        (
            Turn::Ended("end_turn".into()),
            AgentEnd::Signalled(15),
            &deaf,
            None,
            "stalled: the agent stopped reading dwpipe's replies (64 MiB",
        ),
        (
            Turn::Ended("max_tokens".into()),
            clean,
            &none,
            None,
            "the turn ended on `max_tokens`, not `end_turn`",
        ),
        (
            Turn::Refused {
                method: "session/prompt",
                error: "overloaded".into(),
            },
            clean,
            &none,
            None,
            "session error: overloaded",
        ),
        (
            Turn::Refused {
                method: "initialize",
                error: "it speaks protocol version 2".into(),
            },
            clean,
            &none,
            None,
            "the agent refused `initialize`: it speaks protocol version 2",
        ),
        (
            Turn::Silent {
                method: "session/new",
                after: minute,
            },
            clean,
            &none,
            None,
            "no answer to `session/new` within 60s",
        ),
        (
            Turn::Gone {
                method: "session/prompt",
            },
            AgentEnd::Exited(1),
            &none,
            None,
            "the agent exited 1 before answering `session/prompt`",
        ),
        (
            Turn::Gone {
                method: "session/prompt",
            },
            AgentEnd::TimedOut(minute),
            &none,
            None,
            "stopped at its time limit (60s)",
        ),
        (
            ended.clone(),
            AgentEnd::Exited(2),
            &none,
            None,
            "the agent exited 2 after its turn ended",
        ),
        (
            ended.clone(),
            clean,
            &denied,
            None,
            "dwpipe's policy denied edit `/x`: /x is outside the workspace",
        ),
        (
            ended.clone(),
            clean,
            &rejected,
            None,
            "permission rejected for edit (not available to the agent)",
        ),
        (
            Turn::Gone {
                method: "session/prompt",
            },
            AgentEnd::Signalled(15),
            &subagent,
            Some(minute),
            "stalled: no event and no change in the workspace for 60s; the subagent task `Set the spacing` was still running",
        ),
    ];
    for (turn, end, shown, stalled, why) in rows {
        let said = incomplete(ending(&turn, end, false, stalled, shown));
        assert!(said.starts_with(why), "{turn:?}: {said}");
    }
}
