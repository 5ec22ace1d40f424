//! The verification report and why a verification could not run.

use crate::hash::sha256_hex;
use crate::process::SpawnError;
use crate::verify::CompileError;
use crate::verify::FingerprintError;
use crate::words::words;
use serde::{Deserialize, Serialize};

/// How much of a command's output a report keeps (its tail).
pub(super) const OUTPUT_TAIL_CHARS: usize = 8000;

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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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

impl VerifyReport {
    /// Whether this pass still stands for the workspace as it is now.
    pub(crate) fn is_fresh(&self, current_fingerprint: &str) -> bool {
        self.verdict == CommandStatus::Pass && self.fingerprint_after == current_fingerprint
    }

    /// One fingerprint for the round's failures (`None` when it passed).
    pub(crate) fn failure_fingerprint(&self) -> Option<String> {
        let mut failed: Vec<&str> = self
            .commands
            .iter()
            .filter_map(|c| c.failure_fingerprint.as_deref())
            .collect();
        failed.sort_unstable();
        (!failed.is_empty()).then(|| sha256_hex(failed.join("\n").as_bytes()))
    }
}

/// Why verification could not run.
#[derive(Debug, thiserror::Error)]
pub(crate) enum VerifyError {
    /// A command's program does not exist.
    #[error("verification command `{name}`: `{program}` not found")]
    CommandNotFound {
        /// The command's name.
        name: String,
        /// The program tried.
        program: String,
    },
    /// The workspace could not be fingerprinted.
    #[error(transparent)]
    Fingerprint(#[from] FingerprintError),
    /// Another spawn failure.
    #[error("verification command `{name}` could not start")]
    Spawn {
        /// The command's name.
        name: String,
        /// Why.
        #[source]
        source: SpawnError,
    },
    /// Ctrl-C.
    #[error("cancelled")]
    Cancelled,
}

impl VerifyError {
    /// The stable code.
    pub(crate) fn code(&self) -> &'static str {
        match self {
            VerifyError::CommandNotFound { .. } => "E_VERIFY_COMMAND_NOT_FOUND",
            VerifyError::Fingerprint(_) => "E_VERIFY_FINGERPRINT",
            VerifyError::Spawn { .. } => "E_VERIFY_SPAWN",
            VerifyError::Cancelled => "E_INTERRUPTED",
        }
    }
}
