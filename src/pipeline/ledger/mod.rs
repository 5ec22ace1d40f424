//! `ledger.jsonl`: one JSON line per decision (stage, round, the hashes of its inputs, the
//! outcome, how long it took). Never prompt or answer text.
//!
//! Stages, inputs and outcomes are typed: an outcome is parsed once, against its stage, when
//! a line is read, and matched as a variant everywhere else. The words are the ones the first
//! release wrote, one spelling per outcome; the one it spelled two ways (`environment-error`
//! on stage lines) is still read.

mod file;

pub(crate) use file::{AppendError, Ledger, LedgerError, ledger_path};

mod entry;
#[cfg(test)]
mod tests;
pub(crate) use entry::{Entry, Input, Outcome, Stage};
