//! Signed verdicts a release pipeline can enforce: an audit that holds up against its
//! evidence, stated as in-toto Statements v1 (SLSA's Verification Summary, and dwpipe's own
//! verdict predicate) in DSSE envelopes signed with a PEM key people already have; and the
//! check of such a file, offline, down to the evidence.

mod check;
mod dsse;
mod held;
mod key;
mod make;
mod sign;

pub(crate) use check::{AttestationCheck, CheckRequest, check};
pub(crate) use sign::{AttestError, AttestOutcome, AttestRequest, Signing, attest};
