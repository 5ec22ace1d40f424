//! `dwpipe hook stop --target HARNESS`: the harness's stop-hook JSON in, the gate run on the
//! workspace as it stands, the answer out — one JSON object, the whole of stdout (progress
//! goes to stderr). The stop is answered by [`crate::hook::stop`] (the session's record, the
//! rounds, the decision); this module reads stdin, runs the gate's plan when asked, and
//! prints what it was given to print.

use std::io::{IsTerminal, Read};
use std::path::Path;

use clap::Subcommand;

use crate::exit_code;
use crate::hook::{Harness, StopRequest, render};
use crate::output::dir_or_dot;
use crate::pipeline::{DeliverPlan, DeliverPlanError, Event, Gated, Mode};
use crate::process::Cancel;
use crate::target::HdcClient;

use super::error::Error;
use super::print;
use super::progress::DeliverProgress;
use super::runtime::block_on;
use super::shared::{DeviceClient, Project};
use super::{Edge, Run};

/// dwpipe's plugin for OpenCode and DevEco Code, as `dwpipe hook plugin` prints it.
pub(super) const OPENCODE_PLUGIN: &str = include_str!("../../integrations/opencode/dwpipe-gate.js");

/// The most a harness's stop-hook input may be.
const INPUT_LIMIT: u64 = 1024 * 1024;

/// Answers one stop; `Ok(0)` once an answer was printed.
pub(super) fn stop(hdc: &HdcClient, args: &HookStopArgs) -> Result<i32, Error> {
    let harness = Harness::parse(&args.harness).expect("clap takes only the harnesses' words");
    let base = args
        .project
        .out
        .clone()
        .unwrap_or_else(|| dir_or_dot(args.project.config.parent()).to_owned());
    let request = StopRequest {
        harness,
        input: read_input(),
        config: args.project.config.clone(),
        base: base.clone(),
        wait: args.client.lease_wait,
    };
    let stopped = crate::hook::stop(request, |round| gate(hdc, args, &base, round));
    for note in &stopped.notes {
        print::note(note);
    }
    let mut text = render(harness, &stopped.decision);
    text.push('\n');
    print::raw(text.as_bytes());
    Ok(exit_code::OK)
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

/// Runs the gate's round `round` as `deliver` runs its stages after an agent; `Err` says why
/// it could not run.
fn gate(hdc: &HdcClient, args: &HookStopArgs, base: &Path, round: u32) -> Result<Gated, String> {
    // Another session's gate on this workspace is waited for (as a device's lease is).
    let request = args.project.request(
        Some(base.to_owned()),
        Mode::Gate {
            round,
            wait: args.client.lease_wait,
        },
    );
    let plan = DeliverPlan::new(&request, hdc).map_err(|refused| match refused {
        DeliverPlanError::Invalid(found) | DeliverPlanError::NoDevice(found) => found
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("; "),
        other => Error::from(other).to_string(),
    })?;
    print::diagnostics(&plan.frozen.found);
    let progress = DeliverProgress::new(false, false);
    let events = |event: Event<'_>| progress.event(event);
    let cancel = Cancel::new();
    let gated = block_on(
        &cancel,
        crate::pipeline::open_and_run(plan, &cancel, &events),
    );
    progress.finish();
    gated.map_err(|e| Error::from(e).to_string())
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
