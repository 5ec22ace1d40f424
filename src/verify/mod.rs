//! The verification gate (docs/design.md §6): the declared commands run in the workspace (argv, own
//! process group, timeout), bracketed by workspace fingerprints. A pass is only evidence for
//! the fingerprint it was taken at; a workspace that changed during verification is verified
//! once more; failures get a normalized fingerprint so the repair loop can tell repeats.

mod failure;
mod fingerprint;
mod hvigor;

pub(crate) use failure::fingerprint as failure_fingerprint;
pub(crate) use fingerprint::{FingerprintError, StatCache, fingerprint, newest_change};

mod report;
mod run;
#[cfg(test)]
mod tests;
use report::OUTPUT_TAIL_CHARS;
pub(crate) use report::VerifyError;
pub(crate) use run::verify;
