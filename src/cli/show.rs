//! A session's outcome on the terminal, whatever its shape: one audit's checks and summary
//! line, a lab's criterion × device matrix, an A/B session's comparison and both verdicts, a
//! lab's A/B matrix; or, with `--json`, the document itself. Also `dwpipe report merge`,
//! which shows a merged matrix the same way.

use std::fmt::Write;
use std::path::PathBuf;

use crate::gate::Verdict;
use crate::report::{ab_lab_rows, publish};
use crate::schema::{
    AbLabReport, AbOutput, AuditReport, DeviceVerdict, LabDevice, LabReport, Restored,
};
use crate::session::{AbSession, Outcome, merge as merge_shards};
use crate::text::{CELL, LINE, one_line};

use super::compare::print_comparison;
use super::error::Error;
use super::print;
use super::print::Line;
use super::shared::{Json, SummaryMd};
use super::{Edge, Run};
use clap::Subcommand;

/// Shows an outcome (or prints its document as JSON).
pub(super) fn outcome(outcome: &Outcome, json: bool) {
    match outcome {
        Outcome::Audit { report, .. } if json => print::json(report),
        Outcome::Audit { report, written } => audit(report, written),
        Outcome::Lab { report, .. } if json => print::json(report),
        Outcome::Lab {
            report, written, ..
        } => lab(report, written),
        Outcome::Ab(session) if json => print::json(&AbOutput {
            session: &session.record,
            compared: &session.comparison,
        }),
        Outcome::Ab(session) => ab(session),
        Outcome::AbLab { report, .. } if json => print::json(report),
        Outcome::AbLab {
            report, written, ..
        } => ab_lab(report, written),
    }
    for unrecorded in outcome.unrecorded() {
        print::note(&format!("not recorded in the history: {unrecorded}"));
    }
}

/// `wrote a, b, c`.
fn wrote(written: &[PathBuf]) -> String {
    let paths: Vec<String> = written.iter().map(|p| p.display().to_string()).collect();
    format!("wrote {}", paths.join(", "))
}

fn audit(report: &AuditReport, written: &[PathBuf]) {
    print::diagnostics(&report.diagnostics);
    for entry in &report.checks {
        let c = &entry.check;
        print::out_line(
            &Line::default()
                .plain(format!(
                    "  {:<8} {:<13} {:<6} ",
                    c.criterion_id,
                    c.dimension.as_str(),
                    c.weight.as_str()
                ))
                .verdict(format!("{:<10}", c.result.as_str()))
                .plain(format!(
                    " {:<12} {}",
                    c.actual.as_deref().unwrap_or("-"),
                    c.reason.as_deref().unwrap_or(&c.evidence),
                )),
        );
    }
    let s = report.summary;
    let serial = report.device.as_ref().map_or("-", |d| d.serial.as_str());
    // A replay says so where a person looks, not only in the JSON.
    let replayed = match &report.source {
        Some(source) if source.is_replay() => format!(" (replay of {source})"),
        _ => String::new(),
    };
    print::out_line(
        &Line::default()
            .plain(format!("audit of {serial}{replayed}: "))
            .verdict(match report.word() {
                "pass with warnings" => "PASS with warnings".to_owned(),
                word => word.to_uppercase(),
            })
            .plain(format!(
                " — {}: {} pass, {} fail, {} unverified; {} error(s), {} warning(s)",
                crate::text::counted(s.criteria, "criterion", "criteria"),
                s.pass,
                s.fail,
                s.unverified,
                s.errors,
                s.warnings
            )),
    );
    let evidence = written
        .first()
        .and_then(|json| json.parent())
        .map(|out| out.join("evidence"));
    print::out(&format!(
        "{}; evidence in {}",
        wrote(written),
        evidence.unwrap_or_default().display()
    ));
}

fn lab(report: &LabReport, written: &[PathBuf]) {
    print::out(&matrix(report));
    print::out_line(&lab_verdict(report));
    print::out(&wrote(written));
}

