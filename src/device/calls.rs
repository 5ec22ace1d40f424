//! What dwpipe asks of a device (the [`Device`] trait: shell, pull, push, install, its
//! lease), what a shell call returns, and the device time the calls spent.

use crate::device::DeviceError;
use crate::device::DeviceInfo;
use crate::device::Source;
use crate::shell::{ShellCommand, ShellValue};
use std::collections::BTreeMap;
use std::future::Future;
use std::path::Path;
use std::time::Duration;

/// What an audit is about to run on a device, said before its first call.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunPlan {
    /// Each session's name and the SHA-256 of its playbook file.
    pub sessions: BTreeMap<String, String>,
    /// Every visit it will make, in order (`1 cold-start`, `1 flow open-note`), when known in
    /// advance; an A/B session adds runs as it goes, and tells its visits one by one.
    pub visits: Option<Vec<String>>,
}

/// What a shell command answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShellReply {
    /// Its output (device stdout and stderr, merged by hdc), `\r` removed.
    pub output: String,
    /// Its exit status on the device, from dwpipe's sentinel.
    pub status: i32,
    /// How long the call held the device.
    pub duration: Duration,
}

/// A device dwpipe can drive.
pub trait Device: Send + Sync {
    /// The connect key.
    fn serial(&self) -> &str;

    /// Who the device is: model, software, API level, density.
    fn identity(&self) -> impl Future<Output = Result<DeviceInfo, DeviceError>> + Send;

    /// Runs one shell command and reports its output and device exit status.
    fn shell(
        &self,
        command: &ShellCommand,
    ) -> impl Future<Output = Result<ShellReply, DeviceError>> + Send;

    /// Runs one shell command that may take longer than the per-call limit (a test suite),
    /// within `limit` instead. A replay answers as recorded.
    fn shell_limited(
        &self,
        command: &ShellCommand,
        limit: Duration,
    ) -> impl Future<Output = Result<ShellReply, DeviceError>> + Send {
        let _ = limit;
        self.shell(command)
    }

    /// Copies a device file to `local`.
    fn pull(
        &self,
        remote: &ShellValue,
        local: &Path,
    ) -> impl Future<Output = Result<(), DeviceError>> + Send;

    /// Copies `local` to the device.
    fn push(
        &self,
        local: &Path,
        remote: &ShellValue,
    ) -> impl Future<Output = Result<(), DeviceError>> + Send;

    /// Installs (replacing) a HAP.
    fn install(&self, hap: &Path) -> impl Future<Output = Result<(), DeviceError>> + Send;

    /// Uninstalls a bundle.
    fn uninstall(
        &self,
        bundle: &ShellValue,
    ) -> impl Future<Output = Result<(), DeviceError>> + Send;

    /// Where the readings come from, `info` being the device's identity: the device itself,
    /// unless it is a replay.
    fn source(&self, info: &DeviceInfo) -> Source {
        Source::live(info)
    }

    /// Lets time pass on the device (a live device waits; a replay takes the recorded pause,
    /// and waits only with `--realtime`). A recording writes it into the capture.
    fn pause(&self, duration: Duration) -> impl Future<Output = Result<(), DeviceError>> + Send;

    /// What an audit is about to run on it: a replay refuses a capture recorded with other
    /// sessions or another run plan before its first call, a recording notes the sessions in
    /// its capture, a live device has nothing to check.
    fn plans(&self, plan: &RunPlan) -> Result<(), DeviceError> {
        let _ = plan;
        Ok(())
    }

    /// A visit of the audit begins (`2 cold-start`): a recording marks it in its capture, a
    /// replay takes the mark the recording made (another one is a mismatch).
    fn visit(&self, label: &str) -> Result<(), DeviceError> {
        let _ = label;
        Ok(())
    }

    /// The device time spent so far: every call's duration (as a capture records it, to the
    /// millisecond) and every pause. A flow's waits count on this clock, so a replay, whose
    /// clock runs on the recorded delays, takes the same number of polls the device took.
    fn clock(&self) -> Duration;

    /// The device's lease as an audit records it (`None`: not leased, a replay).
    fn lease(&self) -> Option<super::lease::LeaseRecord> {
        None
    }

    /// Lets the device's lease go until its next call (a delivery, while its agent works).
    fn release_lease(&self) {}

    /// Asks, now, whether the device's lease is still held (before an audit's record is
    /// made): a lease found lost is recorded as lost in [`Device::lease`].
    fn confirm_lease(&self) -> impl Future<Output = ()> + Send {
        async {}
    }
}

/// Device time, in whole milliseconds (what a capture records of a call), shared by the
/// clones of a device.
#[derive(Clone, Debug, Default)]
pub(crate) struct Spent(std::sync::Arc<std::sync::atomic::AtomicU64>);

impl Spent {
    /// Adds `duration`, truncated to the millisecond as a capture writes it.
    pub(crate) fn add(&self, duration: Duration) {
        let ms = whole_millis(duration);
        self.0.fetch_add(ms, std::sync::atomic::Ordering::Relaxed);
    }

    /// The total.
    pub(crate) fn total(&self) -> Duration {
        Duration::from_millis(self.0.load(std::sync::atomic::Ordering::Relaxed))
    }
}

/// `duration` in whole milliseconds, as a capture writes it.
pub(super) fn whole_millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// `duration` truncated to the millisecond: what a replay's clock counts of a recorded delay.
pub(crate) fn millis(duration: Duration) -> Duration {
    Duration::from_millis(whole_millis(duration))
}
