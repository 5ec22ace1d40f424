//! What a delivery tells its reporters: each stage beginning and ending with what it decided,
//! and the audit stage's session. The engine emits these; only reporters print.

use std::path::PathBuf;

use crate::agent::AgentEnd;
use crate::schema::Claim;

use super::ledger::{Outcome, Stage};

/// What a finished stage says besides its outcome, for reporters to show.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Note {
    /// Nothing: the outcome says it.
    None,
    /// Why the stage ended the delivery.
    Detail(String),
    /// The report it wrote or reused (a review receipt).
    Report(String),
    /// A review that asks for changes or blocks: its report, and each finding in one line
    /// (code, criterion, message), for people to read where they look.
    Findings(String, Vec<String>),
    /// The file it wrote (a brief).
    File(String),
    /// How the agent ended and what it claimed.
    Claim(AgentEnd, Claim),
}

/// What the delivery is doing, for reporters.
#[derive(Debug)]
pub(crate) enum Event<'a> {
    /// A stage began.
    Stage {
        /// The stage.
        stage: Stage,
        /// The round (0 = the first dispatch).
        round: u32,
    },
    /// The audit stage's session (on the device, or over a lab of devices).
    Session(crate::session::Event<'a>),
    /// A stage ended.
    Done {
        /// The stage.
        stage: Stage,
        /// What it decided.
        outcome: Outcome,
        /// What else to show.
        note: Note,
        /// How long it took.
        millis: u128,
        /// The file holding what the stage's tool printed (the agent's log, the verification
        /// report), for reporters that unfold it.
        output: Option<PathBuf>,
    },
}
