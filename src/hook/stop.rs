//! One stop, answered: the harness's input read, the session's turn taken and its record
//! loaded, the repair round counted, the gate run (by the caller's closure, which owns the
//! device and the progress), a pack changed within the loop held against the agent, the
//! decision made and the record kept. Nothing here prints: what the user should read comes
//! back as [`Stopped::notes`], in order.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::config::{Config, FailMode, Repair};
use crate::diagnostic::chain;
use crate::pipeline::Gated;
use crate::schema::TerminalReason;

use super::decide::{Answer, Decision, Gate, decide, decide_uncounted};
use super::harness::read_stop;
use super::state::{Round, Session};
use super::words::{Harness, Said};

/// A stop as the harness made it, and where the project is.
#[derive(Debug)]
pub(crate) struct StopRequest {
    /// Whose hook this is.
    pub(crate) harness: Harness,
    /// The harness's stop-hook JSON, or why it could not be read.
    pub(crate) input: Result<Vec<u8>, String>,
    /// `dwpipe.yaml` (its repair limits and fail mode; the gate reads the rest).
    pub(crate) config: PathBuf,
    /// The folder holding `.dwpipe/` (the session's record goes under `.dwpipe/hooks/`).
    pub(crate) base: PathBuf,
    /// How long a stop of the same session being answered is waited for.
    pub(crate) wait: Duration,
}

/// The answer to one stop and what the user is told on the side.
#[derive(Debug)]
pub(crate) struct Stopped {
    /// What the harness is told, and what the record says.
    pub(crate) decision: Decision,
    /// Lines for the user (stderr), in the order they happened.
    pub(crate) notes: Vec<String>,
}

/// How a round's gate ended, as the session's record spells it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum RoundEnd {
    /// The agent's loop ended otherwise than by finishing.
    NotGated(String),
    /// The gate's run ended (`verified`, `audit_failed`, …).
    Ended(TerminalReason),
    /// The gate could not run, or ran against a pack other than the loop's.
    Undecided,
}

impl fmt::Display for RoundEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RoundEnd::NotGated(how) => write!(f, "not gated: {how}"),
            RoundEnd::Ended(reason) => reason.fmt(f),
            RoundEnd::Undecided => f.write_str("undecided"),
        }
    }
}

/// Answers one stop; `gate(round)` runs the gate's round `round` on the workspace as it
/// stands and says why when it could not run.
pub(crate) fn stop(
    request: StopRequest,
    gate: impl FnOnce(u32) -> Result<Gated, String>,
) -> Stopped {
    let StopRequest {
        harness,
        input,
        config,
        base,
        wait,
    } = request;
    // The limits and the fail mode are the config's; one that cannot be read has the defaults
    // (and the gate says why it could not run).
    let (limits, fail_mode) = Config::load(&config)
        .map_or((Repair::default(), FailMode::Warn), |config| {
            (config.repair, config.review.fail_mode)
        });
    let stop = match read(harness, input, fail_mode) {
        Ok(stop) => stop,
        Err(stopped) => return stopped,
    };
    let mut notes = Vec::new();
    let record = Session::path(&base, harness, &stop.session);
    // One stop of a session at a time: stops that come together are counted one by one.
    let turn = Session::turn(&record, wait);
    // The record is the agent's to write: it only counts. One that cannot be read (garbage,
    // a newer format, a folder) leaves the rounds uncounted, never the gate open.
    let session = turn
        .as_ref()
        .map_err(|e| chain(e))
        .and_then(|_| Session::load(&record, harness, &stop.session).map_err(|e| chain(&e)));
    let earlier = session
        .as_ref()
        .map(|session| session.this_loop().to_vec())
        .unwrap_or_default();
    let round = repair_round(&earlier);
    // A loop that ended otherwise than by finishing is not gated.
    let gated = match &stop.not_finished {
        Some(how) => Err(how),
        None => Ok(gate(round)),
    };
    let (mut gate_outcome, run, mut verdict, failure) = match &gated {
        Err(how) => (
            Gate::NotFinished { how },
            None,
            RoundEnd::NotGated((*how).clone()),
            None,
        ),
        Ok(Ok(gated)) => outcome(gated),
        Ok(Err(why)) => (Gate::Undecided { why }, None, RoundEnd::Undecided, None),
    };
    let pack = match &gated {
        Ok(Ok(gated)) => Some(gated.report.pack_sha256.clone()),
        _ => None,
    };
    // The agent is held to the pack it was given: one that changed within the loop is not it.
    let changed = pack_changed(&earlier, pack.as_deref());
    if let Some(changed) = &changed {
        gate_outcome = Gate::Undecided { why: changed };
        verdict = RoundEnd::Undecided;
    }
    let run_name = run.clone().unwrap_or_else(|| "none".to_owned());
    let mut decision = match &session {
        Ok(_) => decide(&earlier, gate_outcome, limits, fail_mode, &run_name),
        Err(why) => {
            notes.push(format!("E_HOOK_STATE: {why}"));
            decide_uncounted(gate_outcome, fail_mode, why, &run_name)
        }
    };
    if let Ok(mut session) = session {
        session.rounds.push(Round {
            run,
            continuing: stop.continuing,
            verdict: verdict.to_string(),
            failure,
            said: decision.said,
            claim: stop.claim,
            pack,
        });
        if let Err(e) = session.save(&record) {
            // A count that was not kept cannot bound the next round.
            let why = format!("the record cannot be kept: {}", chain(&e));
            notes.push(format!("E_HOOK_STATE: {why}"));
            decision = decide_uncounted(gate_outcome, fail_mode, &why, &run_name);
        }
    }
    drop(turn);
    notes.push(summary(
        harness,
        &stop.session,
        round,
        &verdict,
        stop.claim.map(|claim| claim.to_string()),
        &decision,
        &run_name,
        &record,
    ));
    notes.extend(decision.note.clone());
    Stopped { decision, notes }
}

