//! The stages of a delivery. Each records its ledger line and events, stops the delivery with
//! `?` when it must, and otherwise returns what it found for the loop to fold into the
//! summary and decide on.

mod agent;
mod audit;
mod failed;
mod review;
mod verify;

pub(super) use audit::AuditVerdict;
pub(super) use failed::{Failed, Quoted};
