//! dwpipe: delivers HarmonyOS app changes through hard gates. An acceptance pack is frozen and
//! hashed; every verdict is recomputed from recorded evidence.
//!
//! The binary is a thin shell over [`run`]; everything else lives in the modules below, in
//! layers that import one way only (down this list, never up):
//!
//! - **leaves**: the vocabulary every room shares (words, diagnostics, bounded input and
//!   parsing, hashes, atomic output, templates, device shell values, format versions);
//! - **the pack** and the pure rules over it (assertions, the gate);
//! - **the outside world**, each behind one door: child processes, devices, the project
//!   config, where a run measures;
//! - **evidence**: extractors, playbooks, the audit, the documents it and its readers keep
//!   (`schema`), the comparison, the history, the forms reports are rendered in;
//! - **the delivery**: review, brief, agent, verification, preflight, exit codes, the session
//!   engine every audit shape runs through, and the pipeline that runs them all;
//! - **the edge**: the command line, whose reporters (`cli/print`, `cli/progress`) are the
//!   only code that writes to the terminal.
//!
//! What the binary, the tests and the benches use is `pub`; everything else is `pub(crate)`.

// A `Diagnostic` carries its code, criterion, message, location, key path and fix; it only
// travels on error paths, where its size costs nothing worth a box at every call site.
#![expect(
    clippy::result_large_err,
    reason = "diagnostics are cold-path values; boxing them buys nothing"
)]

// Leaves.
pub mod diagnostic; // stable-coded findings, and an error's causes in one line
mod format; // the format-version of every document dwpipe writes
pub mod hash; // SHA-256, lowercase hex
pub mod input; // bounded reads; YAML/JSON with key paths and positions; durations
pub mod lock_file; // lock files in shared places: never followed, never planted
mod output; // atomic writes and numbered publishing
pub mod shell; // values validated for the device's shell
pub mod template; // embedded Handlebars templates and init files
mod text; // what a device or a file said, fit to show: one line, escaped, bounded
mod time; // UTC timestamps as files show them
mod words; // enums that are words in files and on screens

// The pack and the rules over it.
pub mod assertion; // exact decimals, units, matchers
pub mod gate; // verdict recomputation (pure)
pub mod pack; // schema, validation, the probe catalog, freezing

// The outside world, each behind one door.
pub mod config; // dwpipe.yaml
pub mod device; // the Device trait: hdc, replay, recording; the capture format
pub mod process; // children in their own process groups, cancellation
mod target; // a device, a capture or a lab, opened

// Evidence.
mod attest; // signed verdicts: in-toto statements in DSSE envelopes, made and checked
pub mod audit; // sessions on the device, readings, aggregates, the gate over them
pub mod compare; // the regression gate: a candidate audit held against a baseline
mod history; // the history of audits and comparisons (SQLite or PostgreSQL), and where a series shifted
#[doc(hidden)]
#[cfg(feature = "bench-history")]
pub mod history_bench; // the history's queries on their own, for benches/history_store.rs

pub mod playbook; // how each probe is measured
pub mod probe; // extractors: pure functions over evidence bytes
mod recheck; // an audit report held against its rebuild from the evidence
pub mod report; // Markdown, JUnit and HTML rendered from the documents, and their one writer
pub mod schema; // the versioned documents: serde types only

// The delivery.
mod agent; // DevEco Code and command agents; claims, never verdicts
mod brief; // the Goal brief and repair briefs
mod exit_code; // the one place verdicts become exit codes, and the table of error codes
mod hook; // the gate inside an agent's own loop: its stop hook's answer, round by round
mod pipeline; // deliver: stages, ledger, run directory, resume
mod preflight; // what a run needs, resolved before anything is dispatched
mod review; // the adversarial pre-review and its receipts
mod session; // every audit shape: a plan, run against an opened target, to one outcome
mod verify; // verification commands and workspace fingerprints

// The edge.
mod cli; // arguments → plans → the library → reporters

#[cfg(test)]
mod test_support;

pub use cli::run;
