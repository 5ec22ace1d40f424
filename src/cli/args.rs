//! The command line as clap reads it: the commands, each with its arguments in its own module
//! beside what it runs (the groups several share in `shared`). Parsed here, turned into
//! plans by the commands; nothing here runs.

use clap::{Parser, Subcommand};

use super::error::Error;
use super::{Edge, Run};

use super::attest::{AttestArgs, VerifyAttestationArgs};
use super::audit::AuditArgs;
use super::brief::BriefArgs;
use super::compare::{COMPARE_HELP, CompareArgs};
use super::completions::CompletionsArgs;
use super::deliver::DeliverArgs;
use super::devices::DevicesArgs;
use super::doctor::DoctorArgs;
use super::explain::ExplainArgs;
use super::fingerprint::FingerprintArgs;
use super::freeze::FreezeArgs;
use super::gate::GateArgs;
use super::history::{HISTORY_HELP, HistoryArgs};
use super::hook::HookCommand;
use super::identify::{IdentifyArgs, RenamedCapture};
use super::init::InitArgs;
use super::inspect::InspectCommand;
use super::probes::{ProbesArgs, RunsArgs};
use super::review::ReviewArgs;
use super::schema::SchemaArgs;
use super::show::ReportCommand;
use super::verify_evidence::VerifyEvidenceArgs;
use std::path::PathBuf;

#[derive(Debug, Parser)]
#[command(
    name = "dwpipe",
    bin_name = "dwpipe",
    version,
    about,
    max_term_width = 100
)]
#[command(
    after_help = "Exit codes: 0 pass, 1 verdict fail, 2 invalid input, 3 environment, 130 interrupted."
)]
pub(super) struct Cli {
    #[command(subcommand)]
    pub(super) command: Command,
    /// The hdc client, before the subcommand (kept for scripts; the commands that talk to hdc
    /// show their own `--hdc`).
    #[arg(long, value_name = "PATH", hide = true)]
    pub(super) hdc: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub(super) enum Command {
    /// Write a commented example acceptance pack and dwpipe.yaml to start from.
    Init(InitArgs),
    /// Check that everything a delivery needs is installed and reachable (run this first).
    Doctor(DoctorArgs),
    /// Validate an acceptance pack, then write pack.lock.json (canonical, SHA-256) and spec.md.
    Freeze(FreezeArgs),
    /// Recompute the verdicts of an outside auditor's report against a frozen pack.
    Gate(GateArgs),
    /// Render the Goal brief for the agent, or a repair brief from a failed audit or verification.
    Brief(BriefArgs),
    /// Print a workspace's fingerprint (git: HEAD + status + changed files' content; else the tree).
    Fingerprint(FingerprintArgs),
    /// Attack a frozen pack before dispatch: built-in rules, then the optional outside reviewer.
    Review(ReviewArgs),
    /// List the devices on every hdc server, with model, software, API level and density.
    Devices(DevicesArgs),
    /// Record a device's identity (device.yaml, no exchanges) into a new capture folder; a replayable recording is `audit --record DIR`.
    Identify(IdentifyArgs),
    /// Renamed: what it recorded was a device's identity (`dwpipe identify`); a replayable capture is `dwpipe audit --record DIR`.
    #[command(hide = true)]
    Capture(RenamedCapture),
    /// Measure every criterion that has a probe on a device (or a capture), keep the evidence, gate it.
    Audit(AuditArgs),
    /// Deliver a change: freeze, review, brief the agent, verify, audit, and repair until verified.
    Deliver(DeliverArgs),
    /// Re-hash an audit's evidence and recompute every reading and verdict from it, offline.
    VerifyEvidence(VerifyEvidenceArgs),
    /// Sign an audit that verifies as in-toto statements (SLSA VSA + dwpipe's verdict) about the HAPs.
    Attest(AttestArgs),
    /// Check an attestation offline: signatures, subject, policy, and with --evidence the verdict rebuilt.
    VerifyAttestation(VerifyAttestationArgs),
    /// Hold a candidate audit against a baseline audit of the same device: regressed, improved, same or inconclusive, per criterion.
    #[command(after_long_help = COMPARE_HELP)]
    Compare(CompareArgs),
    /// The measurements recorded in the history (every deliver run; audit/compare with --history), and where they shifted.
    #[command(after_long_help = HISTORY_HELP)]
    History(HistoryArgs),
    /// The run folders of `deliver` under .dwpipe/runs, newest first: id (what --resume takes), start, pack, ending, report.
    Runs(RunsArgs),
    /// Every probe a pack can name: its arguments and their allowed values, its units, how it measures.
    Probes(ProbesArgs),
    /// What an error code (`E_…`) means, the exit code it comes with, and how to put it right.
    Explain(ExplainArgs),
    /// The JSON Schema of a document dwpipe writes (audit, lab, compare, deliver, …), for validating its output in CI.
    Schema(SchemaArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell) on stdout.
    #[command(
        after_help = "bash: dwpipe completions bash > ~/.local/share/bash-completion/completions/dwpipe\nzsh:  dwpipe completions zsh > \"${fpath[1]}/_dwpipe\"\nfish: dwpipe completions fish > ~/.config/fish/completions/dwpipe.fish"
    )]
    Completions(CompletionsArgs),
    /// Work with reports: merge the lab matrices of shards run on different hosts.
    #[command(subcommand)]
    Report(ReportCommand),
    /// Show what an extractor sees in one file (trace, layout dump, hidumper output, …).
    #[command(subcommand)]
    Inspect(InspectCommand),
    /// The gate inside an agent's own loop: answers Claude Code's, Codex's and Cursor's stop hooks (and dwpipe's OpenCode plugin).
    #[command(subcommand)]
    Hook(HookCommand),
}

/// The completion script is made from the whole command line, which lives here.
impl Run for CompletionsArgs {
    fn execute(self, _: &Edge) -> Result<i32, Error> {
        let mut command = <Cli as clap::CommandFactory>::command();
        let mut script = Vec::new();
        clap_complete::generate(self.shell, &mut command, "dwpipe", &mut script);
        super::print::raw(&script);
        Ok(crate::exit_code::OK)
    }
}
