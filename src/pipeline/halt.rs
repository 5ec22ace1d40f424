//! How a stage records what it decided: one ledger line (decision metadata only), one event;
//! and how it stops the delivery (`Halt`), so stages end early with `?`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use crate::process::Cancel;

use super::ledger::{Entry, Input, Outcome, Stage};
use super::{Delivery, DeliveryError, Event, Note};
use crate::schema::TerminalReason;

/// Why the loop stops before a verdict: a terminal reason (already recorded), or a failure of
/// the run itself.
#[derive(Debug)]
pub(super) enum Halt {
    /// The delivery ends with this reason.
    Stop {
        reason: TerminalReason,
        detail: Option<String>,
    },
    /// The run itself failed (its files cannot be written).
    Failed(DeliveryError),
}

impl<E: Into<DeliveryError>> From<E> for Halt {
    fn from(error: E) -> Halt {
        Halt::Failed(error.into())
    }
}

/// What a stage returns: its outcome, or why the delivery stops.
pub(super) type Staged<T> = Result<T, Halt>;

/// A running stage: what its ledger line and events need.
pub(super) struct Clock {
    pub(super) stage: Stage,
    pub(super) round: u32,
    started: Instant,
    /// The stage's tool left processes running (they were stopped): its line says so.
    leaked: AtomicBool,
}

impl Clock {
    /// Notes that the stage's tool left processes running.
    pub(super) fn leaked(&self) {
        self.leaked.store(true, Ordering::Relaxed);
    }
}

impl Delivery<'_> {
    /// Starts a stage.
    pub(super) fn begin(&self, stage: Stage, round: u32) -> Clock {
        (self.events)(Event::Stage { stage, round });
        Clock {
            stage,
            round,
            started: Instant::now(),
            leaked: AtomicBool::new(false),
        }
    }

    /// Stops a stage that a signal reached while no child was running (a stage whose children
    /// run sees the signal through them).
    pub(super) fn unless_cancelled(
        &self,
        clock: &Clock,
        cancel: &Cancel,
        inputs: &[(Input, &str)],
    ) -> Staged<()> {
        if cancel.is_cancelled() {
            return Err(self.interrupted(clock, inputs));
        }
        Ok(())
    }

    /// Ends a stage: one ledger line, one event.
    pub(super) fn end(
        &self,
        clock: &Clock,
        outcome: Outcome,
        inputs: &[(Input, &str)],
        reason: Option<String>,
        note: Note,
        output: Option<std::path::PathBuf>,
    ) -> Result<(), DeliveryError> {
        let mut entry = Entry::new(clock.stage, outcome, clock.started.elapsed());
        entry.round = Some(clock.round);
        for (input, value) in inputs {
            entry.inputs.insert(*input, (*value).to_owned());
        }
        entry.reason = reason;
        entry.leaked = clock.leaked.load(Ordering::Relaxed);
        self.run_dir.ledger().append(&entry)?;
        (self.events)(Event::Done {
            stage: clock.stage,
            outcome,
            note,
            millis: clock.started.elapsed().as_millis(),
            output,
        });
        Ok(())
    }

    /// Ends a stage that ends the delivery: its line, then the halt to return.
    pub(super) fn halt(
        &self,
        clock: &Clock,
        outcome: Outcome,
        inputs: &[(Input, &str)],
        reason: TerminalReason,
        detail: Option<String>,
    ) -> Halt {
        let note = detail.clone().map_or(Note::None, Note::Detail);
        match self.end(clock, outcome, inputs, detail.clone(), note, None) {
            Ok(()) => Halt::Stop { reason, detail },
            Err(e) => Halt::Failed(e),
        }
    }

    /// Ends a stage that a signal stopped.
    pub(super) fn interrupted(&self, clock: &Clock, inputs: &[(Input, &str)]) -> Halt {
        let reason = TerminalReason::Interrupted;
        self.halt(clock, Outcome::Interrupted, inputs, reason, None)
    }

    /// Ends a stage whose tool, device or machine failed.
    pub(super) fn environment(
        &self,
        clock: &Clock,
        inputs: &[(Input, &str)],
        detail: String,
    ) -> Halt {
        let reason = TerminalReason::EnvironmentError;
        self.halt(
            clock,
            Outcome::EnvironmentError,
            inputs,
            reason,
            Some(detail),
        )
    }
}
