//! `dwpipe hook stop --target HARNESS`: the harness's stop-hook JSON in, the gate run on the
//! workspace as it stands, the answer out — one JSON object, the whole of stdout (progress
//! goes to stderr). The answer itself is decided in [`crate::hook`]; this module reads the
//! input, runs the gate as `deliver` runs its stages, and keeps the session's record.

use std::io::{IsTerminal, Read};
use std::path::Path;

use crate::config::{Config, FailMode, Repair};
use crate::diagnostic::chain;
use crate::exit_code;
use crate::hook::{
    Answer, Decision, Gate, Harness, Round, Said, Session, decide, decide_uncounted, read_stop,
    render,
};
use crate::output::dir_or_dot;
use crate::pipeline::{DeliverPlan, Event, Gated, Mode, PlanError};
use crate::process::Cancel;
use crate::schema::TerminalReason;
use crate::target::HdcClient;

use super::error::Error;
use super::print;
use super::progress::DeliverProgress;
use super::runtime::block_on;
use super::shared::DeviceClient;
use super::{Edge, Run};
use crate::cli::shared::Project;
use clap::Subcommand;

/// dwpipe's plugin for OpenCode and DevEco Code, as `dwpipe hook plugin` prints it.
pub(super) const OPENCODE_PLUGIN: &str = include_str!("../../integrations/opencode/dwpipe-gate.js");

/// The most a harness's stop-hook input may be.
const INPUT_LIMIT: u64 = 1024 * 1024;

/// Answers one stop; `Ok(0)` once an answer was printed.
pub(super) fn stop(hdc: &HdcClient, args: &HookStopArgs) -> Result<i32, Error> {
    let harness = Harness::parse(&args.harness).expect("clap takes only the harnesses' words");
    // The limits and the fail mode are the config's; one that cannot be read has the defaults
    // (and the gate says why it could not run).
    let loaded = Config::load(&args.project.config);
    let (limits, fail_mode) = loaded
        .as_ref()
        .map_or((Repair::default(), FailMode::Warn), |config| {
            (config.repair, config.review.fail_mode)
        });
    let stop = match read_input()
        .and_then(|input| read_stop(harness, &input).map_err(|e| e.to_string()))
    {
        Ok(stop) => stop,
        // Under `closed`, a stop that cannot be read is refused: the agent writes part of
        // the input (Codex's carries its last message), so an unreadable one is its to fix.
        Err(why) if fail_mode == FailMode::Closed => {
            return Ok(answer(harness, &refused_unread(&why)));
        }
        // Otherwise, without its session the rounds cannot be counted, and a loop nobody
        // counts could go on for ever: the agent is let stop, said to be unverified.
        Err(why) => {
            return Ok(answer(
                harness,
                &unverified(&format!("E_HOOK_INPUT: {why}; the change was not gated")),
            ));
        }
    };
    let base = args
        .project
        .out
        .clone()
        .unwrap_or_else(|| dir_or_dot(args.project.config.parent()).to_owned());
    let record = Session::path(&base, harness, &stop.session);
    // One stop of a session at a time: stops that come together are counted one by one.
    let turn = Session::turn(&record, args.client.lease_wait);
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
    // The repair round as the guard counts it: the loop's failures so far (a round the gate
    // could not decide sent no repair).
    let round =
        u32::try_from(earlier.iter().filter(|r| r.failure.is_some()).count()).unwrap_or(u32::MAX);
    let gated = stop
        .not_finished
        .is_none()
        .then(|| gate(hdc, args, &base, round));
    let (mut gate_outcome, run, mut verdict, failure) = match (&stop.not_finished, &gated) {
        (Some(how), _) => (
            Gate::NotFinished { how },
            None,
            format!("not gated: {how}"),
            None,
        ),
        (None, Some(Ok((gated, _)))) => outcome(gated),
        (None, Some(Err(why))) => (Gate::Undecided { why }, None, "undecided".to_owned(), None),
        (None, None) => (
            Gate::Undecided {
                why: "the gate did not run",
            },
            None,
            "undecided".to_owned(),
            None,
        ),
    };
    let pack = gated
        .as_ref()
        .and_then(|gated| gated.as_ref().ok())
        .map(|(_, pack)| pack.clone());
    // The agent is held to the pack it was given: one that changed within the loop is not it.
    let changed = pack_changed(&earlier, pack.as_deref());
    if let Some(changed) = &changed {
        gate_outcome = Gate::Undecided { why: changed };
        verdict = "undecided".to_owned();
    }
    let run_name = run.clone().unwrap_or_else(|| "none".to_owned());
    let mut decision = match &session {
        Ok(_) => decide(&earlier, gate_outcome, limits, fail_mode, &run_name),
        Err(why) => {
            print::note(&format!("E_HOOK_STATE: {why}"));
            decide_uncounted(gate_outcome, fail_mode, why, &run_name)
        }
    };
    if let Ok(mut session) = session {
        session.rounds.push(Round {
            run,
            continuing: stop.continuing,
            verdict: verdict.clone(),
            failure,
            said: decision.said,
            claim: stop.claim,
            pack,
        });
        if let Err(e) = session.save(&record) {
            // A count that was not kept cannot bound the next round.
            let why = format!("the record cannot be kept: {}", chain(&e));
            print::note(&format!("E_HOOK_STATE: {why}"));
            decision = decide_uncounted(gate_outcome, fail_mode, &why, &run_name);
        }
    }
    drop(turn);
    let claimed = stop
        .claim
        .map(|claim| format!(" (the agent claimed {claim})"))
        .unwrap_or_default();
    print::note(&format!(
        "hook: {harness} session {}, round {round}: {verdict}{claimed}; {} (run {run_name}; record {})",
        stop.session,
        decision.said,
        record.display()
    ));
    if let Some(note) = &decision.note {
        print::note(note);
    }
    Ok(answer(harness, &decision))
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

/// The harness's stdin, whole and bounded.
fn read_input() -> Result<Vec<u8>, String> {
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        return Err("`dwpipe hook stop` reads the harness's stop-hook JSON on stdin, and stdin is a terminal".to_owned());
    }
    let mut input = Vec::new();
    stdin
        .lock()
        .take(INPUT_LIMIT + 1)
        .read_to_end(&mut input)
        .map_err(|e| format!("stdin cannot be read: {e}"))?;
    if input.len() as u64 > INPUT_LIMIT {
        return Err(format!("the input is larger than {INPUT_LIMIT} bytes"));
    }
    Ok(input)
}

