//! The command line: parse the arguments into a plan, run it through the library, print what
//! it returns; and the one place errors become exit codes ([`error::Error`]).

// The commands' doc comments are their `--help`, plain text that names `audit-<n>.json`: not
// HTML, and not Markdown to escape.
#![allow(rustdoc::invalid_html_tags)]

mod args;
mod attest;
mod audit;
mod brief;
mod compare;
mod completions;
mod deliver;
mod devices;
mod doctor;
mod error;
mod explain;
mod fingerprint;
mod freeze;
mod gate;
mod history;
mod hook;
mod identify;
mod init;
mod inspect;
mod print;
mod probes;
mod progress;
mod review;
mod runtime;
mod schema;
mod shared;
mod show;
mod summary_md;
mod verify_evidence;

use std::path::Path;

mod dispatch;
#[cfg(test)]
mod tests;
pub use dispatch::run;
use dispatch::{Edge, Run, load_lock};