fn ab(session: &AbSession) {
    let record = &session.record;
    if let Restored::Failed(_) = record.left_installed {
        print::note(&format!(
            "the device could not be left as it should be: {}",
            record.left_installed
        ));
    }
    print_comparison(&session.comparison);
    print::out_line(
        &Line::default()
            .plain(format!("A/B on {}: the candidate ", record.serial))
            .verdict(if record.absolute == Verdict::Pass {
                "PASSES"
            } else {
                "FAILS"
            })
            .plain(format!(" the pack ({}), ", record.candidate.report))
            .verdict(record.regression.as_str().to_uppercase())
            .plain(format!(
                " against the baseline — {} and {} runs; {}",
                record.baseline.runs, record.candidate.runs, record.left_installed,
            )),
    );
    print::out(&wrote(&session.written));
}

fn ab_lab(report: &AbLabReport, written: &[PathBuf]) {
    for line in crate::text::columns(&ab_lab_rows(report)) {
        print::out(&format!("  {line}"));
    }
    for device in report.devices.iter().filter(|d| d.error.is_some()) {
        print::out(&format!(
            "  {}: {}",
            one_line(&device.serial, CELL),
            one_line(device.error.as_deref().unwrap_or_default(), LINE)
        ));
    }
    for down in &report.unreachable {
        print::out(&format!(
            "  hdc server {} did not answer: {}",
            one_line(&down.server, CELL),
            one_line(&down.reason, LINE)
        ));
    }
    print::out_line(
        &Line::default()
            .plain(format!("A/B on {} device(s): ", report.devices.len()))
            .verdict(report.verdict.as_str().to_uppercase())
            .plain(format!("; {}", wrote(written))),
    );
}

/// `dwpipe report merge RUN…`: exit 0 every device passed, 1 one failed, 3 none failed but
/// one could not be audited.
pub(super) fn merge(args: &MergeArgs) -> Result<i32, Error> {
    let out = crate::output::default_out(args.out.as_deref(), "merge");
    // The device reports are linked relative to the folder, which must exist for that; a
    // merge that is refused leaves no empty folder behind.
    std::fs::create_dir_all(&out).map_err(Error::folder(&out))?;
    let (report, junit) = merge_shards(&args.runs, &out).inspect_err(|_| {
        let _ = std::fs::remove_dir(&out);
    })?;
    let written = publish::lab(&report, &junit, &out)?;
    if args.output.json {
        print::json(&report);
    } else {
        lab(&report, &written);
    }
    if let Some(path) = &args.summary.summary_md {
        let page = out.join(crate::schema::files::LAB_HTML);
        super::summary_md::add(
            path,
            &crate::report::summary::lab(&report, Some(&page.to_string_lossy())),
        )?;
    }
    Ok(crate::exit_code::of_lab(report.verdict))
}

