//! Why an audit stopped short of its report, with the stable code it is printed with.

use crate::device::DeviceError;

/// Why an audit stopped.
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    /// The device failed (vanished, unreachable, timed out); the evidence so far is kept.
    #[error("the device failed during run {run}")]
    Device {
        /// The run in progress.
        run: u32,
        /// The cause.
        #[source]
        source: DeviceError,
    },
    /// The device cannot run the audit's sessions (a capture recorded with other ones);
    /// refused before the first call.
    #[error("the capture cannot answer this audit's sessions")]
    Refused(#[source] DeviceError),
    /// The output folder already holds another audit's evidence.
    #[error(
        "`{}` already holds an earlier audit's evidence; audit into a new --out folder",
        .0.display()
    )]
    EvidenceExists(std::path::PathBuf),
    /// A pack value does not pass the device shell's rules.
    #[error("a value of the pack cannot enter a device command")]
    Unsafe(#[source] crate::shell::UnsafeValue),
    /// An evidence file could not be read back to be hashed.
    #[error("cannot read evidence `{}`", path.display())]
    Evidence {
        /// The file.
        path: std::path::PathBuf,
        /// The cause.
        #[source]
        source: crate::input::ReadError,
    },
    /// A link (or another file) stands where the audit keeps its evidence: someone else put
    /// it there to have the audit write where it leads.
    #[error(transparent)]
    Planted(#[from] crate::lock_file::LockFileError),
    /// What the audit is measured with could not be kept as evidence.
    #[error("cannot keep `{}` as evidence", path.display())]
    Keep {
        /// The file.
        path: std::path::PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

impl AuditError {
    /// The stable code of the failure.
    pub(crate) fn code(&self) -> &'static str {
        match self {
            AuditError::Device { source, .. } | AuditError::Refused(source) => source.code(),
            AuditError::EvidenceExists(_) => "E_AUDIT_EVIDENCE_EXISTS",
            AuditError::Unsafe(_) => "E_UNSAFE_VALUE",
            AuditError::Evidence { .. } => "E_AUDIT_EVIDENCE",
            AuditError::Keep { .. } => "E_AUDIT_KEEP",
            AuditError::Planted(_) => "E_PLANTED",
        }
    }

    /// Whether a signal stopped the audit (rather than the device or the machine).
    pub(crate) fn is_interrupted(&self) -> bool {
        matches!(
            self,
            AuditError::Device {
                source: DeviceError::Cancelled,
                ..
            }
        )
    }
}
