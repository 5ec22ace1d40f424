//! `dwpipe deliver`: all stages with the repair loop, in one run directory. This module turns
//! the command line into a plan (the config, the run directory, the target), hands it to the
//! pipeline and reports its events.

use std::path::{Path, PathBuf};

use crate::diagnostic::Diagnostic;
use crate::exit_code;
use crate::output::dir_or_dot;
use crate::pack::Frozen;
use crate::pipeline::{
    Delivery, DeliveryError, Event, RunDir, RunDirError, RunTarget, claim, delivery_config,
};
use crate::playbook::Playbooks;
use crate::preflight;
use crate::process::Cancel;
use crate::schema::{DeliverReport, TerminalReason, page_to_open};
use crate::target::HdcClient;
use std::fmt::Write;

use super::args::DeliverArgs;
use super::error::Error;
use super::print;
use super::progress::DeliverProgress;
use super::runtime::block_on;
use super::{Edge, Run};
use crate::history::Store;

/// The pack `deliver` takes without `--pack`.
const DEFAULT_PACK: &str = "pack.yaml";

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
    let config = delivery_config(&args.config)?;
    let hdc = &hdc.clone().leases_beside(config.history.as_ref());
    let Some(target) = args
        .target
        .clone()
        .target()
        .or_else(|| config.device.target())
    else {
        return Err(no_device(&config, hdc, args));
    };
    let run_target = RunTarget::of(&target);
    // Held until the delivery ends: a second one on this workspace is refused meanwhile.
    let mut claim = claim(&config.workspace, std::time::Duration::ZERO)?;
    // A new run's folder is created only once preflight passed; a resumed one exists.
    let (frozen, resumed, base) = match (&args.resume, &args.pack) {
        (Some(run), _) => {
            // A bare id (as `dwpipe runs` lists it) names a folder of this project's runs.
            let run = if !run.exists() && run.components().count() == 1 {
                args.out
                    .as_deref()
                    .unwrap_or_else(|| dir_or_dot(args.config.parent()))
                    .join(crate::pipeline::RUNS_FOLDER)
                    .join(run)
            } else {
                run.clone()
            };
            let (dir, frozen) =
                RunDir::resume(&run, args.out.as_deref(), &run_target).map_err(run_dir_error)?;
            (frozen, Some(dir), None)
        }
        (None, pack) => {
            // Without --pack, the pack.yaml of the current folder (as `dwpipe init` writes it).
            let pack = match pack {
                Some(pack) => pack.clone(),
                None if Path::new(DEFAULT_PACK).is_file() => PathBuf::from(DEFAULT_PACK),
                None => {
                    return Err(Diagnostic::error(
                        "E_DELIVER_NO_PACK",
                        "nothing to deliver: no --pack, and no pack.yaml in the current folder",
                    )
                    .fix("pass --pack pack.yaml, or --resume RUN to continue a run")
                    .into());
                }
            };
            let base = args
                .out
                .clone()
                .unwrap_or_else(|| dir_or_dot(args.config.parent()).to_owned());
            (Frozen::open(&pack)?, None, Some(base))
        }
    };
    print::diagnostics(&frozen.found);
    let playbooks = Playbooks::load(args.measuring.playbooks.as_deref())?;
    let mut checks = preflight::programs(&config);
    checks.extend(preflight::playbooks(&frozen.pack, &playbooks));
    if let Some(base) = &base {
        checks.push(preflight::writable("run folder", base));
    }
    // Every audit of the delivery is recorded in the project's history: it must be usable.
    let history = match (&resumed, &base) {
        (Some(dir), _) => dir.history(&config),
        (None, base) => config.history.clone().unwrap_or_else(|| {
            Store::Sqlite(
                dir_or_dot(base.as_deref())
                    .join(".dwpipe")
                    .join(crate::history::DEFAULT_FILE),
            )
        }),
    };
    checks.push(preflight::history(&history));
    let progress = DeliverProgress::new(args.output.json, args.verbose);
    let events = |event: Event<'_>| progress.event(event);
    let cancel = Cancel::new();
    let delivered = block_on(&cancel, async {
        let (_, opened) = preflight::open(checks, &target, hdc, &cancel).await;
        let opened = opened?;
        // The device is leased again for its audit: not while the agent works.
        opened.release_leases();
        let run_dir = match resumed {
            Some(dir) => dir,
            None => RunDir::create(
                base.as_deref().expect("a new run has a base"),
                &frozen,
                run_target,
                &config.workspace,
            )
            .map_err(run_dir_error)?,
        };
        claim.name(&run_dir.id());
        if let crate::target::Opened::Lab(roster) = &opened {
            // A delivery audits every device it was given, or none.
            if let Some((member, why)) = roster.absent.first() {
                return Err(Error::Absent {
                    serial: member.serial.clone(),
                    why: why.clone(),
                });
            }
            if roster.members.is_empty() {
                return Err(Error::NoDevices);
            }
        }
        let delivery = Delivery {
            frozen: &frozen,
            config: &config,
            playbooks: &playbooks,
            run_dir: &run_dir,
            target: &target,
            resume: args.resume.is_some(),
            waive_review: args.no_review,
            strict: args.measuring.strict,
            events: &events,
        };
        let delivered = delivery.run(&opened, &cancel).await;
        if let crate::target::Opened::One(device) = &opened {
            device.finish().await?;
        }
        Ok(delivered)
    });
    progress.finish();
    let report = summary_or_error(delivered?)?;
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

