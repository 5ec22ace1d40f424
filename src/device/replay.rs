//! A device that answers from a recorded capture, exchange by exchange, in order.

use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use super::capture::{Capture, Exchange, Fault, Operation};
use super::error::DeviceError;
use super::info::DeviceInfo;
use super::reply::{app_result, hdc_failure};
use super::source::Source;
use super::{Device, ShellReply};
use crate::process::Cancel;
use crate::shell::{ShellCommand, ShellValue};

/// Replays a capture. Calls must come in the recorded order; anything else is a mismatch
/// naming what was expected and what came.
#[derive(Debug)]
pub struct ReplayDevice {
    capture: Capture,
    state: Mutex<State>,
    /// A replay has no child to see a signal: every call looks here first.
    cancel: Cancel,
}

#[derive(Debug, Default)]
struct State {
    next: usize,
    vanished: bool,
    /// The recorded delays of the exchanges served, and the pauses asked for.
    spent: Duration,
}

impl ReplayDevice {
    /// Loads a capture folder.
    pub fn open(root: &Path) -> Result<ReplayDevice, DeviceError> {
        Ok(ReplayDevice::new(Capture::load(root)?))
    }

    /// Replays an already loaded capture.
    pub(crate) fn new(capture: Capture) -> ReplayDevice {
        ReplayDevice {
            capture,
            state: Mutex::new(State::default()),
            cancel: Cancel::new(),
        }
    }

    /// The replay, stopping at its next call once `cancel` fires, as a live device would.
    pub(crate) fn cancellable(mut self, cancel: Cancel) -> ReplayDevice {
        self.cancel = cancel;
        self
    }

    /// How many exchanges have been served.
    #[cfg(test)]
    pub(crate) fn served(&self) -> usize {
        self.lock().next
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic elsewhere cannot leave the position half-updated: it is one integer.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn gone(&self) -> DeviceError {
        DeviceError::DeviceNotFound {
            serial: self.capture.info.serial.clone(),
            message: "the recorded device vanished".to_owned(),
        }
    }

    /// Takes the next exchange for `operation`, applying its scripted fault.
    fn next(&self, operation: &Operation) -> Result<(usize, Exchange), DeviceError> {
        if self.cancel.is_cancelled() {
            return Err(DeviceError::Cancelled);
        }
        let mut state = self.lock();
        if state.vanished {
            return Err(self.gone());
        }
        let index = state.next;
        let exchange = self.capture.exchange(index, operation)?.clone();
        state.next += 1;
        state.spent +=
            Duration::from_millis(u64::try_from(exchange.delay.as_millis()).unwrap_or(u64::MAX));
        match exchange.fault {
            Some(Fault::Vanish) => {
                state.vanished = true;
                Err(self.gone())
            }
            Some(Fault::Hang) => Err(DeviceError::Timeout {
                command: operation.to_string(),
                after: Duration::ZERO,
            }),
            Some(Fault::HdcReply) => Err(match hdc_failure(&exchange.reply, "") {
                Some(_) => DeviceError::HdcFailed {
                    code: None,
                    message: exchange.reply.trim().to_owned(),
                },
                None => DeviceError::NoStatus {
                    command: operation.to_string(),
                    reply: exchange.reply.trim().to_owned(),
                },
            }),
            None => Ok((index, exchange)),
        }
    }

    fn app(&self, operation: &Operation, name: &'static str) -> Result<(), DeviceError> {
        let (_, exchange) = self.next(operation)?;
        if exchange.reply.trim().is_empty() {
            return Ok(());
        }
        app_result(&exchange.reply).map_err(|(code, message)| DeviceError::App {
            operation: name,
            code,
            message,
        })
    }
}

impl Device for ReplayDevice {
    fn serial(&self) -> &str {
        &self.capture.info.serial
    }

    async fn identity(&self) -> Result<DeviceInfo, DeviceError> {
        if self.lock().vanished {
            return Err(self.gone());
        }
        Ok(self.capture.info.clone())
    }

    async fn shell(&self, command: &ShellCommand) -> Result<ShellReply, DeviceError> {
        let (_, exchange) = self.next(&Operation::Shell(command.clone()))?;
        Ok(ShellReply {
            output: exchange.reply,
            status: exchange.status,
            duration: exchange.delay,
        })
    }

    async fn pull(&self, remote: &ShellValue, local: &Path) -> Result<(), DeviceError> {
        let (index, exchange) = self.next(&Operation::Pull(remote.as_str().to_owned()))?;
        self.capture.copy_verified(index, &exchange, local)?;
        Ok(())
    }

    async fn push(&self, _local: &Path, remote: &ShellValue) -> Result<(), DeviceError> {
        self.next(&Operation::Push(remote.as_str().to_owned()))
            .map(drop)
    }

    async fn install(&self, hap: &Path) -> Result<(), DeviceError> {
        let name = hap
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        self.app(&Operation::Install(name), "install")
    }

    async fn uninstall(&self, bundle: &ShellValue) -> Result<(), DeviceError> {
        self.app(
            &Operation::Uninstall(bundle.as_str().to_owned()),
            "uninstall",
        )
    }

    fn source(&self, _info: &DeviceInfo) -> Source {
        let next = self.lock().next;
        let capture = &self.capture;
        Source::Replay {
            capture: capture.root.to_string_lossy().into_owned(),
            transcript_sha256: capture.transcript_sha256.clone(),
            unserved: capture.exchanges.len().saturating_sub(next),
            first_unserved: capture.exchanges.get(next).map(|e| match &e.operation {
                Some(operation) => format!("exchange {}: {operation}", next + 1),
                None => format!("exchange {}", next + 1),
            }),
        }
    }

    async fn pause(&self, duration: Duration) {
        // The recording already waited; replaying the wait would only slow the replay, so
        // only the clock moves.
        self.lock().spent += duration;
    }

    fn clock(&self) -> Duration {
        self.lock().spent
    }
}
