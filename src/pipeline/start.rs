//! A planned delivery's two doors: the target opened (the preflight's checks first), the run
//! made or picked up, then every stage (`deliver`) or a stop hook's gate, and the device let
//! go. Nothing here decides what to run: the plan did.

use std::future::Future;
use std::pin::Pin;

use crate::device::DeviceError;
use crate::diagnostic::Diagnostic;
use crate::preflight::{self, Refusal};
use crate::process::Cancel;
use crate::schema::DeliverReport;
use crate::target::{Absence, Opened};

use super::gate::Gated;
use super::plan::{DeliverPlan, Mode, Run};
use super::records::RunTarget;
use super::run_dir::{RunDir, RunDirError};
use super::{Delivery, DeliveryError, Event};

/// Why a planned delivery ended without its report.
#[derive(Debug, thiserror::Error)]
pub(crate) enum StartError {
    /// What it needs is missing (preflight): nothing was started.
    #[error("{} missing; nothing was started", .0.len())]
    Missing(Vec<Diagnostic>),
    /// The target could not be opened, or its device failed.
    #[error(transparent)]
    Device(#[from] DeviceError),
    /// The run's folder could not be made.
    #[error(transparent)]
    RunDir(#[from] RunDirError),
    /// A device a delivery was given is not there.
    #[error("device {serial}")]
    Absent {
        /// Its connect key.
        serial: String,
        /// Why.
        #[source]
        why: Absence,
    },
    /// No hdc server has a connected device.
    #[error("no connected device on the hdc servers")]
    NoDevices,
    /// A stop hook's gate audits one device or one capture.
    #[error("a stop hook audits one device or one capture, not a lab")]
    NotOneDevice,
    /// The delivery's own files failed.
    #[error(transparent)]
    Delivery(#[from] DeliveryError),
}

impl From<Refusal> for StartError {
    fn from(refusal: Refusal) -> StartError {
        match refusal {
            Refusal::Missing(problems) => StartError::Missing(problems),
            Refusal::Device(e) => StartError::Device(e),
        }
    }
}

/// What a door runs once the delivery is ready: every stage, or a gate's round.
type Door<'a, T> = Pin<Box<dyn Future<Output = Result<T, DeliveryError>> + 'a>>;

/// `dwpipe deliver`: every stage of `plan` (or what is left of a resumed run) to its report.
pub(crate) async fn deliver(
    plan: DeliverPlan,
    cancel: &Cancel,
    events: &dyn Fn(Event<'_>),
) -> Result<DeliverReport, StartError> {
    start(plan, cancel, events, |delivery, opened, cancel| {
        Box::pin(delivery.run(opened, cancel))
    })
    .await
}

/// A stop hook's gate on `plan`'s one device or capture: its round, as the plan's mode says.
pub(crate) async fn gate(
    plan: DeliverPlan,
    cancel: &Cancel,
    events: &dyn Fn(Event<'_>),
) -> Result<Gated, StartError> {
    let round = match plan.mode {
        Mode::Gate { round, .. } => round,
        Mode::Deliver { .. } => 0,
    };
    start(plan, cancel, events, move |delivery, opened, cancel| {
        Box::pin(delivery.gate(opened, round, cancel))
    })
    .await
}

/// Opens the target once every check passed (its device let go until its audit: the agent or
/// the build may take long), holds a lab to the door's rule, makes or picks up the run, runs
/// the door, and lets the device go.
async fn start<T>(
    plan: DeliverPlan,
    cancel: &Cancel,
    events: &dyn Fn(Event<'_>),
    door: impl for<'a> FnOnce(&'a Delivery<'a>, &'a Opened, &'a Cancel) -> Door<'a, T>,
) -> Result<T, StartError> {
    let DeliverPlan {
        config,
        frozen,
        playbooks,
        target,
        run,
        history,
        checks,
        mode,
        strict,
        mut claim,
        hdc,
    } = plan;
    let (_, opened) = preflight::open(checks, &target, &hdc, cancel).await;
    let opened = opened?;
    opened.release_leases();
    let (resume, waive_review) = match (&mode, &opened) {
        (Mode::Gate { .. }, Opened::Lab(_)) => return Err(StartError::NotOneDevice),
        (Mode::Gate { .. }, Opened::One(_)) => (false, false),
        (
            Mode::Deliver {
                resume,
                waive_review,
            },
            opened,
        ) => {
            // A delivery audits every device it was given, or none.
            if let Opened::Lab(roster) = opened {
                if let Some((member, why)) = roster.absent.first() {
                    return Err(StartError::Absent {
                        serial: member.serial.clone(),
                        why: why.clone(),
                    });
                }
                if roster.members.is_empty() {
                    return Err(StartError::NoDevices);
                }
            }
            (resume.is_some(), *waive_review)
        }
    };
    let run_dir = match run {
        Run::Resumed(dir) => dir,
        Run::New { base } => {
            RunDir::create(&base, &frozen, RunTarget::of(&target), &config.workspace)?
        }
    };
    claim.name(&run_dir.id());
    let delivery = Delivery {
        frozen: &frozen,
        config: &config,
        playbooks: &playbooks,
        run_dir: &run_dir,
        target: &target,
        history: &history,
        resume,
        waive_review,
        strict,
        events,
    };
    let ran = door(&delivery, &opened, cancel).await;
    if let Opened::One(device) = &opened {
        device.finish().await?;
    }
    Ok(ran?)
}
