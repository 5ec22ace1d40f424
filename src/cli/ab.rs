//! `dwpipe audit --baseline-hap OLD --candidate-hap NEW`: the last release and the candidate
//! alternated on one device (or on each device of a lab, each compared with itself), printed
//! as both verdicts — the candidate against the pack, and against the baseline (a lab's as a
//! criterion × device matrix).

use std::path::{Path, PathBuf};

use crate::ab::{self, AbError, AbEvent, AbPlan, AbRecord, AbSession, Arm, Build, Restored};
use crate::audit::{AuditError, InstalledHap};
use crate::compare::Comparison;
use crate::device::DeviceError;
use crate::diagnostic::{Diagnostic, chain};
use crate::exit_code;
use crate::history::Recorder;
use crate::input::hash_file;
use crate::lab::{AbSeat, LabEvent, ab_interrupted, ab_lab};
use crate::playbook::Playbooks;
use crate::process::Cancel;
use crate::report::{AbColumn, AbLabReport, UnreachableServer};
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
    let history = args.history.as_deref().map(Recorder::at);
    let plan = AbPlan {
        frozen: &frozen,
        lock: &args.lock,
        playbooks: &playbooks,
        baseline: &baseline,
        candidate: &candidate,
        runs,
        max_runs,
        history: history.as_ref(),
    };
    let cancel = Cancel::new();
    let progress = AuditProgress::new(json);
    let ran = block_on(&cancel, async {
        let checks = crate::preflight::playbooks(&frozen.pack, &playbooks);
        match crate::preflight::open(checks, target, hdc, &cancel)
            .await
            .1?
        {
            Opened::One(device) => {
                let sheltered = device.sheltered();
                let events = |event: AbEvent<'_>| match event {
                    AbEvent::Audit(event) => progress.event(event),
                    other => note(json, &other),
                };
                let outcome = ab::run(&device, sheltered.as_ref(), &plan, out, &events).await;
                device.finish().await?;
                Ok::<_, Error>(Ran::One(Box::new(outcome)))
            }
            Opened::Lab(roster) => {
                print::unreachable_servers(&roster.unreachable);
                let events = |event: LabEvent<'_>| super::lab::report_event(json, &event);
                let seats = ab_lab(hdc, &plan, &roster, out, &cancel, &events).await;
                Ok(Ran::Lab(seats, UnreachableServer::all(&roster.unreachable)))
            }
        }
    })?;
    progress.finish();
    match ran {
        Ran::One(outcome) => one(*outcome, out, json),
        Ran::Lab(seats, unreachable) => lab(&seats, unreachable, out, json),
    }
}

/// What the session (or the lab's sessions) gave.
enum Ran {
    One(Box<(Result<AbSession, AbError>, Restored)>),
    Lab(Vec<AbSeat>, Vec<UnreachableServer>),
}

fn one(
    (result, restored): (Result<AbSession, AbError>, Restored),
    out: &Path,
    json: bool,
) -> Result<i32, Error> {
    if let Restored::Failed(_) = restored {
        print::note(&format!(
            "the device could not be left as it should be: {restored}"
        ));
    }
    let session = match result {
        Ok(session) => session,
        Err(e) if e.is_interrupted() => return Err(Error::Device(DeviceError::Cancelled)),
        Err(e) => {
            print::note(&format!(
                "{}; {restored}; the evidence gathered so far is under {}",
                chain(&e),
                out.display()
            ));
            return Err(match e {
                AbError::Switch { source, .. }
                | AbError::Audit {
                    source: AuditError::Device { source, .. },
                    ..
                } => Error::Device(source),
                AbError::Audit { source, .. } => Error::Audit(source),
                AbError::Publish(e) => e.into(),
                AbError::History(d) => d.into(),
                AbError::Compare(e) => Diagnostic::error(e.code(), e.to_string())
                    .fix("the device's identity changed during the session: run it again")
                    .into(),
            });
        }
    };
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

/// The lab's matrix, printed and written; exit 0 every device passed and did not regress, 1
/// one did not, 3 none failed but a session stopped.
fn lab(
    seats: &[AbSeat],
    unreachable: Vec<UnreachableServer>,
    out: &Path,
    json: bool,
) -> Result<i32, Error> {
    if seats.is_empty() {
        return Err(super::lab::no_devices());
    }
    if ab_interrupted(seats) {
        print::note(&format!(
            "interrupted; the devices' evidence so far is under {} (each was left with the candidate where it could be)",
            out.display()
        ));
        return Err(Error::Device(DeviceError::Cancelled));
    }
    let columns = seats
        .iter()
        .map(|seat| {
            let (serial, folder) = (&seat.member.serial, seat.member.folder());
            match &seat.outcome {
                Ok(session) => AbColumn::of(serial, &folder, session),
                Err(e) => AbColumn::stopped(serial, &folder, chain(e)),
            }
        })
        .collect();
    let report = AbLabReport::new(columns, unreachable);
    let written = report.publish(out)?;
    if json {
        print::json(&report);
    } else {
        let rows = report.rows();
        let widths: Vec<usize> = (0..rows[0].len())
            .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
            .collect();
        for row in &rows {
            let cells: Vec<String> = row
                .iter()
                .zip(&widths)
                .map(|(cell, width)| format!("{cell:<width$}"))
                .collect();
            print::out(&format!("  {}", cells.join("  ").trim_end()));
        }
        for device in report.devices.iter().filter(|d| d.error.is_some()) {
            print::out(&format!(
                "  {}: {}",
                device.serial,
                device.error.as_deref().unwrap_or_default()
            ));
        }
        for down in &report.unreachable {
            print::out(&format!(
                "  hdc server {} did not answer: {}",
                down.server, down.reason
            ));
        }
        let written: Vec<String> = written.iter().map(|p| p.display().to_string()).collect();
        print::out(&format!(
            "A/B on {} device(s): {}; wrote {}",
            report.devices.len(),
            report.verdict.as_str().to_uppercase(),
            written.join(", ")
        ));
    }
    Ok(exit_code::of_lab(report.verdict))
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
