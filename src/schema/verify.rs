//! `verify-<n>.json`: a round's verification commands, each with its status, its exit code,
//! its output's tail and digest, and the compiler errors hvigor printed; the workspace's
//! fingerprint before and after.

use serde::{Deserialize, Serialize};

use crate::words::words;

words! {
    /// How one command ended.
    pub(crate) enum CommandStatus {
        /// Exit 0.
        Pass = "pass",
        /// Any other exit, or a signal.
        Fail = "fail",
        /// Stopped at its time limit.
        Timeout = "timeout",
        /// Its output shows neither a pass nor a failure (`kind: hvigor`): never a pass.
        Inconclusive = "inconclusive",
    }
}

/// One verification command's record.
#[derive(schemars::JsonSchema, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct CommandOutcome {
    /// Its configured name.
    pub(crate) name: String,
    /// The argv, shown.
    pub(crate) command: String,
    /// How it ended.
    pub(crate) status: CommandStatus,
    /// Its exit code, when it exited.
    pub(crate) exit_code: Option<i32>,
    /// Wall-clock time.
    pub(crate) duration_ms: u64,
    /// The end of its output (stdout, then stderr).
    pub(crate) output_tail: String,
    /// SHA-256 of the output kept.
    pub(crate) output_sha256: String,
    /// The normalized failure fingerprint, for failures.
    pub(crate) failure_fingerprint: Option<String>,
    /// It left processes running when it exited (they were stopped).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) leaked: bool,
    /// Why it is inconclusive (or why a `kind: hvigor` command failed despite its exit code).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) reason: Option<String>,
    /// The compiler errors its output named (`kind: hvigor`), as structured items.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) errors: Vec<CompileError>,
}

/// `verify-<n>.json`.
#[derive(schemars::JsonSchema, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct VerifyReport {
    /// Report format.
    pub(crate) format_version: u32,
    /// The repair round (0 for the first dispatch).
    pub(crate) round: u32,
    /// The workspace fingerprint before the commands ran.
    pub(crate) fingerprint_before: String,
    /// After them (equal to before, or the commands ran again).
    pub(crate) fingerprint_after: String,
    /// The workspace changed during the first verification, so it ran once more.
    pub(crate) rerun: bool,
    /// `pass` only when every command passed.
    pub(crate) verdict: CommandStatus,
    /// Every command.
    pub(crate) commands: Vec<CommandOutcome>,
}

/// One compiler error.
#[derive(schemars::JsonSchema, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct CompileError {
    /// The error code (`10505001`, `00305015`), when printed.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub(crate) code: Option<String>,
    /// The source file.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub(crate) file: Option<String>,
    /// 1-based line.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub(crate) line: Option<u32>,
    /// 1-based column.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub(crate) column: Option<u32>,
    /// What the compiler said.
    pub(crate) message: String,
}
