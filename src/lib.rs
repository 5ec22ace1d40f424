//! dwpipe: delivers HarmonyOS app changes through hard gates. An acceptance pack is frozen and
//! hashed; every verdict is recomputed from recorded evidence.
//!
//! The binary is a thin shell over [`run`]; everything else lives in the modules below.

// A `Diagnostic` carries its code, criterion, message, location, key path and fix; it only
// travels on error paths, where its size costs nothing worth a box at every call site.
#![expect(
    clippy::result_large_err,
    reason = "diagnostics are cold-path values; boxing them buys nothing"
)]

mod agent;
pub mod assertion;
pub mod audit;
mod brief;
mod cli;
mod config;
pub mod device;
pub mod diagnostic;
mod exit_code;
mod format;
pub mod gate;
pub mod hash;
pub mod input;
mod lab;
mod output;
pub mod pack;
mod pipeline;
pub mod playbook;
pub mod probe;
pub mod process;
pub mod report;
mod review;
pub mod shell;
mod target;
pub mod template;
#[cfg(test)]
mod test_support;
mod verify;
mod words;

pub use cli::run;
