//! `dwpipe deliver`: all stages with the repair loop, in one run directory. This module turns
//! the command line into a validated plan, opens the device, and reports the engine's events.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use crate::config::Config;
use crate::device::{CallTimeouts, Server};
use crate::diagnostic::Diagnostic;
use crate::error::Error;
use crate::exit_code;
use crate::lab::LabPlan;
use crate::output::{dir_or_dot, write_atomic};
use crate::pack::{Frozen, load_lock};
use crate::pipeline::{Delivery, DeliveryError, Event, Summary, Target, create_run_dir, preflight};
use crate::playbook::Playbooks;
use crate::process::Cancel;
use crate::verify::TerminalReason;

use super::audit::{Source, open};
use super::freeze::{freeze_file, write_lock};
use super::lab::{Pick, members};
use super::print;
use super::progress::DeliverProgress;
use super::runtime::block_on;

/// Everything `dwpipe deliver` was asked.
pub(super) struct DeliverPlan {
    pub config: PathBuf,
    pub pack: Option<PathBuf>,
    pub resume: Option<PathBuf>,
    pub source: Option<Source>,
    /// Many devices: which, on which servers, how many at once (`source` is then unused).
    pub lab: Option<(Pick, Vec<Server>, usize)>,
    pub out: Option<PathBuf>,
    pub waive_review: bool,
    pub playbooks: Option<PathBuf>,
    pub call_timeout: Duration,
    pub json: bool,
    pub verbose: bool,
}

/// `deliver.json`: the summary plus what it was about.
#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct Output<'a> {
    format_version: u32,
    pack_sha256: &'a str,
    #[serde(flatten)]
    summary: &'a Summary,
}

/// The exit code of a terminal reason (DESIGN §1: anything but verified is a failed delivery).
fn exit_code_of(reason: TerminalReason) -> i32 {
    match reason {
        TerminalReason::Verified => exit_code::OK,
        TerminalReason::Interrupted => exit_code::INTERRUPTED,
        TerminalReason::EnvironmentError => exit_code::ENVIRONMENT,
        _ => exit_code::VERDICT_FAILED,
    }
}

/// The pack: a lock as it is, anything else frozen now.
fn frozen(pack: &Path) -> Result<Frozen, Error> {
    let is_lock = pack
        .file_name()
        .is_some_and(|n| n.to_string_lossy().ends_with(".lock.json"));
    if is_lock {
        load_lock(pack).map_err(Error::Invalid)
    } else {
        freeze_file(pack)
    }
}

/// The device: the flags, else `device:` in dwpipe.yaml.
fn source(plan_source: Option<Source>, config: &Config, path: &Path) -> Result<Source, Error> {
    if let Some(source) = plan_source {
        return Ok(source);
    }
    let defaults = &config.device;
    if let Some(replay) = &defaults.replay {
        return Ok(Source::Replay(replay.clone()));
    }
    let Some(serial) = &defaults.serial else {
        return Err(Diagnostic::error(
            "E_DELIVER_NO_DEVICE",
            "no device to audit on: neither --device/--replay nor `device:` in dwpipe.yaml",
        )
        .fix("pass --device SERIAL (see `dwpipe devices`) or --replay CAPTURE")
        .into());
    };
    let server = match &defaults.server {
        Some(text) => Some(Server::parse(text).map_err(|e| {
            Error::from(Diagnostic::error(
                "E_CONFIG_INVALID",
                format!("{}: device.server: {e}", path.display()),
            ))
        })?),
        None => None,
    };
    Ok(Source::Device {
        serial: serial.clone(),
        server,
        record: None,
    })
}

/// The folder holding `.dwpipe/runs/<run>` (where review receipts live beside the runs).
fn runs_base(run: &Path) -> PathBuf {
    dir_or_dot(run.ancestors().nth(3)).to_owned()
}