/// The criterion × device matrix as a terminal table: a column per device, headed by its
/// serial and model (each cell one bounded line, whatever the device called itself).
fn matrix(report: &LabReport) -> String {
    let fixed = |a: &str, b: &str, c: &str| vec![a.to_owned(), b.to_owned(), c.to_owned()];
    let mut serials = fixed("criterion", "dimension", "weight");
    serials.extend(report.devices.iter().map(LabDevice::name));
    let mut models = fixed("", "", "");
    models.extend(
        report
            .devices
            .iter()
            .map(|d| d.model.clone().unwrap_or_else(|| d.server.clone())),
    );
    let mut rows = vec![serials, models];
    for row in &report.rows {
        let mut cells = fixed(&row.criterion_id, &row.dimension, &row.weight);
        cells.extend((0..report.devices.len()).map(|i| row.shown(i)));
        rows.push(cells);
    }
    let mut verdicts = fixed("device verdict", "", "");
    // A pass with warnings, or an audit that could not measure, is marked; said in full below.
    verdicts.extend(report.devices.iter().map(|d| {
        match d.outcome.as_deref() {
            Some(said) => said
                .split(" (")
                .next()
                .unwrap_or(said)
                .replace("pass with warnings", "pass ⚠"),
            None => d.verdict.as_str().to_owned(),
        }
    }));
    rows.push(verdicts);
    let mut text: String = crate::text::columns(&rows)
        .iter()
        .map(|line| format!("  {line}"))
        .collect::<Vec<_>>()
        .join("\n");
    for device in report.devices.iter().filter(|d| d.outcome.is_some()) {
        let _ = write!(
            text,
            "\n  {}: {}",
            one_line(&device.name(), CELL),
            one_line(device.said(), LINE)
        );
    }
    for device in report.devices.iter().filter(|d| d.error.is_some()) {
        let _ = write!(
            text,
            "\n  {}: {}",
            one_line(&device.name(), CELL),
            one_line(device.error.as_deref().unwrap_or_default(), LINE)
        );
    }
    for server in &report.unreachable {
        let _ = write!(
            text,
            "\n  hdc server {} did not answer: {}",
            one_line(&server.server, CELL),
            one_line(&server.reason, LINE)
        );
    }
    text
}

/// `lab audit of 3 device(s): FAIL — 2 passed, 1 failed`.
fn lab_verdict(report: &LabReport) -> Line {
    // Each count names its devices: the line is read without the matrix above it. A
    // device whose audit could not measure is counted apart from the ones that failed.
    let said = |v: DeviceVerdict, unverified: bool, word: &str| {
        let named = report.named(v, unverified);
        if named.is_empty() || v == DeviceVerdict::Pass {
            format!("{} {word}", named.len())
        } else {
            format!("{} {word} ({})", named.len(), named.join(", "))
        }
    };
    let counts = [
        said(DeviceVerdict::Pass, false, "passed"),
        said(DeviceVerdict::Fail, false, "failed"),
        said(DeviceVerdict::Fail, true, "unverified"),
        said(DeviceVerdict::NotMeasured, false, "not measured"),
        said(DeviceVerdict::Error, false, "without a report"),
    ];
    Line::default()
        .plain(format!("lab audit of {} device(s): ", report.devices.len()))
        .verdict(report.verdict.as_str().to_uppercase())
        .plain(format!(" — {}", counts.join(", ")))
        .plain(
            report
                .need
                .map(|need| format!(" ({need} needed to pass, --need)"))
                .unwrap_or_default(),
        )
}

#[derive(Debug, Subcommand)]
pub(super) enum ReportCommand {
    /// Merge lab shards (the --out folders of `dwpipe audit --devices …` on several hosts) into
    /// one criterion × device matrix: lab.json, lab.md, lab-junit.xml.
    #[command(
        after_help = "Shards must have audited the same lock; a device may be in one \
shard only. Exit 0 all pass, 1 a device failed, 2 shards that do not merge, 3 none failed but \
one could not be audited."
    )]
    Merge(MergeArgs),
}

#[derive(Debug, clap::Args)]
pub(super) struct MergeArgs {
    /// The shards' folders (each holds lab.json and lab-junit.xml).
    #[arg(required = true, num_args = 1..)]
    pub(super) runs: Vec<PathBuf>,
    /// Folder for the merged matrix (default: a new .dwpipe/merge-<time>/).
    #[arg(long)]
    pub(super) out: Option<PathBuf>,
    #[command(flatten)]
    pub(super) summary: SummaryMd,
    #[command(flatten)]
    pub(super) output: Json,
}

impl Run for ReportCommand {
    fn json(&self) -> bool {
        let ReportCommand::Merge(args) = self;
        args.output.json
    }

    fn execute(self, _: &Edge) -> Result<i32, Error> {
        let ReportCommand::Merge(args) = self;
        merge(&args)
    }
}
