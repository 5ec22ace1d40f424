//! The device lab: one audit per device across hdc servers, in parallel with a bound, each
//! into its own folder with its own evidence and verdicts. A device that fails or vanishes
//! ends its own audit, never the others'. The result is a criterion × device matrix;
//! [`merge`] joins the matrices of shards run on other hosts.

pub mod merge;

use std::collections::BTreeSet;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::task::Poll;

use serde::{Deserialize, Serialize};
use tokio::sync::Semaphore;

use crate::audit::{self, AuditEvent};
use crate::device::{CallTimeouts, DeviceError, Hdc, Server};
use crate::gate::Verdict;
use crate::output::relative_to;
use crate::pack::Frozen;
use crate::playbook::Playbooks;
use crate::process::Cancel;
use crate::report::AuditReport;

/// A device of the lab.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    /// Its connect key.
    pub serial: String,
    /// The hdc server it is on (`None`: the local one).
    pub server: Option<Server>,
}

impl Member {
    /// Its folder under the lab's output: the serial with anything but `[A-Za-z0-9._-]` as `_`
    /// (`192.168.1.5:5555` → `192.168.1.5_5555`).
    pub fn folder(&self) -> String {
        self.serial
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    }
}

/// One device's audit.
#[derive(Debug)]
pub struct Seat {
    /// The device.
    pub member: Member,
    /// Its report, or why it has none (unreachable, vanished, interrupted).
    pub outcome: Result<AuditReport, String>,
}

/// What the lab is doing, for reporters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LabEvent {
    /// A device's audit began.
    Started(String),
    /// A device's audit reported progress.
    Audit(String, AuditEvent),
    /// A device's audit ended: `pass`, `fail` or the error.
    Finished(String, String),
}

/// How a lab audit runs.
pub struct LabPlan<'a> {
    /// The hdc client.
    pub hdc: &'a Path,
    /// The frozen pack.
    pub frozen: &'a Frozen,
    /// The lock's path, for the reports' back-references.
    pub lock: &'a Path,
    /// The playbooks.
    pub playbooks: &'a Playbooks,
    /// Runs per probe (overrides the pack).
    pub runs: Option<u32>,
    /// At most this many devices at once.
    pub jobs: usize,
    /// Host-side limits of each hdc call.
    pub timeouts: CallTimeouts,
}

/// Audits every member into `<out>/<folder>/`, at most `plan.jobs` at once; seats come back in
/// the members' order.
pub async fn audit_lab(
    plan: &LabPlan<'_>,
    members: &[Member],
    out: &Path,
    cancel: &Cancel,
    events: &dyn Fn(LabEvent),
) -> Vec<Seat> {
    let limit = Semaphore::new(plan.jobs.max(1));
    let jobs = members.iter().map(|member| {
        let limit = &limit;
        async move {
            let _permit = limit.acquire().await;
            events(LabEvent::Started(member.serial.clone()));
            let hdc = Hdc::new(
                plan.hdc.to_owned(),
                member.server.clone(),
                plan.timeouts,
                cancel.clone(),
            );
            let outcome = one(plan, &hdc, member, &out.join(member.folder()), events).await;
            let word = match &outcome {
                Ok(report) if report.verdict == Verdict::Pass => "pass".to_owned(),
                Ok(_) => "fail".to_owned(),
                Err(error) => error.clone(),
            };
            events(LabEvent::Finished(member.serial.clone(), word));
            Seat {
                member: member.clone(),
                outcome,
            }
        }
    });
    join_all(jobs.collect()).await
}

