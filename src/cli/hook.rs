//! `dwpipe hook stop --target HARNESS`: the harness's stop-hook JSON in, the gate run on the
//! workspace as it stands, the answer out — one JSON object, the whole of stdout (progress
//! goes to stderr). The answer itself is decided in [`crate::hook`]; this module reads the
//! input, runs the gate as `deliver` runs its stages, and keeps the session's record.

use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};

use crate::config::{Config, FailMode, Repair};
use crate::diagnostic::Diagnostic;
use crate::diagnostic::chain;
use crate::exit_code;
use crate::hook::{
    Answer, Decision, Gate, Harness, Round, Said, Session, decide, decide_uncounted, read_stop,
    render,
};
use crate::output::dir_or_dot;
use crate::pack::Frozen;
use crate::pipeline::{Delivery, Event, Gated, RunDir, RunTarget, claim, gate_config};
use crate::playbook::Playbooks;
use crate::preflight;
use crate::process::Cancel;
use crate::schema::TerminalReason;
use crate::target::HdcClient;

use super::args::HookStopArgs;
use super::deliver::run_dir_error;
use super::error::Error;
use super::print;
use super::progress::DeliverProgress;
use super::runtime::block_on;

/// dwpipe's plugin for OpenCode and DevEco Code, as `dwpipe hook plugin` prints it.
pub(super) const OPENCODE_PLUGIN: &str = include_str!("../../integrations/opencode/dwpipe-gate.js");

/// The most a harness's stop-hook input may be.
const INPUT_LIMIT: u64 = 1024 * 1024;

/// Answers one stop; `Ok(0)` once an answer was printed.
pub(super) fn stop(hdc: &HdcClient, args: &HookStopArgs) -> Result<i32, Error> {
    let harness = Harness::parse(&args.harness).expect("clap takes only the harnesses' words");
    let stop = match read_input()
        .and_then(|input| read_stop(harness, &input).map_err(|e| e.to_string()))
    {
        Ok(stop) => stop,
        // Without its session the rounds cannot be counted, and a loop nobody counts could go
        // on for ever: the agent is let stop, said to be unverified.
        Err(why) => {
            return Ok(answer(
                harness,
                &unverified(&format!("E_HOOK_INPUT: {why}; the change was not gated")),
            ));
        }
    };
    let base = args
        .out
        .clone()
        .unwrap_or_else(|| dir_or_dot(args.config.parent()).to_owned());
    let record = Session::path(&base, harness, &stop.session);
    // The limits and the fail mode are the config's; one that cannot be read has the defaults
    // (and the gate says why it could not run).
    let loaded = Config::load(&args.config);
    let (limits, fail_mode) = loaded
        .as_ref()
        .map_or((Repair::default(), FailMode::Warn), |config| {
            (config.repair, config.review.fail_mode)
        });
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
    let round = u32::try_from(earlier.len()).unwrap_or(u32::MAX);
    let gated = stop
        .not_finished
        .is_none()
        .then(|| gate(hdc, args, loaded, (&base, round)));
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

/// Runs the gate's round `round` as `deliver` runs its stages after an agent; `Err` says why
/// it could not run.
fn gate(
    hdc: &HdcClient,
    args: &HookStopArgs,
    loaded: Result<Config, Diagnostic>,
    (base, round): (&Path, u32),
) -> Result<(Gated, String), String> {
    let said = |e: Error| e.to_string();
    let config = loaded
        .map_err(|d| vec![d])
        .and_then(gate_config)
        .map_err(|found| {
            found
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ")
        })?;
    let hdc = &hdc.clone().leases_beside(config.history.as_ref());
    let target = args
        .target
        .clone()
        .target()
        .or_else(|| config.device.target())
        .ok_or("no device to audit on: pass --device SERIAL or --replay CAPTURE, or set `device:` in dwpipe.yaml")?;
    let run_target = RunTarget::of(&target);
    // Another session's gate on this workspace is waited for (as a device's lease is).
    let mut claim = claim(&config.workspace, args.client.lease_wait).map_err(|e| said(e.into()))?;
    let pack = args
        .pack
        .clone()
        .unwrap_or_else(|| PathBuf::from("pack.yaml"));
    let frozen = Frozen::open(&pack).map_err(|e| said(e.into()))?;
    print::diagnostics(&frozen.found);
    let playbooks =
        Playbooks::load(args.measuring.playbooks.as_deref()).map_err(|e| said(e.into()))?;
    let mut checks = preflight::programs(&config);
    checks.extend(preflight::playbooks(&frozen.pack, &playbooks));
    checks.push(preflight::writable("run folder", base));
    checks.push(preflight::history(&config.history.clone().unwrap_or_else(
        || crate::history::Store::Sqlite(base.join(".dwpipe").join(crate::history::DEFAULT_FILE)),
    )));
    let progress = DeliverProgress::new(false, false);
    let events = |event: Event<'_>| progress.event(event);
    let cancel = Cancel::new();
    let gated = block_on(&cancel, async {
        let (_, opened) = preflight::open(checks, &target, hdc, &cancel).await;
        let opened = opened?;
        // Leased again for the audit, not while the build verifies.
        opened.release_leases();
        if !matches!(opened, crate::target::Opened::One(_)) {
            return Err(Error::Usage(clap::Error::raw(
                clap::error::ErrorKind::ArgumentConflict,
                "a stop hook audits one device or one capture, not a lab",
            )));
        }
        let run_dir =
            RunDir::create(base, &frozen, run_target, &config.workspace).map_err(run_dir_error)?;
        claim.name(&run_dir.id());
        let delivery = Delivery {
            frozen: &frozen,
            config: &config,
            playbooks: &playbooks,
            run_dir: &run_dir,
            target: &target,
            resume: false,
            waive_review: false,
            strict: args.measuring.strict,
            events: &events,
        };
        let gated = delivery.gate(&opened, round, &cancel).await?;
        if let crate::target::Opened::One(device) = &opened {
            device.finish().await?;
        }
        Ok(gated)
    });
    progress.finish();
    gated
        .map(|gated| (gated, frozen.lock.sha256.clone()))
        .map_err(said)
}
