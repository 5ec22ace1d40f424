//! The device lab's A/B: every device compared with itself (the baseline and the candidate
//! alternated on it, as `dwpipe audit --baseline-hap … --device` does), each into its own
//! folder, at most `--jobs` at once; a device that fails or vanishes ends its own session,
//! never the others'.

use std::path::Path;

use crate::ab::{self, AbPlan, AbSession};
use crate::gate::Verdict;
use crate::process::Cancel;
use crate::target::{HdcClient, Member, Roster};

use super::{LabEvent, SeatError, each_member};

/// One device's A/B session.
#[derive(Debug)]
pub(crate) struct AbSeat {
    /// The device.
    pub(crate) member: Member,
    /// Its session, or why it has none.
    pub(crate) outcome: Result<AbSession, SeatError>,
}

/// Runs the A/B session on every member of the roster, into `<out>/<folder>/`.
pub(crate) async fn ab_lab(
    hdc: &HdcClient,
    plan: &AbPlan<'_>,
    roster: &Roster,
    out: &Path,
    cancel: &Cancel,
    events: &dyn Fn(LabEvent<'_>),
) -> Vec<AbSeat> {
    let job = |member| one(hdc, plan, member, out, cancel);
    let verdict = |session: &AbSession| {
        if session.record.passed() {
            Verdict::Pass
        } else {
            Verdict::Fail
        }
    };
    each_member(roster, job, verdict, events)
        .await
        .into_iter()
        .map(|(member, outcome)| AbSeat { member, outcome })
        .collect()
}

async fn one(
    hdc: &HdcClient,
    plan: &AbPlan<'_>,
    member: &Member,
    out: &Path,
    cancel: &Cancel,
) -> Result<AbSession, SeatError> {
    let device = hdc
        .server(member.server.clone(), cancel)
        .device(&member.serial)
        .map_err(|e| SeatError::Device(e.into()))?;
    let out = out.join(member.folder());
    std::fs::create_dir_all(&out).map_err(|source| SeatError::Folder {
        path: out.clone(),
        source,
    })?;
    let sheltered = device.sheltered();
    let (result, restored) = ab::run(&device, Some(&sheltered), plan, &out, &|_| {}).await;
    result.map_err(|error| {
        if error.is_interrupted() {
            SeatError::Interrupted
        } else {
            SeatError::Ab { error, restored }
        }
    })
}

/// Whether a signal stopped any session.
pub(crate) fn interrupted(seats: &[AbSeat]) -> bool {
    seats
        .iter()
        .any(|s| matches!(s.outcome, Err(SeatError::Interrupted)))
}
