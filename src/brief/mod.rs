//! The Goal brief for DevEco Code (or any agent) and the repair brief, rendered with
//! Handlebars in strict mode. A brief stands alone: Goal mode cannot ask questions when run
//! non-interactively, so it says the goal, every criterion with its assertion and how dwpipe
//! will measure it, the verification commands, and that the agent's PASS is not the verdict.

mod failures;
mod render;
#[cfg(test)]
mod tests;
pub(crate) use failures::{
    CRASHES_SOURCE, Failure, crashes_from_audit, failures_from_audit, failures_from_verify,
};
pub(crate) use render::{goal, repair};