/// The harness's stop, read; a stop that cannot be read is answered at once. Under `closed`
/// it is refused: the agent writes part of the input (Codex's carries its last message), so
/// an unreadable one is its to fix. Otherwise, without its session the rounds cannot be
/// counted, and a loop nobody counts could go on for ever: the agent is let stop, said to be
/// unverified.
fn read(
    harness: Harness,
    input: Result<Vec<u8>, String>,
    fail_mode: FailMode,
) -> Result<super::harness::Stop, Stopped> {
    let why = match input.and_then(|input| read_stop(harness, &input).map_err(|e| e.to_string())) {
        Ok(stop) => return Ok(stop),
        Err(why) => why,
    };
    Err(if fail_mode == FailMode::Closed {
        Stopped {
            decision: refused_unread(&why),
            notes: vec![format!(
                "E_HOOK_INPUT: {why}; refused by review.fail-mode closed"
            )],
        }
    } else {
        let why = format!("E_HOOK_INPUT: {why}; the change was not gated");
        Stopped {
            decision: unverified(&why),
            notes: vec![why],
        }
    })
}

/// The repair round as the guard counts it: the loop's failures so far (a round the gate
/// could not decide sent no repair).
fn repair_round(earlier: &[Round]) -> u32 {
    u32::try_from(earlier.iter().filter(|r| r.failure.is_some()).count()).unwrap_or(u32::MAX)
}

/// The line that says what this stop came to.
#[expect(
    clippy::too_many_arguments,
    reason = "one line made of the stop's parts"
)]
fn summary(
    harness: Harness,
    session: &str,
    round: u32,
    verdict: &RoundEnd,
    claim: Option<String>,
    decision: &Decision,
    run: &str,
    record: &Path,
) -> String {
    let claimed = claim
        .map(|claim| format!(" (the agent claimed {claim})"))
        .unwrap_or_default();
    format!(
        "hook: {harness} session {session}, round {round}: {verdict}{claimed}; {} (run {run}; record {})",
        decision.said,
        record.display()
    )
}

/// Why the pack the gate held the change against is not the one this loop began with (its
/// lock's SHA-256 in the loop's earlier rounds): `None` when it is, or nothing was gated.
fn pack_changed(earlier: &[Round], now: Option<&str>) -> Option<String> {
    let now = now?;
    let was = earlier.iter().find_map(|r| r.pack.as_deref())?;
    (was != now).then(|| {
        format!(
            "the acceptance pack changed during this agent session (lock {} at its first round, {} now): the agent is held to the pack it was given (a pack changed on purpose starts a new agent session)",
            &was[..was.len().min(12)],
            &now[..now.len().min(12)]
        )
    })
}

/// A stop that cannot be read, under `review.fail-mode: closed`: refused, with what to do.
fn refused_unread(why: &str) -> Decision {
    Decision {
        answer: Answer::Block(format!(
            "dwpipe cannot read this stop ({why}), so the change was not gated. \
             review.fail-mode is closed: dwpipe keeps refusing to let this task end as verified. \
             If your last message is long, end with a short one; tell the user the change is \
             unverified and why, and do not claim that it passes."
        )),
        said: Said::Refused,
        note: None,
    }
}

/// The agent is let stop without being verified, and told why.
fn unverified(why: &str) -> Decision {
    Decision {
        answer: Answer::Allow,
        said: Said::NotGated,
        note: Some(format!("dwpipe: the change is NOT verified ({why})")),
    }
}

/// What a gate run came to, for the decision and the record: the gate, the run's id, how it
/// ended, and the failure's fingerprint.
fn outcome(gated: &Gated) -> (Gate<'_>, Option<String>, RoundEnd, Option<String>) {
    let run = gated
        .report
        .run_dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned());
    let reason = gated.report.terminal_reason;
    let verdict = RoundEnd::Ended(reason);
    match (&gated.failure, reason) {
        (_, TerminalReason::Verified) => (Gate::Passed, run, verdict, None),
        (Some(failure), _) => (
            Gate::Failed {
                fingerprint: &failure.fingerprint,
                brief: &failure.brief,
                unresolved: &gated.report.unresolved,
            },
            run,
            verdict,
            Some(failure.fingerprint.clone()),
        ),
        (None, _) => (
            Gate::Undecided {
                why: gated
                    .report
                    .detail
                    .as_deref()
                    .unwrap_or("the run ended without a verdict"),
            },
            run,
            verdict,
            None,
        ),
    }
}

#[cfg(test)]
mod tests;
