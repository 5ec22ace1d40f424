//! The one path from an [`AuditPlan`] to an [`Outcome`]: every audit shape — one device or a
//! capture, a lab of devices, a same-device A/B, an A/B over a lab — runs through [`run()`]
//! against a target preflight opened. The engine publishes every report itself and tells a
//! [`Reporter`] what it does; it never prints. `audit` builds the plan and calls
//! [`open_and_run`]; the delivery's audit stage, whose target is open already, calls [`run()`].

mod ab;
mod ab_lab;
mod attest;
mod builds;
mod error;
mod events;
mod lab;
mod merge;
mod one;
mod outcome;
mod plan;
mod run;
mod seat;

#[cfg(test)]
mod tests;

pub(crate) use ab::AbSession;
pub(crate) use error::{AbError, SessionError};
pub(crate) use events::{Event, Reporter};
pub(crate) use merge::merge;
pub(crate) use outcome::Outcome;
pub(crate) use plan::{AuditPlan, AuditPlanError, BuildUnderTest, PackSource, Request};
pub(crate) use run::{open_and_run, run};
