//! `dwpipe deliver`: all stages with the repair loop, in one run directory. This module turns
//! the command line into a request, has the pipeline plan and run it, and reports its events
//! and its summary.

use crate::diagnostic::Diagnostic;
use crate::exit_code;
use crate::pipeline::{DeliverPlan, DeliverRequest, DeliveryError, Event, Mode, StartError};
use crate::process::Cancel;
use crate::schema::{DeliverReport, TerminalReason, page_to_open};
use crate::target::HdcClient;
use std::fmt::Write;

use super::error::Error;
use super::print;
use super::progress::DeliverProgress;
use super::runtime::block_on;
use super::shared::{DeviceClient, Json, SummaryMd};
use super::{Edge, Run};
use crate::cli::shared::Project;
use std::path::PathBuf;

impl Run for DeliverArgs {
    fn json(&self) -> bool {
        self.output.json
    }

    fn drives_children(&self) -> bool {
        true
    }

    fn execute(self, edge: &Edge) -> Result<i32, Error> {
        run(&edge.client(&self.client), &self)
    }
}

/// Runs the delivery; `Ok(exit code)`.
fn run(hdc: &HdcClient, args: &DeliverArgs) -> Result<i32, Error> {
    // Everything that can be refused is refused before any process starts.
    let plan = DeliverPlan::new(&request(args), hdc)?;
    print::diagnostics(&plan.frozen.found);
    let progress = DeliverProgress::new(args.output.json, args.verbose);
    let events = |event: Event<'_>| progress.event(event);
    let cancel = Cancel::new();
    let delivered = block_on(
        &cancel,
        crate::pipeline::open_and_run(plan, &cancel, &events),
    );
    progress.finish();
    let report = summary_or_error(delivered.map(|ended| ended.report))?;
    if args.output.json {
        print::json(&report);
    } else {
        print_summary(&report);
    }
    if let Some(path) = &args.summary.summary_md {
        super::summary_md::add(path, &super::summary_md::of_delivery(&report))?;
    }
    Ok(exit_code::of_delivery(report.terminal_reason))
}

/// What the command line asks of the delivery.
fn request(args: &DeliverArgs) -> DeliverRequest {
    let mut request = args.project.request(
        args.project.out.clone(),
        Mode::Deliver {
            resume: args.resume.clone(),
            waive_review: args.no_review,
        },
    );
    request.sign_key.clone_from(&args.sign_key);
    request
}

/// A delivery's report, or the error that stopped it (a run that cannot be resumed is the
/// user's input, everything else the machine's).
fn summary_or_error(delivered: Result<DeliverReport, StartError>) -> Result<DeliverReport, Error> {
    delivered.map_err(|error| match error {
        StartError::Delivery(DeliveryError::Resume(refused)) => {
            Diagnostic::error("E_RESUME_REFUSED", crate::diagnostic::chain(&refused)).into()
        }
        other => other.into(),
    })
}

fn print_summary(summary: &DeliverReport) {
    for (criterion, result) in &summary.criteria {
        print::out(&format!("  {criterion:<8} {result}"));
    }
    // A replay shows the pipeline works, not that the change works on a device.
    let against = if summary.terminal_reason == TerminalReason::Verified && summary.replayed() {
        " against a recorded capture"
    } else {
        ""
    };
    let tone = match summary.terminal_reason {
        TerminalReason::Verified => print::Tone::Pass,
        TerminalReason::EnvironmentError | TerminalReason::Interrupted => print::Tone::Warn,
        _ => print::Tone::Fail,
    };
    let mut line = format!(" {}", summary.repairs_said());
    if let Some(claim) = &summary.agent_claim {
        let _ = write!(line, "; the agent claimed {claim}");
    }
    if !summary.unresolved.is_empty() {
        let _ = write!(line, "; unresolved: {}", summary.unresolved.join(", "));
    }
    if let Some(detail) = &summary.detail {
        let _ = write!(line, " ({detail})");
    }
    print::out_line(
        &print::Line::default()
            .plain("deliver: ")
            .toned(format!("{}{against}", summary.terminal_reason), tone)
            .plain(line),
    );
    if summary.agent_changed_nothing && summary.terminal_reason == TerminalReason::Verified {
        print::out("note: the agent changed nothing: the workspace already met the pack");
    }
    for hap in &summary.installed {
        print::out(&format!(
            "installed {} (sha256 {})",
            hap.path,
            &hap.sha256[..12]
        ));
    }
    if let Some(why) = &summary.not_installed
        && !summary.replayed()
    {
        print::out(&format!("note: {why}"));
    }
    print::out(&format!("run directory: {}", summary.run_dir.display()));
    print::out(&format!(
        "open: {}",
        summary.run_dir.join(page_to_open()).display()
    ));
}

#[derive(Debug, clap::Args)]
#[command(after_help = "\
Stages: freeze the pack, pre-review it (a lock is reviewed once; receipts in .dwpipe/reviews), \
write the Goal brief, run the agent, run the verification commands, audit on the device; on a \
failure, a repair brief goes back to the agent (repair.max-rounds, the same failure at most \
repair.max-same-failure times). Every artifact and ledger.jsonl land in \
.dwpipe/runs/<time>-<pack8>/ beside dwpipe.yaml (or under --out); deliver.json ends it.

After the agent and after the verification commands, the run's records (the lock, spec.md, \
run.json, the ledger) must be as dwpipe left them, else the run ends records_tampered; whatever \
they left running in their process group is stopped. One delivery per workspace at a time.

Exit 0 verified, 1 not verified (no_changes, verification_failed, audit_failed, \
repeated_failure, budget_exhausted, review_blocked, records_tampered), 2 invalid input (a run \
that cannot be resumed as it began among them), 3 environment (a tool, the agent or the device \
failed; the workspace is being delivered), 130 interrupted (Ctrl-C or SIGTERM; a second signal \
kills what still runs and exits at once).")]
#[command(group(clap::ArgGroup::new("source").args(["serials", "devices", "replay"])))]
pub(super) struct DeliverArgs {
    #[command(flatten)]
    pub(super) client: DeviceClient,
    #[command(flatten)]
    pub(super) project: Project,
    /// Continue an interrupted run from its last completed stage — its folder, or its id as
    /// `dwpipe runs` lists it — reusing a passed verification only while the workspace is
    /// unchanged.
    #[arg(long, value_name = "RUN", conflicts_with = "pack")]
    pub(super) resume: Option<PathBuf>,
    /// Waive the outside reviewer for this run (recorded; refused under fail-mode closed).
    #[arg(long)]
    pub(super) no_review: bool,
    /// Unfold the agent's log and the verification commands' output under their stage lines.
    #[arg(long, short)]
    pub(super) verbose: bool,
    /// Attest each audit with this private key (PKCS#8 PEM, Ed25519 or ECDSA P-256): an
    /// `audit-<n>.intoto.jsonl` beside it, about the HAPs the round installed (over
    /// dwpipe.yaml's `attest: { key }`; see `dwpipe attest --help`).
    #[arg(long, value_name = "PRIVATE.pem", env = "DWPIPE_SIGN_KEY")]
    pub(super) sign_key: Option<PathBuf>,
    #[command(flatten)]
    pub(super) summary: SummaryMd,
    #[command(flatten)]
    pub(super) output: Json,
}
