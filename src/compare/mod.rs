//! The regression gate: a candidate audit held against a baseline audit of the same device
//! model, software and refresh rate, criterion by criterion. Three honest outcomes per
//! criterion (Pinpoint's): `different` when `p ≤ 0.01` and the median moved at least the
//! floor, `same` when the whole 95 % interval of the median delta lies strictly inside the
//! floor, `unknown` otherwise; the assertion's direction turns them into `regressed`,
//! `improved`, `same` or `inconclusive`. Nothing that was not shown is a pass: inconclusive
//! fails like regressed.

mod files;
pub(crate) mod stats;

pub(crate) use files::{
    Given, Refusing, from_files, held_to_evidence, read_audit, read_audit_hashed, remade,
};

mod audits;
mod criterion;
mod error;
#[cfg(test)]
mod tests;
pub use audits::compare;
use criterion::{one, seed_of};
pub use error::CompareError;
