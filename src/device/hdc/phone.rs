//! One device behind an hdc server: its shell, file and app calls, each judged by what hdc printed
//! (never by its exit code), its lease confirmed before each.

use super::super::error::DeviceError;
use super::super::info::{DeviceInfo, identity_command, parse_identity};
use super::super::lease::{LeaseRecord, LeaseSlot};
use super::super::reply::{
    HdcFailure, SENTINEL, app_result, hdc_failure, split_sentinel, transfer_size,
};
use super::super::{Device, ShellReply, Spent};
use super::{ESTABLISHING_RETRY, ESTABLISHING_WAIT, Hdc, Raw, is_establishing};
use crate::shell::{ShellCommand, ShellValue};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// A device behind an hdc server.
#[derive(Clone, Debug)]
pub struct HdcDevice {
    pub(super) hdc: Hdc,
    pub(super) serial: ShellValue,
    pub(super) spent: Spent,
    /// Its lease, shared by every handle of the device.
    pub(super) lease: Option<Arc<LeaseSlot>>,
}

impl HdcDevice {
    /// How its server lists it (`Offline`, `Unauthorized`, …), `None` when the server lists
    /// it not at all or cannot be asked: what a device hdc would not reach is.
    pub(crate) async fn listed_status(&self) -> Option<String> {
        let targets = self.hdc.list_targets().await.ok()?;
        targets
            .into_iter()
            .find(|t| t.serial == self.serial.as_str())
            .map(|t| t.status)
    }

    /// The same device on a signal that a first SIGINT or SIGTERM does not fire (see
    /// [`Cancel::sheltered`](crate::process::Cancel::sheltered)).
    pub(crate) fn sheltered(&self) -> HdcDevice {
        HdcDevice {
            hdc: Hdc {
                cancel: self.hdc.cancel.sheltered(),
                ..self.hdc.clone()
            },
            serial: self.serial.clone(),
            spent: Spent::default(),
            lease: self.lease.clone(),
        }
    }

    /// Every call to the device, its lease held first (the wait is not the device's time).
    async fn device_call(&self, args: &[&str], timeout: Duration) -> Result<Raw, DeviceError> {
        if let Some(lease) = &self.lease {
            lease.ensure(&self.hdc.cancel).await?;
        }
        let mut waited = Duration::ZERO;
        loop {
            let raw = self
                .hdc
                .call(Some(self.serial.as_str()), args, timeout)
                .await?;
            self.spent.add(raw.duration);
            // A device hdc is still shaking hands with (just plugged in, just authorized)
            // refuses the call before it runs: asked again a little later, as hdc advises.
            if !is_establishing(&raw.stdout) || waited >= ESTABLISHING_WAIT {
                return Ok(raw);
            }
            tokio::select! {
                () = tokio::time::sleep(ESTABLISHING_RETRY) => waited += ESTABLISHING_RETRY,
                () = self.hdc.cancel.cancelled() => return Err(DeviceError::Cancelled),
            }
        }
    }

    /// The error for a reply that lacks its success marker.
    fn unexpected(&self, raw: &Raw, otherwise: impl FnOnce(String) -> DeviceError) -> DeviceError {
        match hdc_failure(&raw.stdout, &raw.stderr) {
            Some(failure) => self.hdc.failure(failure, self.serial.as_str()),
            None => otherwise(first_line(&raw.stdout)),
        }
    }

    /// Runs one shell command within `limit`; its output and device exit status.
    async fn shell_within(
        &self,
        command: &ShellCommand,
        limit: Duration,
    ) -> Result<ShellReply, DeviceError> {
        let line = format!("{command}; echo {SENTINEL}$?");
        let raw = self.device_call(&["shell", &line], limit).await?;

        if raw.stderr.contains("Connect server failed") {
            return Err(self.hdc.failure(HdcFailure::ServerUnreachable, ""));
        }
        // Only without the sentinel is a `[Fail]` line hdc's: device output may contain one.
        match split_sentinel(&raw.stdout) {
            Some((output, status)) => Ok(ShellReply {
                output,
                status,
                duration: raw.duration,
            }),
            None => Err(self.unexpected(&raw, |reply| DeviceError::NoStatus {
                command: command.to_string(),
                reply,
            })),
        }
    }
}

pub(super) fn first_line(text: &str) -> String {
    text.lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("(nothing)")
        .trim()
        .to_owned()
}

/// What hdc said, in a line: its first words on stdout, else on stderr, else that it said
/// nothing.
fn said(raw: &Raw) -> String {
    let first = |text: &str| {
        text.lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .map(|l| crate::text::one_line(l, crate::text::LINE).into_owned())
    };
    match first(&raw.stdout).or_else(|| first(&raw.stderr)) {
        Some(line) => format!("hdc said `{line}`"),
        None => "hdc said nothing and ended".to_owned(),
    }
}