/// Drives every future on this task until all are done; outputs in input order. (Device work
/// is waiting on processes, so one task is enough, and borrowing beats `'static` copies.)
async fn join_all<F: Future>(futures: Vec<F>) -> Vec<F::Output> {
    let mut futures: Vec<Pin<Box<F>>> = futures.into_iter().map(Box::pin).collect();
    let mut outputs: Vec<Option<F::Output>> = futures.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (future, output) in futures.iter_mut().zip(outputs.iter_mut()) {
            if output.is_none() {
                match future.as_mut().poll(cx) {
                    Poll::Ready(value) => *output = Some(value),
                    Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    })
    .await;
    outputs.into_iter().flatten().collect()
}

/// One device: measure, gate, publish into its folder.
async fn one(
    plan: &LabPlan<'_>,
    hdc: &Hdc,
    member: &Member,
    out: &Path,
    events: &dyn Fn(LabEvent),
) -> Result<AuditReport, String> {
    let device = hdc
        .device(&member.serial)
        .map_err(|e| DeviceError::from(e).to_string())?;
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create `{}`: {e}", out.display()))?;
    let progress = |event| events(LabEvent::Audit(member.serial.clone(), event));
    let pack = &plan.frozen.pack;
    let run = audit::run(&device, pack, plan.playbooks, plan.runs, out, &progress)
        .await
        .map_err(|e| match e {
            audit::AuditError::Device {
                source: DeviceError::Cancelled,
                ..
            } => INTERRUPTED.to_owned(),
            other => crate::diagnostic::chain(&other),
        })?;
    let audited = run.gate(pack, &[]);
    let lock = Some(relative_to(plan.lock, out));
    let report = AuditReport::of_audit(&plan.frozen.lock.sha256, &audited, lock);
    report
        .publish(pack, &audited.figures, out)
        .map_err(|e| e.to_string())?;
    Ok(report)
}

/// A seat's error when Ctrl-C stopped its audit.
pub const INTERRUPTED: &str = "interrupted";

/// `lab.json`: the criterion × device matrix.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct LabReport {
    /// Schema version.
    pub format_version: u32,
    /// The lock every device was held against.
    pub pack_sha256: String,
    /// `pass` when every device passed; `fail` when one failed; `incomplete` when none
    /// failed but one could not be audited.
    pub verdict: String,
    /// The devices, in the lab's order.
    pub devices: Vec<LabDevice>,
    /// One row per criterion, its results in the devices' order.
    pub rows: Vec<LabRow>,
}

/// A device's column.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct LabDevice {
    /// Its connect key.
    pub serial: String,
    /// Its hdc server (`local` for the local one).
    pub server: String,
    /// `pass`, `fail` or `error`.
    pub verdict: String,
    /// Why it has no report.
    pub error: Option<String>,
    /// Its report, relative to the lab's folder.
    pub report: Option<String>,
}

/// A criterion's row.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct LabRow {
    /// The criterion.
    pub criterion_id: String,
    /// Its dimension.
    pub dimension: String,
    /// must or should.
    pub weight: String,
    /// `pass`, `fail`, `unverified`, or `-` for a device without a report.
    pub results: Vec<String>,
}

impl LabReport {
    /// The matrix of these seats; `report_name` is each device's report file name.
    pub fn new(frozen: &Frozen, seats: &[Seat], report_name: &str) -> LabReport {
        let devices: Vec<LabDevice> = seats
            .iter()
            .map(|seat| LabDevice {
                serial: seat.member.serial.clone(),
                server: seat
                    .member
                    .server
                    .as_ref()
                    .map_or_else(|| "local".to_owned(), ToString::to_string),
                verdict: match &seat.outcome {
                    Ok(report) if report.verdict == Verdict::Pass => "pass",
                    Ok(_) => "fail",
                    Err(_) => "error",
                }
                .to_owned(),
                error: seat.outcome.as_ref().err().cloned(),
                report: seat
                    .outcome
                    .is_ok()
                    .then(|| format!("{}/{report_name}", seat.member.folder())),
            })
            .collect();
        let rows = frozen
            .pack
            .criteria
            .iter()
            .map(|criterion| LabRow {
                criterion_id: criterion.id.clone(),
                dimension: criterion.dimension.as_str().to_owned(),
                weight: criterion.weight.as_str().to_owned(),
                results: seats
                    .iter()
                    .map(|seat| match &seat.outcome {
                        Ok(report) => report
                            .checks
                            .iter()
                            .find(|c| c.check.criterion_id == criterion.id)
                            .map_or_else(
                                || "-".to_owned(),
                                |c| crate::pipeline::word(c.check.result),
                            ),
                        Err(_) => "-".to_owned(),
                    })
                    .collect(),
            })
            .collect();
        let verdict = verdict_of(&devices);
        LabReport {
            format_version: crate::format::LAB,
            pack_sha256: frozen.lock.sha256.clone(),
            verdict,
            devices,
            rows,
        }
    }
}

