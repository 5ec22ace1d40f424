//! The one path from an [`AuditPlan`] to an [`Outcome`], by the shape of the target and the
//! plan's mode: one device's audit, its A/B session, or a lab of either.

use crate::device::DeviceError;
use crate::preflight;
use crate::process::Cancel;
use crate::target::{HdcClient, Opened};

use super::error::SessionError;
use super::events::{Event, Reporter};
use super::outcome::Outcome;
use super::plan::{AuditPlan, Task};
use super::{ab, ab_lab, lab, one};

/// Opens `plan`'s target once every check passed (the hdc client, the pack's playbooks, the
/// one device's identity), runs the session on it, and lets the device go (a recording is
/// written out whatever the session's end).
pub(crate) async fn open_and_run(
    plan: &AuditPlan<'_>,
    hdc: &HdcClient,
    cancel: &Cancel,
    reporter: &dyn Reporter,
) -> Result<Outcome, SessionError> {
    let checks = preflight::playbooks(&plan.frozen.pack, &plan.playbooks);
    let (_, opened) = preflight::open(checks, &plan.target, hdc, cancel).await;
    let opened = opened?;
    let outcome = run(plan, &opened, cancel, reporter).await;
    if let Opened::One(device) = &opened {
        device.finish().await.map_err(SessionError::Unfinished)?;
    }
    outcome
}

/// Runs `plan` against the target preflight opened: installs the verified build, measures,
/// gates and publishes every report, records the history; returns the outcome or why there
/// is none. A lab's devices are each their own seat: one that fails ends its own audit only.
pub(crate) async fn run(
    plan: &AuditPlan<'_>,
    opened: &Opened,
    cancel: &Cancel,
    reporter: &dyn Reporter,
) -> Result<Outcome, SessionError> {
    // A history that cannot be used is refused before the device is touched: a history
    // failure never costs an audit.
    if let Some(history) = &plan.history {
        history.prepare()?;
    }
    let mut outcome = measure(plan, opened, cancel, reporter).await?;
    super::attest::attest_audits(plan, &mut outcome, reporter);
    Ok(outcome)
}

/// The session itself, by the target's shape and the plan's mode.
async fn measure(
    plan: &AuditPlan<'_>,
    opened: &Opened,
    cancel: &Cancel,
    reporter: &dyn Reporter,
) -> Result<Outcome, SessionError> {
    match (opened, &plan.task) {
        (Opened::One(device), Task::Audit { .. }) => {
            one::install_haps(device, &plan.build.haps)
                .await
                .map_err(|e| match e {
                    DeviceError::Cancelled => SessionError::Interrupted(plan.out.clone()),
                    e => SessionError::Install(e),
                })?;
            let progress = |event| reporter.event(Event::Audit(event));
            let (report, written) = one::audit(device, plan, &plan.out, &progress).await?;
            Ok(Outcome::Audit {
                report: Box::new(report),
                written,
            })
        }
        (Opened::One(device), Task::Ab(builds)) => {
            let sheltered = device.sheltered();
            let (result, restored) = ab::run(
                device,
                sheltered.as_ref(),
                plan,
                builds,
                &plan.out,
                reporter,
            )
            .await;
            match result {
                Ok(session) => Ok(Outcome::Ab(Box::new(session))),
                Err(e) if e.is_interrupted() => Err(SessionError::Interrupted(plan.out.clone())),
                Err(error) => Err(SessionError::Ab {
                    error,
                    restored,
                    out: plan.out.clone(),
                }),
            }
        }
        (Opened::Lab(roster), mode) => {
            reporter.event(Event::Unreachable(&roster.unreachable));
            if let Some(capped) = roster.capped {
                reporter.event(Event::Capped(capped));
            }
            if roster.members.is_empty() && roster.absent.is_empty() {
                return Err(SessionError::NoDevices);
            }
            let outcome = match mode {
                Task::Audit { .. } => lab::audit_lab(plan, roster, cancel, reporter).await?,
                Task::Ab(builds) => ab_lab::ab_lab(plan, builds, roster, cancel, reporter).await?,
            };
            Ok(outcome)
        }
    }
}
