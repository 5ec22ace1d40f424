//! One device of any kind, chosen at run time (a live device, a replay, a recording), so
//! that callers pick once and the rest of the code stays generic over [`Device`].

use std::path::Path;
use std::time::Duration;

use super::error::DeviceError;
use super::hdc::HdcDevice;
use super::info::DeviceInfo;
use super::recording::RecordingDevice;
use super::replay::ReplayDevice;
use super::source::Source;
use super::{Device, ShellReply};
use crate::shell::{ShellCommand, ShellValue};

/// A device of any kind.
#[derive(Debug)]
pub(crate) enum AnyDevice {
    /// A live device behind hdc.
    Hdc(HdcDevice),
    /// A recorded capture.
    Replay(ReplayDevice),
    /// A live device being recorded.
    Recording(RecordingDevice<HdcDevice>),
}

macro_rules! each {
    ($self:ident, $device:ident => $call:expr) => {
        match $self {
            AnyDevice::Hdc($device) => $call,
            AnyDevice::Replay($device) => $call,
            AnyDevice::Recording($device) => $call,
        }
    };
}

impl AnyDevice {
    /// Finishes a recording (writes the capture); nothing for the other kinds.
    pub(crate) async fn finish(&self) -> Result<(), DeviceError> {
        if let AnyDevice::Recording(recording) = self {
            recording.finish().await?;
        }
        Ok(())
    }
}

impl AnyDevice {
    /// The live device behind this one, on a signal a first SIGINT does not fire, for what
    /// must be done after an error or a signal; none for a replay.
    pub(crate) fn sheltered(&self) -> Option<HdcDevice> {
        match self {
            AnyDevice::Hdc(device) => Some(device.sheltered()),
            AnyDevice::Recording(recording) => Some(recording.inner().sheltered()),
            AnyDevice::Replay(_) => None,
        }
    }
}

impl Device for AnyDevice {
    fn serial(&self) -> &str {
        each!(self, d => d.serial())
    }

    async fn identity(&self) -> Result<DeviceInfo, DeviceError> {
        each!(self, d => d.identity().await)
    }

    async fn shell(&self, command: &ShellCommand) -> Result<ShellReply, DeviceError> {
        each!(self, d => d.shell(command).await)
    }

    async fn shell_limited(
        &self,
        command: &ShellCommand,
        limit: Duration,
    ) -> Result<ShellReply, DeviceError> {
        each!(self, d => d.shell_limited(command, limit).await)
    }

    async fn pull(&self, remote: &ShellValue, local: &Path) -> Result<(), DeviceError> {
        each!(self, d => d.pull(remote, local).await)
    }

    async fn push(&self, local: &Path, remote: &ShellValue) -> Result<(), DeviceError> {
        each!(self, d => d.push(local, remote).await)
    }

    async fn install(&self, hap: &Path) -> Result<(), DeviceError> {
        each!(self, d => d.install(hap).await)
    }

    async fn uninstall(&self, bundle: &ShellValue) -> Result<(), DeviceError> {
        each!(self, d => d.uninstall(bundle).await)
    }

    fn source(&self, info: &DeviceInfo) -> Source {
        each!(self, d => d.source(info))
    }

    async fn pause(&self, duration: Duration) -> Result<(), DeviceError> {
        each!(self, d => d.pause(duration).await)
    }

    fn plans(&self, plan: &super::RunPlan) -> Result<(), DeviceError> {
        each!(self, d => d.plans(plan))
    }

    fn visit(&self, label: &str) -> Result<(), DeviceError> {
        each!(self, d => d.visit(label))
    }

    fn clock(&self) -> Duration {
        each!(self, d => d.clock())
    }

    fn lease(&self) -> Option<super::lease::LeaseRecord> {
        each!(self, d => d.lease())
    }

    fn release_lease(&self) {
        each!(self, d => d.release_lease());
    }

    async fn confirm_lease(&self) {
        each!(self, d => d.confirm_lease().await);
    }
}
