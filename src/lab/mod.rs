//! Audits that publish: one device into its folder ([`audit_device`]: measured, gated, every
//! report form written), and the device lab: one such audit per device across hdc servers, in
//! parallel with a bound. A device that fails or vanishes ends its own audit, never the
//! others'. The matrix of the seats is a report ([`crate::report::LabReport`]).

mod ab;

use std::future::Future;
use std::path::{Path, PathBuf};

use tokio::sync::Semaphore;

use crate::audit::{self, AuditError, AuditEvent, AuditSpec, InstalledHap, Workspace};
use crate::device::{Device, DeviceError};
use crate::diagnostic::Diagnostic;
use crate::gate::{AuditorFile, Verdict};
use crate::history::Recorder;
use crate::output::{PublishError, relative_to};
use crate::pack::Frozen;
use crate::playbook::Playbooks;
use crate::process::{Cancel, join_all};
use crate::report::{AuditReport, Column, LabReport, UnreachableServer, junit_lab};
use crate::target::{Absence, HdcClient, Member, Roster};

pub(crate) use ab::{AbSeat, ab_lab, interrupted as ab_interrupted};

/// The report file each device's folder holds (the matrix links to it).
pub(crate) const DEVICE_REPORT: &str = "audit-1.json";

/// Why a device has no report.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SeatError {
    /// A signal stopped its audit.
    #[error("interrupted")]
    Interrupted,
    /// It was asked for but is not there.
    #[error(transparent)]
    Absent(Absence),
    /// Its serial cannot be addressed.
    #[error(transparent)]
    Device(DeviceError),
    /// Its audit stopped (the device vanished, timed out, …).
    #[error(transparent)]
    Audit(AuditError),
    /// Its folder could not be created.
    #[error("cannot create `{}`", path.display())]
    Folder {
        /// The folder.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// Its reports could not be written.
    #[error(transparent)]
    Publish(PublishError),
    /// Its audit could not be recorded in the history (its reports were written).
    #[error("{0}")]
    History(Diagnostic),
    /// Its A/B session stopped.
    #[error("the A/B session stopped ({restored})")]
    Ab {
        /// Why.
        #[source]
        error: crate::ab::AbError,
        /// What the device was left with.
        restored: crate::ab::Restored,
    },
}

/// One device's audit.
#[derive(Debug)]
pub(crate) struct Seat {
    /// The device.
    pub(crate) member: Member,
    /// Its report, or why it has none.
    pub(crate) outcome: Result<AuditReport, SeatError>,
}

/// What the lab is doing, for reporters.
#[derive(Debug)]
pub(crate) enum LabEvent<'a> {
    /// A device's audit began.
    Started(&'a str),
    /// A device's audit ended: its verdict, or why it has none.
    Finished(&'a str, Result<Verdict, &'a SeatError>),
}

/// How a lab audit runs.
pub(crate) struct LabPlan<'a> {
    /// The hdc client.
    pub(crate) hdc: &'a HdcClient,
    /// The frozen pack.
    pub(crate) frozen: &'a Frozen,
    /// The lock's path, for the reports' back-references.
    pub(crate) lock: &'a Path,
    /// The playbooks.
    pub(crate) playbooks: &'a Playbooks,
    /// Runs per probe (overrides the pack).
    pub(crate) runs: Option<u32>,
    /// The verified HAPs to install on each device before it is audited (path, record).
    pub(crate) haps: &'a [(PathBuf, InstalledHap)],
    /// The history every device's audit is recorded in.
    pub(crate) history: Option<&'a Recorder>,
    /// The workspace whose build is audited, when a delivery knows it.
    pub(crate) workspace: Option<&'a Workspace>,
}

/// Installs the verified HAPs on a device (`install -r`, judged by hdc's text), so that the
/// audit measures the build that was verified.
pub(crate) async fn install_haps(
    device: &impl Device,
    haps: &[(PathBuf, InstalledHap)],
) -> Result<(), DeviceError> {
    for (path, _) in haps {
        device.install(path).await?;
    }
    Ok(())
}

