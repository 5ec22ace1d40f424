//! The stages of a delivery. Each records its ledger line and events, stops the delivery with
//! `?` when it must, and otherwise returns what it found for the loop to fold into the
//! summary and decide on.

mod agent;
mod audit;
mod review;
mod verify;

use std::path::PathBuf;

use crate::brief::Failure;
use crate::hash::sha256_hex;
use crate::output::write_atomic;

use super::Delivery;
use super::Note;
use super::ledger::{Input, Outcome, Stage};
use super::record::Staged;
use super::run_dir::RunDir;
use crate::schema::TerminalReason;

pub(super) use audit::AuditVerdict;

/// Failing output quoted in a repair brief, and the report it came from.
pub(super) struct Quoted {
    pub(super) source: String,
    pub(super) text: String,
}

/// What a failed round sends back to the agent.
pub(super) struct Failed {
    /// What the repair guard counts ("the same failure again").
    pub(super) fingerprint: String,
    pub(super) failures: Vec<Failure>,
    /// The failing output (verification only).
    pub(super) output: Option<Quoted>,
    /// The terminal reason when no repair budget exists at all.
    pub(super) kind: TerminalReason,
}

impl Delivery<'_> {
    /// Writes the round's brief; returns its path.
    pub(super) fn brief(&self, round: u32, text: &str) -> Staged<PathBuf> {
        let clock = self.begin(Stage::Brief, round);
        let name = RunDir::brief_name(round);
        let path = self.run_dir.path().join(&name);
        write_atomic(&path, text.as_bytes())?;
        let sha = &self.frozen.lock.sha256;
        let inputs = [
            (Input::Pack, sha.as_str()),
            (Input::Brief, &sha256_hex(text.as_bytes())),
        ];
        self.end(
            &clock,
            Outcome::Written,
            &inputs,
            None,
            Note::File(name),
            None,
        )?;
        Ok(path)
    }
}
