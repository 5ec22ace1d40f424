//! The verification report and why a verification could not run.

use crate::hash::sha256_hex;
use crate::process::SpawnError;
use crate::schema::{CommandStatus, VerifyReport};
use crate::verify::FingerprintError;

/// How much of a command's output a report keeps (its tail).
pub(super) const OUTPUT_TAIL_CHARS: usize = 8000;

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
