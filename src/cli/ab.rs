//! `dwpipe audit --baseline-hap OLD --candidate-hap NEW`: the last release and the candidate
//! alternated on one device (or on each device of a lab, each compared with itself), printed
//! as both verdicts — the candidate against the pack, and against the baseline.

use std::path::{Path, PathBuf};

use crate::ab::{self, AbEvent, AbPlan, AbRecord, AbSession, Arm, Build, Restored};
use crate::audit::InstalledHap;
use crate::compare::Comparison;
use crate::device::DeviceError;
use crate::diagnostic::{Diagnostic, chain};
use crate::exit_code;
use crate::input::hash_file;
use crate::playbook::Playbooks;
use crate::process::Cancel;
use crate::target::{HdcClient, Opened, Target};

use super::args::AuditArgs;
use super::compare::print_comparison;
use super::error::Error;
use super::load_lock;
use super::print;
use super::progress::AuditProgress;
use super::runtime::block_on;

/// Runs per arm when `--runs` is not given.
const RUNS: u32 = 10;
/// Runs per arm at most when `--max-runs` is not given.
const MAX_RUNS: u32 = 40;

/// What `--json` prints: the record with the comparison in it.
#[derive(serde::Serialize)]
struct Printed<'a> {
    #[serde(flatten)]
    record: &'a AbRecord,
    #[serde(rename = "compared")]
    comparison: &'a Comparison,
}

/// Runs the A/B session; exit 0 when the candidate passes the pack and did not regress.
pub(super) fn run(hdc: &HdcClient, target: &Target, args: &AuditArgs) -> Result<i32, Error> {
    let json = args.json;
    let frozen = load_lock(&args.lock)?;
    let playbooks = Playbooks::load(args.playbooks.as_deref())?;
    let (baseline, candidate) = (
        build(args.baseline_hap.as_deref(), Arm::Baseline)?,
        build(args.candidate_hap.as_deref(), Arm::Candidate)?,
    );
    let runs = args.runs.unwrap_or(RUNS);
    let max_runs = args.max_runs.unwrap_or(MAX_RUNS.max(runs));
    if runs < 2 || max_runs < runs {
        return Err(Diagnostic::error(
            "E_AB_RUNS",
            format!("--runs {runs} --max-runs {max_runs}: an A/B session needs at least 2 runs per arm (two blocks each), and --max-runs at least --runs"),
        )
        .fix("the defaults are --runs 10 --max-runs 40")
        .into());
    }
    let out = args.out.as_path();
    fresh(out)?;
    let plan = AbPlan {
        frozen: &frozen,
        lock: &args.lock,
        playbooks: &playbooks,
        baseline: &baseline,
        candidate: &candidate,
        runs,
        max_runs,
    };
    let cancel = Cancel::new();
    let progress = AuditProgress::new(json);
    let (result, restored) = block_on(&cancel, async {
        let checks = crate::preflight::playbooks(&frozen.pack, &playbooks);
        let Opened::One(device) = crate::preflight::open(checks, target, hdc, &cancel)
            .await
            .1?
        else {
            return Err(Error::from(
                Diagnostic::error("E_AB_LAB", "an A/B session takes one device")
                    .fix("pass one --device (or --replay a recorded session)"),
            ));
        };
        let sheltered = device.sheltered();
        let events = |event: AbEvent<'_>| match event {
            AbEvent::Audit(event) => progress.event(event),
            other => note(json, &other),
        };
        let outcome = ab::run(&device, sheltered.as_ref(), &plan, out, &events).await;
        device.finish().await?;
        Ok::<_, Error>(outcome)
    })?;
    progress.finish();
    say_restored(&restored);
    let session = result.map_err(|e| {
        if e.is_interrupted() {
            Error::Device(DeviceError::Cancelled)
        } else {
            Error::from(
                Diagnostic::error("E_AB_STOPPED", chain(&e)).fix(format!(
                    "the evidence gathered so far is under {}; fix the cause and run the session again into an empty --out",
                    out.display()
                )),
            )
        }
    })?;
    if json {
        print::json(&Printed {
            record: &session.record,
            comparison: &session.comparison,
        });
    } else {
        print_session(&session);
    }
    Ok(exit_code::of_ab(session.record.passed()))
}

/// A HAP given on the command line, hashed.
fn build(path: Option<&Path>, arm: Arm) -> Result<Build, Error> {
    let path = path.expect("clap requires both HAPs");
    let sha256 = hash_file(path, "a HAP").map_err(|e| {
        Error::from(
            Diagnostic::error(
                "E_AB_NO_HAP",
                format!(
                    "the {arm} HAP `{}` cannot be read: {}",
                    path.display(),
                    chain(&e)
                ),
            )
            .fix("pass the signed .hap files of both builds"),
        )
    })?;
    Ok(Build {
        path: path.to_owned(),
        hap: InstalledHap {
            path: path.display().to_string(),
            sha256,
        },
    })
}

/// An A/B session writes into an `--out` that holds no earlier session.
fn fresh(out: &Path) -> Result<(), Error> {
    std::fs::create_dir_all(out).map_err(Error::folder(out))?;
    let taken: Vec<PathBuf> = [ab::RECORD, "baseline", "candidate", "warm-up"]
        .iter()
        .map(|name| out.join(name))
        .filter(|path| path.exists())
        .collect();
    if let Some(path) = taken.first() {
        return Err(Diagnostic::error(
            "E_AB_OUT_TAKEN",
            format!("`{}` is there already: an earlier session's evidence would be mixed with this one's", path.display()),
        )
        .fix("pass an empty --out")
        .into());
    }
    Ok(())
}

/// A line on stderr for what the session does between audits.
fn note(json: bool, event: &AbEvent<'_>) {
    if json {
        return;
    }
    match event {
        AbEvent::Installing(arm) => print::note(&format!("installing the {arm} build…")),
        AbEvent::Escalated { runs, unknown } => print::note(&format!(
            "{} still unknown: {runs} runs per arm",
            unknown.join(", ")
        )),
        AbEvent::Audit(_) => {}
    }
}

/// What the device was left with, when it is not the candidate.
fn say_restored(restored: &Restored) {
    if let Restored::Failed(why) = restored {
        print::note(&format!(
            "the device could not be left with the candidate installed: {why}"
        ));
    }
}

fn print_session(session: &AbSession) {
    let record = &session.record;
    print_comparison(&session.comparison);
    let written: Vec<String> = session
        .written
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    print::out(&format!(
        "A/B on {}: the candidate {} the pack ({}), {} against the baseline — {} and {} runs; the candidate is installed",
        record.serial,
        if record.absolute == crate::gate::Verdict::Pass {
            "PASSES"
        } else {
            "FAILS"
        },
        record.candidate.report,
        record.regression.as_str().to_uppercase(),
        record.baseline.runs,
        record.candidate.runs,
    ));
    print::out(&format!("wrote {}", written.join(", ")));
}
