//! The device lab: one audit per device across hdc servers, in parallel with a bound, each
//! into its own folder; a device that fails or vanishes ends its own seat, never the others'.
//! The seats become the criterion × device matrix (`lab.json` and its forms).

use std::future::Future;
use std::path::{Path, PathBuf};

use tokio::sync::Semaphore;

use crate::device::DeviceError;
use crate::diagnostic::chain;
use crate::output::PublishError;
use crate::pack::Frozen;
use crate::process::{Cancel, join_all};
use crate::report::{junit_lab, publish};
use crate::schema::AuditReport;
use crate::schema::{Column, LabReport, UnreachableServer, files};
use crate::target::{Absence, Member, Roster};

use super::seat::{Seat, SeatError};
use super::{AuditPlan, Event, Outcome, Reporter, SessionError};

/// Runs `job` on every member of the roster into `<out>/<folder>/`, at most `roster.jobs` at
/// once, telling the reporter when each starts and ends (with `said`, what it gave in words);
/// seats come back in the members' order, then the absent devices'. A signal that stopped
/// any seat stops the lab.
pub(super) async fn each_member<T, F>(
    roster: &Roster,
    out: &Path,
    job: impl Fn(Member, PathBuf) -> F,
    said: impl Fn(&T) -> String,
    reporter: &dyn Reporter,
) -> Result<Vec<Seat<T>>, SessionError>
where
    F: Future<Output = Result<T, SessionError>>,
{
    let limit = Semaphore::new(roster.jobs.max(1));
    let jobs = roster.members.iter().map(|member| {
        let (limit, job, said) = (&limit, &job, &said);
        async move {
            let _permit = limit.acquire().await;
            reporter.event(Event::DeviceStarted(&member.serial));
            let folder = out.join(member.folder());
            // Made level by level under the lab's folder, a link planted at any refused.
            let outcome = match crate::lock_file::own_folder(out, &folder) {
                Ok(()) => job(member.clone(), folder)
                    .await
                    .map_err(SeatError::Stopped),
                Err(source) => Err(SeatError::Folder {
                    path: folder,
                    source,
                }),
            };
            let ended = outcome.as_ref().map(said);
            reporter.event(Event::DeviceEnded(
                &member.serial,
                ended.as_ref().map(String::as_str).map_err(|e| *e),
            ));
            Seat {
                member: member.clone(),
                outcome,
            }
        }
    });
    let mut seats = join_all(jobs.collect()).await;
    if seats.iter().any(|s| {
        matches!(
            s.outcome,
            Err(SeatError::Stopped(SessionError::Interrupted(_)))
        )
    }) {
        return Err(SessionError::Interrupted(out.to_owned()));
    }
    seats.extend(roster.absent.iter().map(|(member, why)| Seat {
        member: member.clone(),
        outcome: Err(SeatError::Absent(why.clone())),
    }));
    Ok(seats)
}

/// Audits every member of the roster (the verified build installed first) and publishes the
/// matrix.
pub(super) async fn audit_lab(
    plan: &AuditPlan<'_>,
    roster: &Roster,
    cancel: &Cancel,
    reporter: &dyn Reporter,
) -> Result<Outcome, SessionError> {
    let job = |member: Member, folder: PathBuf| async move {
        let device = roster
            .device(&member, cancel)
            .map_err(SessionError::Refused)?;
        super::one::install_haps(&device, &plan.build.haps)
            .await
            .map_err(SessionError::Install)?;
        let progress = |event| reporter.event(Event::DeviceAudit(&member.serial, event));
        let (report, _) = super::one::audit(&device, plan, &folder, &progress).await?;
        Ok(report)
    };
    let said = |r: &AuditReport| r.outcome().unwrap_or_else(|| r.verdict.as_str().to_owned());
    let seats = each_member(roster, &plan.out, job, said, reporter).await?;
    let (report, written) = publish_matrix(
        &plan.frozen,
        &seats,
        (&roster.unreachable, plan.target.need()),
        &plan.out,
    )?;
    Ok(Outcome::Lab {
        report,
        seats,
        written,
    })
}

/// The matrix of the seats and its JUnit XML (one suite per seat, and one per hdc server that
/// did not answer), written into `out`; returns the matrix and the files written.
fn publish_matrix(
    frozen: &Frozen,
    seats: &[Seat],
    (unreachable, need): (&[(String, DeviceError)], Option<u32>),
    out: &Path,
) -> Result<(LabReport, Vec<PathBuf>), PublishError> {
    let errors: Vec<String> = seats
        .iter()
        .map(|s| match &s.outcome {
            Ok(_) => String::new(),
            Err(e) => chain(e),
        })
        .collect();
    let columns: Vec<Column<'_>> = seats
        .iter()
        .zip(&errors)
        .map(|(seat, error)| Column {
            serial: &seat.member.serial,
            server: seat.member.server_name(),
            // Listed, but not one dwpipe can drive: nothing measured, hdc's word for why.
            absent: matches!(
                seat.outcome,
                Err(SeatError::Absent(Absence::NotConnected(_)))
            ),
            outcome: match &seat.outcome {
                Ok(report) => Ok((
                    report,
                    format!("{}/{}", seat.member.folder(), files::DEVICE_AUDIT),
                )),
                Err(_) => Err(error.clone()),
            },
        })
        .collect();
    let servers = UnreachableServer::all(unreachable);
    let matrix = LabReport::new(frozen, &columns, servers.clone(), need);
    let written = publish::lab(&matrix, &junit_lab(&columns, &servers), out)?;
    Ok((matrix, written))
}