/// Runs the delivery; `Ok(exit code)`.
pub(super) fn run(hdc: &Path, plan: DeliverPlan) -> Result<i32, Error> {
    // Everything that can be refused is refused before any process starts.
    let mut config = Config::load(&plan.config)?;
    let missing = preflight(&config);
    if !missing.is_empty() {
        return Err(Error::Invalid(missing));
    }
    // The agent and the verification commands run inside the workspace: they get it absolute.
    config.workspace = std::fs::canonicalize(&config.workspace).map_err(|e| {
        Error::from(
            Diagnostic::error(
                "E_DELIVER_WORKSPACE",
                format!("workspace `{}`: {e}", config.workspace.display()),
            )
            .fix("set `workspace:` in dwpipe.yaml to the app's source tree"),
        )
    })?;
    let (frozen, dir, base) = match (&plan.resume, &plan.pack) {
        (Some(run), _) => {
            // A resumed run keeps its own lock: evidence is never reused across packs.
            let frozen = load_lock(&run.join("pack.lock.json")).map_err(Error::Invalid)?;
            let base = plan.out.clone().unwrap_or_else(|| runs_base(run));
            (frozen, run.clone(), base)
        }
        (None, Some(pack)) => {
            let frozen = frozen(pack)?;
            let base = plan
                .out
                .clone()
                .unwrap_or_else(|| dir_or_dot(plan.config.parent()).to_owned());
            let dir = create_run_dir(&base, &frozen.lock.sha256).map_err(|e| {
                Error::from(Diagnostic::error(
                    "E_DELIVER_OUT",
                    format!(
                        "cannot create a run directory under `{}`: {e}",
                        base.display()
                    ),
                ))
            })?;
            write_lock(&frozen, &dir)?;
            (frozen, dir, base)
        }
        (None, None) => {
            return Err(Diagnostic::error("E_DELIVER_NO_PACK", "nothing to deliver")
                .fix("pass --pack pack.yaml, or --resume RUN to continue a run")
                .into());
        }
    };
    let playbooks = Playbooks::load(plan.playbooks.as_deref())?;
    let source = source(plan.source, &config, &plan.config)?;
    let reviews = base.join(".dwpipe").join("reviews");
    let progress = DeliverProgress::new(plan.json, plan.verbose);
    let events = |event: Event| progress.event(event);
    let delivery = Delivery {
        frozen: &frozen,
        config: &config,
        playbooks: &playbooks,
        run_dir: &dir,
        reviews: &reviews,
        resume: plan.resume.is_some(),
        waive_review: plan.waive_review,
        events: &events,
    };
    let cancel = Cancel::new();
    let timeouts = CallTimeouts::all(plan.call_timeout);
    let summary = block_on(&cancel, async {
        match &plan.lab {
            None => {
                let device = open(hdc, &source, timeouts, &cancel)?;
                let summary = delivery.run(&Target::One(&device), &cancel).await;
                device.finish().await?;
                Ok(summary)
            }
            Some((pick, servers, jobs)) => {
                let (members, missing) = members(hdc, pick, servers, timeouts, &cancel).await?;
                if let Some(seat) = missing.first() {
                    let error = seat.outcome.as_ref().err().cloned().unwrap_or_default();
                    return Err(Error::Local(format!(
                        "device {}: {error}",
                        seat.member.serial
                    )));
                }
                if members.is_empty() {
                    return Err(Error::Local(
                        "no connected device on the hdc servers".to_owned(),
                    ));
                }
                let lab = LabPlan {
                    hdc,
                    frozen: &frozen,
                    lock: &dir.join("pack.lock.json"),
                    playbooks: &playbooks,
                    runs: None,
                    jobs: *jobs,
                    timeouts,
                };
                Ok(delivery
                    .run(&Target::Lab { plan: lab, members }, &cancel)
                    .await)
            }
        }
    });
    progress.finish();
    let summary = summary?.map_err(|e| match e {
        DeliveryError::Local(message) => Error::Local(message),
        DeliveryError::Resume(message) => Diagnostic::error("E_RESUME_REFUSED", message).into(),
    })?;
    let output = Output {
        format_version: crate::format::DELIVER,
        pack_sha256: &frozen.lock.sha256,
        summary: &summary,
    };
    let text = serde_json::to_string_pretty(&output).expect("a summary serializes") + "\n";
    write_atomic(&dir.join("deliver.json"), text.as_bytes())?;
    if plan.json {
        print::json(&output);
    } else {
        print_summary(&summary);
    }
    Ok(exit_code_of(summary.terminal_reason))
}

fn print_summary(summary: &Summary) {
    for (criterion, result) in &summary.criteria {
        print::out(&format!("  {criterion:<8} {result}"));
    }
    let reason = serde_json::to_value(summary.terminal_reason)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    let mut line = format!(
        "deliver: {reason} after {} repair round(s)",
        summary.repairs
    );
    if let Some(claim) = &summary.agent_claim {
        line.push_str(&format!("; the agent claimed {claim}"));
    }
    if !summary.unresolved.is_empty() {
        line.push_str(&format!("; unresolved: {}", summary.unresolved.join(", ")));
    }
    if let Some(detail) = &summary.detail {
        line.push_str(&format!(" ({detail})"));
    }
    print::out(&line);
    print::out(&format!("run directory: {}", summary.run_dir.display()));
}
