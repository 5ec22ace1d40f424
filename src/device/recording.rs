//! A device that records everything another device does into a capture, so that
//! `--replay` of it later reproduces the same answers.

use std::path::Path;
use std::sync::Mutex;

use super::capture::{CaptureWriter, ExchangeDoc};
use super::error::DeviceError;
use super::info::DeviceInfo;
use super::source::Source;
use super::{Device, ShellReply};
use crate::shell::{ShellCommand, ShellValue};

/// Wraps a device and writes a capture of its calls.
#[derive(Debug)]
pub struct RecordingDevice<D> {
    inner: D,
    writer: Mutex<CaptureWriter>,
    info: Mutex<Option<DeviceInfo>>,
}

impl<D: Device> RecordingDevice<D> {
    /// The device being recorded.
    pub(crate) fn inner(&self) -> &D {
        &self.inner
    }

    /// Records `inner` into the capture folder `root`.
    pub fn new(inner: D, root: &Path) -> Result<RecordingDevice<D>, DeviceError> {
        let writer = CaptureWriter::create(root).map_err(|source| DeviceError::Io {
            context: format!("cannot create the capture folder `{}`", root.display()),
            source,
        })?;
        Ok(RecordingDevice {
            inner,
            writer: Mutex::new(writer),
            info: Mutex::new(None),
        })
    }

    /// Writes `device.yaml` and `transcript.yaml`. The identity is read first if no call did.
    pub async fn finish(&self) -> Result<DeviceInfo, DeviceError> {
        let known = self
            .info
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        let info = match known {
            Some(info) => info,
            None => self.identity().await?,
        };
        self.writer()
            .finish(&info)
            .map_err(|source| DeviceError::Io {
                context: "cannot write the capture".to_owned(),
                source,
            })?;
        Ok(info)
    }

    fn writer(&self) -> std::sync::MutexGuard<'_, CaptureWriter> {
        self.writer
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Writes a shell call's reply, or its failure, into the capture.
    fn record_shell(
        &self,
        command: &ShellCommand,
        result: Result<ShellReply, DeviceError>,
    ) -> Result<ShellReply, DeviceError> {
        if let Ok(reply) = &result {
            self.writer()
                .shell(command, &reply.output, reply.status, reply.duration)
                .map_err(io)?;
        }
        let doc = ExchangeDoc {
            shell: Some(command.as_str().to_owned()),
            ..ExchangeDoc::default()
        };
        self.record_failure(doc, result)
    }

    /// Records a failed call as the fault that replays it.
    fn record_failure<T>(
        &self,
        doc: ExchangeDoc,
        result: Result<T, DeviceError>,
    ) -> Result<T, DeviceError> {
        let fault = match &result {
            Err(DeviceError::DeviceNotFound { .. }) => Some("vanish"),
            Err(DeviceError::Timeout { .. }) => Some("hang"),
            _ => None,
        };
        if let Some(fault) = fault {
            self.writer().other(ExchangeDoc {
                fault: Some(fault.to_owned()),
                ..doc
            });
        }
        result
    }
}

fn io(source: std::io::Error) -> DeviceError {
    DeviceError::Io {
        context: "cannot record the exchange".to_owned(),
        source,
    }
}

impl<D: Device> Device for RecordingDevice<D> {
    fn serial(&self) -> &str {
        self.inner.serial()
    }

    fn source(&self, info: &DeviceInfo) -> Source {
        self.inner.source(info)
    }

    async fn pause(&self, duration: std::time::Duration) -> Result<(), DeviceError> {
        self.inner.pause(duration).await?;
        self.writer().sleep(duration);
        Ok(())
    }

    fn plans(&self, plan: &super::RunPlan) -> Result<(), DeviceError> {
        self.inner.plans(plan)?;
        self.writer().sessions(&plan.sessions);
        Ok(())
    }

    fn visit(&self, label: &str) -> Result<(), DeviceError> {
        self.inner.visit(label)?;
        self.writer().visit(label);
        Ok(())
    }

    fn clock(&self) -> std::time::Duration {
        self.inner.clock()
    }

    fn lease(&self) -> Option<super::lease::LeaseRecord> {
        self.inner.lease()
    }

    fn release_lease(&self) {
        self.inner.release_lease();
    }

    async fn confirm_lease(&self) {
        self.inner.confirm_lease().await;
    }

    async fn identity(&self) -> Result<DeviceInfo, DeviceError> {
        let info = self.inner.identity().await?;
        *self
            .info
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(info.clone());
        Ok(info)
    }

    async fn shell(&self, command: &ShellCommand) -> Result<ShellReply, DeviceError> {
        let result = self.inner.shell(command).await;
        self.record_shell(command, result)
    }

    async fn shell_limited(
        &self,
        command: &ShellCommand,
        limit: std::time::Duration,
    ) -> Result<ShellReply, DeviceError> {
        let result = self.inner.shell_limited(command, limit).await;
        self.record_shell(command, result)
    }

    async fn pull(&self, remote: &ShellValue, local: &Path) -> Result<(), DeviceError> {
        // The delay recorded is what the device's clock counted, so a replay's clock, which
        // runs on recorded delays, keeps the same time.
        let started = self.inner.clock();
        let result = self.inner.pull(remote, local).await;
        if result.is_ok() {
            self.writer()
                .pull(
                    remote.as_str(),
                    local,
                    self.inner.clock().saturating_sub(started),
                )
                .map_err(io)?;
        }
        let doc = ExchangeDoc {
            pull: Some(remote.as_str().to_owned()),
            ..ExchangeDoc::default()
        };
        self.record_failure(doc, result)
    }

    async fn push(&self, local: &Path, remote: &ShellValue) -> Result<(), DeviceError> {
        let result = self.inner.push(local, remote).await;
        let doc = ExchangeDoc {
            push: Some(remote.as_str().to_owned()),
            ..ExchangeDoc::default()
        };
        if result.is_ok() {
            self.writer().other(doc.clone());
        }
        self.record_failure(doc, result)
    }

    async fn install(&self, hap: &Path) -> Result<(), DeviceError> {
        let result = self.inner.install(hap).await;
        let doc = ExchangeDoc {
            install: hap.file_name().map(|n| n.to_string_lossy().into_owned()),
            ..ExchangeDoc::default()
        };
        if result.is_ok() {
            self.writer().other(doc.clone());
        }
        self.record_failure(doc, result)
    }

    async fn uninstall(&self, bundle: &ShellValue) -> Result<(), DeviceError> {
        let result = self.inner.uninstall(bundle).await;
        let doc = ExchangeDoc {
            uninstall: Some(bundle.as_str().to_owned()),
            ..ExchangeDoc::default()
        };
        if result.is_ok() {
            self.writer().other(doc.clone());
        }
        self.record_failure(doc, result)
    }
}