/// Audits every member of the roster into `<out>/<folder>/`, at most `roster.jobs` at once;
/// seats come back in the members' order, then the absent devices.
pub(crate) async fn audit_lab(
    plan: &LabPlan<'_>,
    roster: &Roster,
    out: &Path,
    cancel: &Cancel,
    events: &dyn Fn(LabEvent<'_>),
) -> Vec<Seat> {
    let job = |member| one(plan, member, out, cancel);
    each_member(roster, job, |report| report.verdict, events)
        .await
        .into_iter()
        .map(|(member, outcome)| Seat { member, outcome })
        .collect()
}

/// Runs `job` on every member of the roster, at most `roster.jobs` at once, telling `events`
/// when each starts and ends (with `verdict` of what it gave); outcomes come back in the
/// members' order, then the absent devices'.
pub(crate) async fn each_member<'r, T, F: Future<Output = Result<T, SeatError>>>(
    roster: &'r Roster,
    job: impl Fn(&'r Member) -> F,
    verdict: impl Fn(&T) -> Verdict,
    events: &dyn Fn(LabEvent<'_>),
) -> Vec<(Member, Result<T, SeatError>)> {
    let limit = Semaphore::new(roster.jobs.max(1));
    let jobs = roster.members.iter().map(|member| {
        let (limit, job, verdict) = (&limit, &job, &verdict);
        async move {
            let _permit = limit.acquire().await;
            events(LabEvent::Started(&member.serial));
            let outcome = job(member).await;
            events(LabEvent::Finished(
                &member.serial,
                outcome.as_ref().map(verdict),
            ));
            (member.clone(), outcome)
        }
    });
    let mut seats = join_all(jobs.collect()).await;
    seats.extend(
        roster
            .absent
            .iter()
            .map(|(member, why)| (member.clone(), Err(SeatError::Absent(why.clone())))),
    );
    seats
}

/// What one device's audit is held against and where it reports.
pub(crate) struct AuditJob<'a> {
    /// The frozen pack.
    pub(crate) frozen: &'a Frozen,
    /// The lock's path, for the report's back-reference (made relative to the report).
    pub(crate) lock: &'a Path,
    /// The playbooks.
    pub(crate) playbooks: &'a Playbooks,
    /// Runs per probe (overrides the pack).
    pub(crate) runs: Option<u32>,
    /// An outside auditor's report for what no probe measures.
    pub(crate) auditor: Option<&'a AuditorFile>,
    /// A source that does not hold up (unserved replay exchanges) fails the audit.
    pub(crate) strict: bool,
    /// The HAPs installed before the audit, to record in it.
    pub(crate) installed: &'a [InstalledHap],
    /// The history to record the audit in (and to draw its trends from).
    pub(crate) history: Option<&'a Recorder>,
    /// The workspace whose build is audited, when a delivery knows it.
    pub(crate) workspace: Option<&'a Workspace>,
}

/// Why one device's audit has no report.
#[derive(Debug, thiserror::Error)]
pub(crate) enum AuditDeviceError {
    /// The audit stopped (a signal, the device, the evidence folder).
    #[error(transparent)]
    Audit(#[from] AuditError),
    /// The reports could not be written.
    #[error(transparent)]
    Publish(#[from] PublishError),
    /// The history could not be read or written (the reports may have been).
    #[error("{0}")]
    History(Diagnostic),
}

/// One device, audited into `out`: measured, gated, and published in every form; returns the
/// report and the files written.
pub(crate) async fn audit_device(
    device: &impl Device,
    job: &AuditJob<'_>,
    out: &Path,
    progress: &dyn Fn(AuditEvent),
) -> Result<(AuditReport, Vec<PathBuf>), AuditDeviceError> {
    let pack = &job.frozen.pack;
    let spec = AuditSpec {
        runs: job.runs,
        auditor: job.auditor,
        strict: job.strict,
        installed: job.installed,
        ..AuditSpec::new(pack, job.playbooks)
    };
    let run = audit::run(device, &spec, out, progress).await?;
    let mut audited = run.gate(pack);
    let lock = Some(relative_to(job.lock, out));
    let mut report = AuditReport::of_audit(&job.frozen.lock.sha256, &audited, lock);
    report.workspace = job.workspace.cloned();
    if let Some(history) = job.history {
        audited.figures.trends = history.trends(&report).map_err(AuditDeviceError::History)?;
    }
    let written = report.publish(pack, &audited.figures, out)?;
    // Recorded once its files are there: the history names the report it read back.
    if let Some(history) = job.history {
        history
            .record(&written[0], None)
            .map_err(AuditDeviceError::History)?;
    }
    Ok((report, written))
}

/// One device of the lab: into its own folder under the lab's `out`.
async fn one(
    plan: &LabPlan<'_>,
    member: &Member,
    out: &Path,
    cancel: &Cancel,
) -> Result<AuditReport, SeatError> {
    let out = &out.join(member.folder());
    let device = plan
        .hdc
        .server(member.server.clone(), cancel)
        .device(&member.serial)
        .map_err(|e| SeatError::Device(e.into()))?;
    std::fs::create_dir_all(out).map_err(|source| SeatError::Folder {
        path: out.to_owned(),
        source,
    })?;
    install_haps(&device, plan.haps)
        .await
        .map_err(SeatError::Device)?;
    // A lab shows devices starting and ending, not each device's sessions.
    let progress = |_: AuditEvent| {};
    let job = AuditJob {
        frozen: plan.frozen,
        lock: plan.lock,
        playbooks: plan.playbooks,
        runs: plan.runs,
        auditor: None,
        strict: false,
        installed: &plan
            .haps
            .iter()
            .map(|(_, hap)| hap.clone())
            .collect::<Vec<_>>(),
        history: plan.history,
        workspace: plan.workspace,
    };
    match audit_device(&device, &job, out, &progress).await {
        Ok((report, _)) => Ok(report),
        Err(AuditDeviceError::Audit(e)) if e.is_interrupted() => Err(SeatError::Interrupted),
        Err(AuditDeviceError::Audit(e)) => Err(SeatError::Audit(e)),
        Err(AuditDeviceError::Publish(e)) => Err(SeatError::Publish(e)),
        Err(AuditDeviceError::History(e)) => Err(SeatError::History(e)),
    }
}

/// Whether a signal stopped any seat (the lab then ends interrupted).
pub(crate) fn interrupted(seats: &[Seat]) -> bool {
    seats
        .iter()
        .any(|s| matches!(s.outcome, Err(SeatError::Interrupted)))
}

/// The matrix of the seats, its JUnit XML (one suite per seat, and one per hdc server that did
/// not answer), written into `out`; returns the matrix and the files written.
pub(crate) fn publish(
    frozen: &Frozen,
    seats: &[Seat],
    unreachable: &[(String, DeviceError)],
    out: &Path,
) -> Result<(LabReport, Vec<PathBuf>), PublishError> {
    let errors: Vec<String> = seats
        .iter()
        .map(|s| match &s.outcome {
            Ok(_) => String::new(),
            Err(e) => crate::diagnostic::chain(e),
        })
        .collect();
    let columns: Vec<Column<'_>> = seats
        .iter()
        .zip(&errors)
        .map(|(seat, error)| Column {
            serial: &seat.member.serial,
            server: seat.member.server_name(),
            outcome: match &seat.outcome {
                Ok(report) => Ok((report, format!("{}/{DEVICE_REPORT}", seat.member.folder()))),
                Err(_) => Err(error.clone()),
            },
        })
        .collect();
    let servers = UnreachableServer::all(unreachable);
    let mut suites: Vec<(String, Result<&AuditReport, &str>)> = columns
        .iter()
        .map(|c| {
            (
                c.serial.to_owned(),
                c.outcome.as_ref().map(|(r, _)| *r).map_err(String::as_str),
            )
        })
        .collect();
    suites.extend(
        servers
            .iter()
            .map(|s| (format!("hdc server {}", s.server), Err(s.reason.as_str()))),
    );
    let matrix = LabReport::new(frozen, &columns, servers.clone());
    let written = matrix.publish(&junit_lab(&suites), out)?;
    Ok((matrix, written))
}