impl Device for HdcDevice {
    fn serial(&self) -> &str {
        self.serial.as_str()
    }

    async fn identity(&self) -> Result<DeviceInfo, DeviceError> {
        let reply = self
            .shell_within(&identity_command(), self.hdc.timeouts.query)
            .await
            .map_err(|e| match e {
                // Its command is a dozen reads long: the step is what names it.
                DeviceError::Timeout { after, .. } => DeviceError::Timeout {
                    step: format!(
                        "reading device {}'s identity (`param get`, `hidumper` through `hdc shell`)",
                        self.serial.as_str()
                    ),
                    after,
                },
                other => other,
            })?;
        Ok(DeviceInfo {
            server: Some(self.hdc.server_name()),
            ..parse_identity(self.serial.as_str(), &reply.output)
        })
    }

    async fn shell(&self, command: &ShellCommand) -> Result<ShellReply, DeviceError> {
        self.shell_within(command, self.hdc.timeouts.shell).await
    }

    async fn shell_limited(
        &self,
        command: &ShellCommand,
        limit: Duration,
    ) -> Result<ShellReply, DeviceError> {
        self.shell_within(command, limit).await
    }

    async fn pull(&self, remote: &ShellValue, local: &Path) -> Result<(), DeviceError> {
        let local_text = crate::shell::host_path("local file", local)?;
        let raw = self
            .device_call(
                &["file", "recv", remote.as_str(), &local_text],
                self.hdc.timeouts.transfer,
            )
            .await?;
        if transfer_size(&raw.stdout).is_some() && local.is_file() {
            return Ok(());
        }
        // A transfer cut mid-way (the phone gone, the cable pulled) says little or nothing:
        // what hdc said, and what had arrived, are the whole story.
        let arrived = match std::fs::metadata(local) {
            Ok(meta) if meta.is_file() => format!("{} byte(s) of it had arrived", meta.len()),
            _ => "nothing of it had arrived".to_owned(),
        };
        Err(self.unexpected(&raw, |_| DeviceError::Transfer {
            path: remote.as_str().to_owned(),
            message: format!("{}; {arrived}", said(&raw)),
        }))
    }

    async fn push(&self, local: &Path, remote: &ShellValue) -> Result<(), DeviceError> {
        let local_text = crate::shell::host_path("local file", local)?;
        let raw = self
            .device_call(
                &["file", "send", &local_text, remote.as_str()],
                self.hdc.timeouts.transfer,
            )
            .await?;
        if transfer_size(&raw.stdout).is_some() {
            return Ok(());
        }
        let size = std::fs::metadata(local).map_or(0, |m| m.len());
        Err(self.unexpected(&raw, |_| DeviceError::Transfer {
            path: remote.as_str().to_owned(),
            message: format!(
                "{}; how much of its {size} byte(s) arrived is unknown (hdc never said it finished)",
                said(&raw)
            ),
        }))
    }

    async fn install(&self, hap: &Path) -> Result<(), DeviceError> {
        let hap_text = crate::shell::host_path("HAP", hap)?;
        let raw = self
            .device_call(&["install", "-r", &hap_text], self.hdc.timeouts.app)
            .await?;
        app_outcome(self, &raw, "install")
    }

    async fn uninstall(&self, bundle: &ShellValue) -> Result<(), DeviceError> {
        let raw = self
            .device_call(&["uninstall", bundle.as_str()], self.hdc.timeouts.app)
            .await?;
        app_outcome(self, &raw, "uninstall")
    }

    async fn pause(&self, duration: Duration) -> Result<(), DeviceError> {
        tokio::time::sleep(duration).await;
        self.spent.add(duration);
        Ok(())
    }

    fn clock(&self) -> Duration {
        self.spent.total()
    }

    fn lease(&self) -> Option<LeaseRecord> {
        self.lease.as_ref().and_then(|lease| lease.record())
    }

    fn release_lease(&self) {
        if let Some(lease) = &self.lease {
            lease.release();
        }
    }

    async fn confirm_lease(&self) {
        if let Some(lease) = &self.lease {
            lease.confirm().await;
        }
    }
}

pub(super) fn app_outcome(
    device: &HdcDevice,
    raw: &Raw,
    operation: &'static str,
) -> Result<(), DeviceError> {
    if let Some(
        failure @ (HdcFailure::ServerUnreachable
        | HdcFailure::ServerBroken(_)
        | HdcFailure::Unauthorized(_)
        | HdcFailure::DeviceNotFound(_)),
    ) = hdc_failure(&raw.stdout, &raw.stderr)
    {
        return Err(device.hdc.failure(failure, device.serial.as_str()));
    }
    app_result(&raw.stdout, operation).map_err(|(code, message)| DeviceError::App {
        operation,
        code,
        message,
    })
}
