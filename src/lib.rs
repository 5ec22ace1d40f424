//! dwpipe: delivers HarmonyOS app changes through hard gates. An acceptance pack is frozen and
//! hashed; every verdict is recomputed from recorded evidence.
//!
//! The binary is a thin shell over [`run`]; everything else lives in the modules below.

pub mod assertion;
mod cli;
pub mod diagnostic;
pub mod error;
pub mod exit_code;
pub mod gate;
pub mod output;
pub mod pack;
pub mod probe;
pub mod report;

pub use cli::run;
