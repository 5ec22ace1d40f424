//! A planned delivery run through its door: the target opened (the preflight's checks first),
//! the run made or picked up, then every stage (`deliver`) or a stop hook's gate, and the
//! device let go. Nothing here decides what to run: the plan did.

use crate::device::DeviceError;
use crate::preflight::{self, NotStarted};
use crate::process::Cancel;
use crate::target::{Absence, Opened};

use super::gate::Gated;
use super::plan::{DeliverPlan, Door, Run};
use super::run_dir::{RunDir, RunDirError};
use super::{Delivery, DeliveryError, Event};
use crate::schema::RunTarget;

/// Why a planned delivery ended without its report.
#[derive(Debug, thiserror::Error)]
pub(crate) enum StartError {
    /// What it needs is missing, or its target could not be opened: nothing was started.
    #[error(transparent)]
    Preflight(#[from] NotStarted),
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

/// A planned delivery, run: the target opened once every check passed (its device let go
/// until its audit: the agent or the build may take long), the door's rule held (a gate
/// audits one device; a delivery every device it was given, or none), the run made or picked
/// up, every stage or the gate's round run, and the device let go.
pub(crate) async fn open_and_run(
    plan: DeliverPlan,
    cancel: &Cancel,
    events: &dyn Fn(Event<'_>),
) -> Result<Gated, StartError> {
    let DeliverPlan {
        config,
        frozen,
        playbooks,
        target,
        run,
        history,
        checks,
        door,
        strict,
        mut claim,
        hdc,
    } = plan;
    let (_, opened) = preflight::open(checks, &target, &hdc, cancel).await;
    let opened = opened?;
    opened.release_leases();
    let (waive_review, round) = match (door, &opened) {
        (Door::Gate { .. }, Opened::Lab(_)) => return Err(StartError::NotOneDevice),
        (Door::Gate { round }, Opened::One(_)) => (false, Some(round)),
        (Door::Deliver { waive_review }, opened) => {
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
            (waive_review, None)
        }
    };
    let resume = matches!(run, Run::Resumed(_));
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
    let ran = match round {
        Some(round) => delivery.gate(&opened, round, cancel).await,
        None => delivery.run(&opened, cancel).await.map(Gated::delivered),
    };
    if let Opened::One(device) = &opened {
        device.finish().await?;
    }
    Ok(ran?)
}