/// No device to audit on, said together with everything else a first delivery would miss (the
/// agent, the verification commands' programs, hdc, the pack's playbooks), so that one try
/// names every missing piece.
fn no_device(config: &crate::config::Config, hdc: &HdcClient, args: &DeliverArgs) -> Error {
    let mut checks = preflight::programs(config);
    checks.push(preflight::hdc(&hdc.binary));
    let pack = args.pack.clone().or_else(|| {
        Path::new(DEFAULT_PACK)
            .is_file()
            .then(|| PathBuf::from(DEFAULT_PACK))
    });
    let playbooks = Playbooks::load(args.measuring.playbooks.as_deref());
    if let (Some(Ok(frozen)), Ok(playbooks)) = (pack.as_deref().map(Frozen::open), &playbooks) {
        checks.extend(preflight::playbooks(&frozen.pack, playbooks));
    }
    let mut found = preflight::problems(&checks);
    found.insert(
        0,
        Diagnostic::error(
            "E_DELIVER_NO_DEVICE",
            "no device to audit on: neither --device/--replay nor `device:` in dwpipe.yaml",
        )
        .fix("pass --device SERIAL (see `dwpipe devices`) or --replay CAPTURE, or set `device:` in dwpipe.yaml"),
    );
    Error::Invalid(found)
}

pub(super) fn run_dir_error(error: RunDirError) -> Error {
    match error {
        RunDirError::Lock(diagnostics) => Error::Invalid(diagnostics),
        RunDirError::Write(error) => Error::Publish(error),
        RunDirError::Record(error) => Error::Write(error),
        RunDirError::Create { base, source } => Error::Folder { path: base, source },
        RunDirError::Planted(e) => Error::Planted(e),
        refused @ (RunDirError::RunRecord(_)
        | RunDirError::PackChanged { .. }
        | RunDirError::OtherTarget { .. }
        | RunDirError::Ledger(_)) => {
            Diagnostic::error("E_RESUME_REFUSED", crate::diagnostic::chain(&refused))
                .fix("start a new delivery with --pack; a run is only continued as it was begun")
                .into()
        }
    }
}

/// A delivery's report, or the error that stopped it (a run that cannot be resumed is the
/// user's input, everything else the machine's).
fn summary_or_error(
    delivered: Result<DeliverReport, DeliveryError>,
) -> Result<DeliverReport, Error> {
    delivered.map_err(|error| match error {
        DeliveryError::Resume(refused) => {
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
    let mut line = format!(" after {} repair round(s)", summary.repairs);
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
        summary
            .run_dir
            .join(page_to_open(&summary.reports))
            .display()
    ));
}
