//! The device lab's A/B: every device compared with itself (the baseline and the candidate
//! alternated on it, as the one-device session does), each into its own folder, at most
//! `--jobs` at once; a device that fails or vanishes ends its own session, never the others'.
//! The sessions become the criterion × device matrix `ab-lab.json`.

use std::path::PathBuf;

use crate::diagnostic::chain;
use crate::gate::Verdict;
use crate::process::Cancel;
use crate::report::publish;
use crate::schema::{AbColumn, AbLabReport, Arm, BuiltArm, UnreachableServer};
use crate::target::{Member, Roster};

use super::ab::{self, AbSession};
use super::builds::Builds;
use super::lab::each_member;
use super::{AuditPlan, Event, Outcome, Reporter, SessionError};

/// Runs the A/B session on every member of the roster, into `<out>/<folder>/`, and publishes
/// the matrix.
pub(super) async fn ab_lab(
    plan: &AuditPlan<'_>,
    builds: &Builds,
    roster: &Roster,
    cancel: &Cancel,
    reporter: &dyn Reporter,
) -> Result<Outcome, SessionError> {
    let job = |member: Member, out: PathBuf| async move {
        let device = roster
            .device(&member, cancel)
            .map_err(SessionError::Refused)?;
        let sheltered = device.sheltered();
        let on_device = OnDevice {
            serial: &member.serial,
            reporter,
        };
        let (result, restored) =
            ab::run(&device, Some(&sheltered), plan, builds, &out, &on_device).await;
        result.map_err(|error| {
            if error.is_interrupted() {
                SessionError::Interrupted(out.clone())
            } else {
                SessionError::Ab {
                    error,
                    restored,
                    out: out.clone(),
                }
            }
        })
    };
    // Said as the session came out: a candidate that passes the pack and regressed is
    // `regressed`, not a failure of the pack.
    let verdict = |session: &AbSession| {
        let record = &session.record;
        format!(
            "{} against the baseline; the candidate {} the pack",
            record.regression,
            if record.absolute == Verdict::Pass {
                "passes"
            } else {
                "fails"
            }
        )
    };
    let seats = each_member(roster, &plan.out, job, verdict, reporter).await?;
    let columns = seats
        .iter()
        .map(|seat| {
            let (serial, folder) = (&seat.member.serial, seat.member.folder());
            match &seat.outcome {
                Ok(session) => AbColumn::of(serial, &folder, &session.record, &session.comparison),
                Err(e) => AbColumn::stopped(serial, &folder, chain(e)),
            }
        })
        .collect();
    let built = [Arm::Baseline, Arm::Candidate]
        .into_iter()
        .map(|arm| {
            let build = builds.of(arm);
            BuiltArm {
                arm,
                hap: build.hap.path.clone(),
                sha256: build.hap.sha256.clone(),
                version: build.version.clone(),
            }
        })
        .collect();
    let report = AbLabReport::new(columns, UnreachableServer::all(&roster.unreachable), built);
    let written = publish::ab_lab(&report, &plan.out)?;
    Ok(Outcome::AbLab {
        report,
        seats,
        written,
    })
}

/// A lab's device's session as its reporter sees it: each visit counted on the device's own
/// bar; the rest of its events are the device's own business (its line comes when it ends).
struct OnDevice<'a> {
    serial: &'a str,
    reporter: &'a dyn Reporter,
}

impl Reporter for OnDevice<'_> {
    fn event(&self, event: Event<'_>) {
        if let Event::Audit(event) = event {
            self.reporter.event(Event::DeviceAudit(self.serial, event));
        }
    }
}