/// A stop that cannot be read, under `review.fail-mode: closed`: refused, with what to do.
fn refused_unread(why: &str) -> Decision {
    print::note(&format!(
        "E_HOOK_INPUT: {why}; refused by review.fail-mode closed"
    ));
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
    print::note(why);
    Decision {
        answer: Answer::Allow,
        said: Said::NotGated,
        note: Some(format!("dwpipe: the change is NOT verified ({why})")),
    }
}

/// Prints the answer; the exit code that goes with it.
fn answer(harness: Harness, decision: &Decision) -> i32 {
    let mut text = render(harness, decision);
    text.push('\n');
    print::raw(text.as_bytes());
    exit_code::OK
}

/// What a gate run came to, for the decision and the record: the gate, the run's id, how it
/// ended, and the failure's fingerprint.
fn outcome(gated: &Gated) -> (Gate<'_>, Option<String>, String, Option<String>) {
    let run = gated
        .report
        .run_dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned());
    let reason = gated.report.terminal_reason;
    let verdict = reason.to_string();
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

/// Runs the gate's round `round` as `deliver` runs its stages after an agent: the gate's
/// outcome and the pack's lock hash; `Err` says why it could not run.
fn gate(
    hdc: &HdcClient,
    args: &HookStopArgs,
    base: &Path,
    round: u32,
) -> Result<(Gated, String), String> {
    // Another session's gate on this workspace is waited for (as a device's lease is).
    let request = args.project.request(
        Some(base.to_owned()),
        Mode::Gate {
            round,
            wait: args.client.lease_wait,
        },
    );
    let plan = DeliverPlan::new(request, hdc).map_err(|refused| match refused {
        PlanError::Invalid(found) | PlanError::NoDevice(found) => found
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("; "),
        other => Error::from(other).to_string(),
    })?;
    print::diagnostics(&plan.frozen.found);
    let pack = plan.frozen.lock.sha256.clone();
    let progress = DeliverProgress::new(false, false);
    let events = |event: Event<'_>| progress.event(event);
    let cancel = Cancel::new();
    let gated = block_on(&cancel, crate::pipeline::gate(plan, &cancel, &events));
    progress.finish();
    gated
        .map(|gated| (gated, pack))
        .map_err(|e| Error::from(e).to_string())
}

#[derive(Debug, Subcommand)]
pub(super) enum HookCommand {
    /// Run the gate when the agent wants to stop, and let it stop or send it back with the repair brief.
    #[command(after_long_help = HOOK_STOP_HELP)]
    Stop(Box<HookStopArgs>),
    /// Print dwpipe's plugin for OpenCode and DevEco Code (their sessions have no stop hook): save it in .opencode/plugins/ (DevEco Code: .deveco/plugins/).
    Plugin,
}

#[derive(Debug, clap::Args)]
pub(super) struct HookStopArgs {
    #[command(flatten)]
    pub(super) client: DeviceClient,
    /// The harness whose stop hook this is: its JSON on stdin, its answer on stdout.
    #[arg(long = "target", value_name = "HARNESS", value_parser = clap::builder::PossibleValuesParser::new(crate::hook::Harness::WORDS))]
    pub(super) harness: String,
    #[command(flatten)]
    pub(super) project: Project,
}

pub(super) const HOOK_STOP_HELP: &str = "Reads the harness's stop-hook JSON on stdin (Claude Code and Codex: session_id, stop_hook_active; Cursor: conversation_id, status, loop_count), runs what `deliver` runs after its agent (the verification commands, then the audit on the configured device or capture, against the frozen pack) on the workspace as it stands, in a run folder of its own under .dwpipe/runs, and prints one JSON object on stdout: {} lets the agent stop; {\"decision\":\"block\",\"reason\":…} (Cursor: {\"followup_message\":…}) sends it back with the repair brief. Rounds are counted per agent session in .dwpipe/hooks/ (stop_hook_active is recorded, never trusted to end the loop) and bounded by repair.max-rounds and repair.max-same-failure; when they run out, or the gate cannot decide, review.fail-mode says what happens: open lets the agent stop (recorded, said unverified), warn sends it back once to say the change is unverified and then lets it stop, closed keeps refusing and says so. Progress goes to stderr. Cursor's status `aborted` or `error` is not gated (the user or Cursor stopped the loop); any other status is gated. Exit 0 whenever an answer was printed; an input that cannot be read (not JSON, no session, over 1 MiB) lets the agent stop unverified and says why on stderr, except under review.fail-mode closed, which refuses it.";

impl Run for HookCommand {
    fn drives_children(&self) -> bool {
        true
    }

    fn execute(self, edge: &Edge) -> Result<i32, Error> {
        match self {
            HookCommand::Stop(args) => stop(&edge.client(&args.client), &args),
            HookCommand::Plugin => {
                print::raw(OPENCODE_PLUGIN.as_bytes());
                Ok(exit_code::OK)
            }
        }
    }
}