/// The lab's verdict from its devices'.
fn verdict_of(devices: &[LabDevice]) -> String {
    let verdicts: BTreeSet<&str> = devices.iter().map(|d| d.verdict.as_str()).collect();
    if verdicts.contains("fail") {
        "fail"
    } else if verdicts.contains("error") || devices.is_empty() {
        "incomplete"
    } else {
        "pass"
    }
    .to_owned()
}

/// The lab's JUnit XML: one suite per seat.
pub fn junit(seats: &[Seat]) -> String {
    let suites: Vec<(String, Result<&AuditReport, &str>)> = seats
        .iter()
        .map(|s| {
            (
                s.member.serial.clone(),
                s.outcome.as_ref().map_err(String::as_str),
            )
        })
        .collect();
    crate::report::junit_lab(&suites)
}

/// Writes the lab's files into `out`: `lab.md`, `lab-junit.xml`, `lab.html`, then `lab.json`
/// (last, so a `lab.json` on disk always has its siblings).
pub fn publish(report: &LabReport, junit: &str, out: &Path) -> Result<Vec<PathBuf>, String> {
    let json = serde_json::to_string_pretty(report).map_err(|e| e.to_string())? + "\n";
    let markdown = crate::template::render("lab.md", report).map_err(|e| e.to_string())?;
    let page = html(report);
    let mut written = Vec::new();
    for (name, text) in [
        ("lab.md", markdown.as_str()),
        ("lab-junit.xml", junit),
        ("lab.html", page.as_str()),
        ("lab.json", json.as_str()),
    ] {
        let path = out.join(name);
        crate::output::write_atomic(&path, text.as_bytes()).map_err(|e| e.to_string())?;
        written.push(path);
    }
    Ok(written)
}

/// `lab.html`: the matrix as one self-contained page, each device linking to its own report.
pub fn html(report: &LabReport) -> String {
    use crate::report::html::{STYLE, escape};
    let mut page = format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>dwpipe lab: {verdict}</title><style>{STYLE}</style></head><body><h1>Lab audit: <span class=\"{verdict}\">{verdict}</span></h1><p><small>pack sha256:{} · {} device(s)</small></p><table><tr><th>criterion</th><th>dimension</th><th>weight</th>",
        escape(&report.pack_sha256),
        report.devices.len(),
        verdict = escape(&report.verdict),
    );
    for device in &report.devices {
        let name = escape(&device.serial);
        match &device.report {
            Some(json) => {
                let html = json
                    .strip_suffix("audit-1.json")
                    .map_or_else(|| json.clone(), |dir| format!("{dir}report.html"));
                page.push_str(&format!(
                    "<th><a href=\"{}\">{name}</a></th>",
                    escape(&html)
                ));
            }
            None => page.push_str(&format!("<th>{name}</th>")),
        }
    }
    page.push_str("</tr>");
    for row in &report.rows {
        page.push_str(&format!(
            "<tr><td>{}</td><td>{}</td><td>{}</td>",
            escape(&row.criterion_id),
            escape(&row.dimension),
            escape(&row.weight)
        ));
        for result in &row.results {
            let class = if result == "-" {
                "error"
            } else {
                result.as_str()
            };
            page.push_str(&format!(
                "<td class=\"{}\">{}</td>",
                escape(class),
                escape(result)
            ));
        }
        page.push_str("</tr>");
    }
    page.push_str("<tr><th colspan=\"3\">device verdict</th>");
    for device in &report.devices {
        let verdict = escape(&device.verdict);
        let title = device
            .error
            .as_deref()
            .map_or_else(String::new, |e| format!(" title=\"{}\"", escape(e)));
        page.push_str(&format!(
            "<td class=\"{verdict}\"{title}><b>{verdict}</b></td>"
        ));
    }
    page.push_str("</tr></table>");
    for device in report.devices.iter().filter(|d| d.error.is_some()) {
        page.push_str(&format!(
            "<p><b>{}</b>: {}</p>",
            escape(&device.serial),
            escape(device.error.as_deref().unwrap_or_default())
        ));
    }
    page.push_str("</body></html>\n");
    page
}
