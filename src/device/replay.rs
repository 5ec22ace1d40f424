//! A device that answers from a recorded capture, exchange by exchange, in order.

use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use super::capture::{Capture, Exchange, Fault, Operation};
use super::error::DeviceError;
use super::info::DeviceInfo;
use super::reply::{app_result, hdc_failure};
use super::source::Source;
use super::state::state_command;
use super::{Device, ShellReply, millis};
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
    /// Whether each exchange waits its recorded delay (and each pause its length), so the
    /// replay takes the device time the recording did.
    realtime: bool,
}

#[derive(Debug, Default)]
struct State {
    next: usize,
    /// Exchanges a visit that stopped short did not ask for (the replay went on to the next
    /// visit's mark, as the device went on), and the first of them.
    skipped: usize,
    first_skipped: Option<usize>,
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
            realtime: false,
        }
    }

    /// The replay waiting each exchange's recorded delay, as the device did.
    pub(crate) fn realtime(mut self, realtime: bool) -> ReplayDevice {
        self.realtime = realtime;
        self
    }

    /// Waits `delay` in a realtime replay (a signal ends the wait).
    async fn wait(&self, delay: Duration) -> Result<(), DeviceError> {
        if !self.realtime || delay.is_zero() {
            return Ok(());
        }
        tokio::select! {
            () = tokio::time::sleep(delay) => Ok(()),
            () = self.cancel.cancelled() => Err(DeviceError::Cancelled),
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
        state.spent += millis(exchange.delay);
        match exchange.fault {
            Some(Fault::Vanish) => {
                state.vanished = true;
                Err(self.gone())
            }
            Some(Fault::Hang) => Err(DeviceError::Timeout {
                step: format!(
                    "`{}`",
                    crate::text::one_line(&operation.to_string(), crate::text::GLIMPSE)
                ),
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

    /// Whether the next exchange is the shell call `command`.
    fn holds_next(&self, command: &ShellCommand) -> bool {
        let next = self.lock().next;
        self.capture
            .exchanges
            .get(next)
            .and_then(|e| e.operation.as_ref())
            .is_some_and(|recorded| recorded.answers(&Operation::Shell(command.clone())))
    }

    /// An install or uninstall: the bundle manager's recorded answer.
    async fn app(&self, operation: &Operation, name: &'static str) -> Result<(), DeviceError> {
        let (_, exchange) = self.next(operation)?;
        self.wait(exchange.delay).await?;
        if exchange.reply.trim().is_empty() {
            return Ok(());
        }
        app_result(&exchange.reply, name).map_err(|(code, message)| DeviceError::App {
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
        if *command == state_command() && !self.holds_next(command) {
            // A capture recorded before dwpipe read the device's state: it said nothing of
            // it, and every reading is named unread.
            return Ok(ShellReply {
                output: String::new(),
                status: 0,
                duration: Duration::ZERO,
            });
        }
        let (_, exchange) = self.next(&Operation::Shell(command.clone()))?;
        self.wait(exchange.delay).await?;
        Ok(ShellReply {
            output: exchange.reply,
            status: exchange.status,
            duration: exchange.delay,
        })
    }

    async fn pull(&self, remote: &ShellValue, local: &Path) -> Result<(), DeviceError> {
        let (index, exchange) = self.next(&Operation::Pull(remote.as_str().to_owned()))?;
        self.wait(exchange.delay).await?;
        self.capture.copy_verified(index, &exchange, local)?;
        Ok(())
    }

    async fn push(&self, _local: &Path, remote: &ShellValue) -> Result<(), DeviceError> {
        let (_, exchange) = self.next(&Operation::Push(remote.as_str().to_owned()))?;
        self.wait(exchange.delay).await
    }

    async fn install(&self, hap: &Path) -> Result<(), DeviceError> {
        let name = hap
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        self.app(&Operation::Install(name), "install").await
    }

    async fn uninstall(&self, bundle: &ShellValue) -> Result<(), DeviceError> {
        self.app(
            &Operation::Uninstall(bundle.as_str().to_owned()),
            "uninstall",
        )
        .await
    }

    fn source(&self, _info: &DeviceInfo) -> Source {
        let state = self.lock();
        let capture = &self.capture;
        let first = state.first_skipped.unwrap_or(state.next);
        Source::Replay {
            capture: crate::text::doc_path(&capture.root),
            transcript_sha256: capture.transcript_sha256.clone(),
            unserved: capture.exchanges.len().saturating_sub(state.next) + state.skipped,
            first_unserved: capture.exchanges.get(first).map(|e| match &e.operation {
                Some(operation) => format!("exchange {}: {operation}", first + 1),
                None => format!("exchange {}", first + 1),
            }),
        }
    }

    async fn pause(&self, duration: Duration) -> Result<(), DeviceError> {
        // Format 1 did not record pauses: only the clock moves. From format 2 on, a pause is
        // the next exchange like any call, so a replay that would wait otherwise than the
        // recording did is a mismatch.
        if self.capture.format_version < 2 {
            self.lock().spent += duration;
        } else {
            self.next(&Operation::Sleep(millis(duration)))?;
        }
        self.wait(duration).await
    }

    fn plans(&self, plan: &super::RunPlan) -> Result<(), DeviceError> {
        self.capture.recorded_with(&plan.sessions)?;
        if let Some(visits) = &plan.visits {
            self.capture.planned(visits)?;
        }
        Ok(())
    }

    fn visit(&self, label: &str) -> Result<(), DeviceError> {
        if self.cancel.is_cancelled() {
            return Err(DeviceError::Cancelled);
        }
        let mut state = self.lock();
        if state.vanished {
            return Err(self.gone());
        }
        // A visit that stopped short on a step left its recorded exchanges unasked: the
        // device went on to the next visit, and so does the replay, counting what it skipped.
        let index = self.capture.visit_from(state.next, label)?;
        if index > state.next {
            let from = state.next;
            state.first_skipped.get_or_insert(from);
            state.skipped += index - from;
        }
        state.next = index + 1;
        Ok(())
    }

    fn clock(&self) -> Duration {
        self.lock().spent
    }
}
