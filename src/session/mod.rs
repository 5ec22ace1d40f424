//! The one path from an [`AuditPlan`] to an [`Outcome`]: every audit shape — one device or a
//! capture, a lab of devices, a same-device A/B, an A/B over a lab — runs through [`run`]
//! against a target preflight opened. The engine publishes every report itself and tells a
//! [`Reporter`] what it does; it never prints. Commands (`audit`, the delivery's audit stage)
//! build the plan, open the target, call [`run`] and show the outcome.

mod ab;
mod ab_lab;
mod lab;
mod merge;
mod one;
mod outcome;
mod plan;

#[cfg(test)]
mod tests;

use std::path::PathBuf;

use crate::audit::{AuditError, AuditEvent};
use crate::device::DeviceError;
use crate::gate::Verdict;
use crate::history::HistoryError;
use crate::output::PublishError;
use crate::process::Cancel;
use crate::schema::{Arm, Restored};
use crate::target::{Capped, Opened};

pub(crate) use ab::{AbError, AbSession};
pub(crate) use lab::SeatError;
pub(crate) use merge::merge;
pub(crate) use outcome::Outcome;
pub(crate) use plan::{AuditPlan, BuildUnderTest, Mode, PlanError, Request};

/// What a session is doing, for whoever shows progress.
#[derive(Debug)]
pub(crate) enum Event<'a> {
    /// The audit of the one device (an A/B session's arm included) went on.
    Audit(AuditEvent),
    /// A lab's device's audit (or A/B session) went on.
    DeviceAudit(&'a str, AuditEvent),
    /// hdc servers of the lab did not answer (their devices are in no column).
    Unreachable(&'a [(String, DeviceError)]),
    /// The lab runs fewer devices at once than asked: the open-file limit allows no more.
    Capped(Capped),
    /// A lab's device began.
    DeviceStarted(&'a str),
    /// A lab's device ended: its verdict, or why it has none.
    DeviceEnded(&'a str, Result<Verdict, &'a SeatError>),
    /// An A/B session switches the device to an arm's build.
    Installing(Arm),
    /// Criteria were still unknown: each arm goes on to this many runs.
    Escalated {
        /// Runs per arm from now on.
        runs: u32,
        /// The criteria still unknown.
        unknown: &'a [String],
    },
}

/// Receives a session's events (the terminal's progress, a test's log, a delivery's stage).
pub(crate) trait Reporter {
    /// One event.
    fn event(&self, event: Event<'_>);
}

/// Why a session has no outcome.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SessionError {
    /// A signal stopped it; the evidence so far is kept.
    #[error("interrupted; the evidence so far is under {}", .0.display())]
    Interrupted(PathBuf),
    /// The target cannot serve this audit (a capture recorded otherwise, a serial that cannot
    /// be addressed): nothing was asked of it.
    #[error(transparent)]
    Refused(DeviceError),
    /// The verified build could not be installed.
    #[error("the verified build could not be installed")]
    Install(#[source] DeviceError),
    /// The device failed mid-audit; the evidence gathered so far is kept.
    #[error("the device failed during run {run}; the evidence gathered so far is in {}", evidence.display())]
    Device {
        /// The run in progress.
        run: u32,
        /// The evidence folder.
        evidence: PathBuf,
        /// Why.
        #[source]
        source: DeviceError,
    },
    /// The audit could not keep its evidence, or the pack cannot be measured as written.
    #[error(transparent)]
    Audit(AuditError),
    /// An A/B session stopped.
    #[error("{error}; {restored}; the evidence gathered so far is under {}", out.display())]
    Ab {
        /// Why.
        #[source]
        error: AbError,
        /// What the device was left with.
        restored: Restored,
        /// The session's folder.
        out: PathBuf,
    },
    /// Reports could not be written.
    #[error(transparent)]
    Publish(#[from] PublishError),
    /// The history cannot be used: refused before anything was measured or installed.
    #[error(transparent)]
    History(#[from] HistoryError),
    /// A lab found no device to audit.
    #[error("no connected device on the hdc servers")]
    NoDevices,
}

impl SessionError {
    /// The stable code.
    pub(crate) fn code(&self) -> &str {
        match self {
            SessionError::Interrupted(_) => "E_INTERRUPTED",
            SessionError::Refused(e) | SessionError::Install(e) => e.code(),
            SessionError::Device { source, .. } => source.code(),
            SessionError::Audit(e) => e.code(),
            SessionError::Ab { error, .. } => error.code(),
            SessionError::Publish(PublishError::Write(_)) => "E_WRITE",
            SessionError::Publish(PublishError::Render(_)) => "E_RENDER",
            SessionError::History(e) => e.code(),
            SessionError::NoDevices => "E_LAB_NO_DEVICES",
        }
    }

    /// The one device's audit, stopped, told with where it stopped.
    fn of_audit(error: AuditError, out: &std::path::Path) -> SessionError {
        match error {
            AuditError::Device {
                source: DeviceError::Cancelled,
                ..
            } => SessionError::Interrupted(out.to_owned()),
            // Nothing was asked of the device: the capture itself is the error.
            AuditError::Refused(source) => SessionError::Refused(source),
            AuditError::Device { run, source } => SessionError::Device {
                run,
                evidence: out.join("evidence"),
                source,
            },
            other => SessionError::Audit(other),
        }
    }
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
    match (opened, &plan.mode) {
        (Opened::One(device), Mode::Audit { .. }) => {
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
        (Opened::One(device), Mode::Ab(builds)) => {
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
                Mode::Audit { .. } => lab::audit_lab(plan, roster, cancel, reporter).await?,
                Mode::Ab(builds) => ab_lab::ab_lab(plan, builds, roster, cancel, reporter).await?,
            };
            Ok(outcome)
        }
    }
}
