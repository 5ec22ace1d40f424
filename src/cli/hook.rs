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
    Answer, Decision, Gate, Harness, Round, Said, Session, decide, read_stop, render,
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
    let mut session = match Session::load(&record, harness, &stop.session) {
        Ok(session) => session,
        Err(e) => {
            return Ok(answer(
                harness,
                &unverified(&format!(
                    "E_HOOK_STATE: {}; the change was not gated",
                    chain(&e)
                )),
            ));
        }
    };
    let earlier = session.this_loop().to_vec();
    let round = u32::try_from(earlier.len()).unwrap_or(u32::MAX);
    // The limits and the fail mode are the config's; one that cannot be read has the defaults
    // (and the gate says why it could not run).
    let loaded = Config::load(&args.config);
    let (limits, fail_mode) = loaded
        .as_ref()
        .map_or((Repair::default(), FailMode::Warn), |config| {
            (config.repair, config.review.fail_mode)
        });
    let gated;
    let (gate_outcome, run, verdict, failure) = match &stop.not_finished {
        Some(how) => (
            Gate::NotFinished { how },
            None,
            format!("not gated: {how}"),
            None,
        ),
        None => {
            gated = gate(hdc, args, loaded, (&base, round));
            match &gated {
                Ok(gated) => outcome(gated),
                Err(why) => (Gate::Undecided { why }, None, "undecided".to_owned(), None),
            }
        }
    };
    let run_name = run.clone().unwrap_or_else(|| "none".to_owned());
    let mut decision = decide(&earlier, gate_outcome, limits, fail_mode, &run_name);
    session.rounds.push(Round {
        run,
        continuing: stop.continuing,
        verdict: verdict.clone(),
        failure,
        said: decision.said,
        claim: stop.claim,
    });
    if let Err(e) = session.save(&record) {
        // A count that was not kept cannot bound the next round: no sending back on it.
        decision = unverified(&format!(
            "E_HOOK_STATE: {}; the session's rounds cannot be kept ({verdict})",
            chain(&e)
        ));
    }
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
    Ok(answer(harness, &decision))
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
) -> Result<Gated, String> {
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
    let mut claim = claim(&config.workspace).map_err(|e| said(e.into()))?;
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
    gated.map_err(said)
}
