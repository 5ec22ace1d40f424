//! A round that failed, in the words the repair brief and the guard need.

use super::super::Delivery;
use super::super::Note;
use super::super::halt::Staged;
use super::super::ledger::{Input, Outcome, Stage};
use super::super::run_dir::RunDir;
use crate::brief::Failure;
use crate::hash::sha256_hex;
use crate::output::write_atomic;
use crate::schema::TerminalReason;
use std::path::PathBuf;

/// Failing output quoted in a repair brief, and the report it came from.
pub(crate) struct Quoted {
    pub(crate) source: String,
    pub(crate) text: String,
}

/// What a failed round sends back to the agent.
pub(crate) struct Failed {
    /// What the repair guard counts ("the same failure again").
    pub(crate) fingerprint: String,
    pub(crate) failures: Vec<Failure>,
    /// The failing output (verification only).
    pub(crate) output: Option<Quoted>,
    /// The terminal reason when no repair budget exists at all.
    pub(crate) kind: TerminalReason,
}

impl Delivery<'_> {
    /// Writes the round's brief; returns its path.
    pub(in crate::pipeline) fn brief(&self, round: u32, text: &str) -> Staged<PathBuf> {
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
