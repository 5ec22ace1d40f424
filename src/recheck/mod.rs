//! `verify-evidence`: an audit report held against the report rebuilt from its folder. The
//! rebuild takes the lock and the evidence alone (the kept inputs, every session's files, each
//! read by the same code the audit ran), gates it, and compares the whole report field by
//! field. Only what no file can hold is taken from the report, the recorded facts (the
//! format and dwpipe versions, the lock's name, `--runs`, `--strict`, which dwpipe read each
//! measurement, when the audit ran, the workspace; the source before format 4, which keeps it
//! as evidence). A reading that differs because its extractor changed since is named as
//! such, apart from tampering. The forms it was published in (`audit-<n>.md`, `junit.xml`,
//! `report.html`) are rendered again and held to what its folder holds.

mod diff;
mod forms;
mod rebuild;
mod verify;

pub(crate) use crate::schema::{Cause, Difference};
pub(crate) use forms::forms;
use rebuild::rebuilt;
pub(crate) use rebuild::{recheck, regated, tampered};
pub(crate) use verify::verify_audit;
