//! Why a session has no outcome, and how an audit's own stop is told as a session's.

use std::path::PathBuf;

use crate::audit::AuditError;
use crate::compare::CompareError;
use crate::device::DeviceError;
use crate::history::HistoryError;
use crate::output::PublishError;
use crate::schema::{Arm, Restored};

/// Why a session has no outcome.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SessionError {
    /// A signal stopped it; the evidence so far is kept.
    #[error("interrupted; the evidence so far is under {}", .0.display())]
    Interrupted(PathBuf),
    /// The target cannot serve this audit (a capture recorded otherwise, a serial that cannot
    /// be addressed): nothing was asked of it.
    #[error(transparent)]
    Refused(DeviceError),
    /// The verified build could not be installed.
    #[error("the verified build could not be installed")]
    Install(#[source] DeviceError),
    /// The device failed mid-audit; the evidence gathered so far is kept.
    #[error("the device failed during run {run}; the evidence gathered so far is in {}", evidence.display())]
    Device {
        /// The run in progress.
        run: u32,
        /// The evidence folder.
        evidence: PathBuf,
        /// Why.
        #[source]
        source: DeviceError,
    },
    /// The audit could not keep its evidence, or the pack cannot be measured as written.
    #[error(transparent)]
    Audit(AuditError),
    /// An A/B session stopped.
    #[error("{error}; {restored}; the evidence gathered so far is under {}", out.display())]
    Ab {
        /// Why.
        #[source]
        error: AbError,
        /// What the device was left with.
        restored: Restored,
        /// The session's folder.
        out: PathBuf,
    },
    /// Reports could not be written.
    #[error(transparent)]
    Publish(#[from] PublishError),
    /// The history cannot be used: refused before anything was measured or installed.
    #[error(transparent)]
    History(#[from] HistoryError),
    /// A lab found no device to audit.
    #[error("no connected device on the hdc servers")]
    NoDevices,
    /// What the audit needs is missing, or its target could not be opened: nothing was
    /// started.
    #[error(transparent)]
    Preflight(#[from] crate::preflight::NotStarted),
    /// The device could not be let go (its recording written out).
    #[error("the device could not be let go")]
    Unfinished(#[source] DeviceError),
}

impl SessionError {
    /// The stable code.
    pub(crate) fn code(&self) -> &str {
        match self {
            SessionError::Interrupted(_) => "E_INTERRUPTED",
            SessionError::Refused(e) | SessionError::Install(e) => e.code(),
            SessionError::Device { source, .. } => source.code(),
            SessionError::Audit(e) => e.code(),
            SessionError::Ab { error, .. } => error.code(),
            SessionError::Publish(PublishError::Write(_)) => "E_WRITE",
            SessionError::Publish(PublishError::Render(_)) => "E_RENDER",
            SessionError::History(e) => e.code(),
            SessionError::NoDevices => "E_LAB_NO_DEVICES",
            SessionError::Preflight(refused) => refused.code(),
            SessionError::Unfinished(e) => e.code(),
        }
    }

    /// The one device's audit, stopped, told with where it stopped.
    pub(crate) fn of_audit(error: AuditError, out: &std::path::Path) -> SessionError {
        match error {
            AuditError::Device {
                source: DeviceError::Cancelled,
                ..
            } => SessionError::Interrupted(out.to_owned()),
            // Nothing was asked of the device: the capture itself is the error.
            AuditError::Refused(source) => SessionError::Refused(source),
            AuditError::Device { run, source } => SessionError::Device {
                run,
                evidence: out.join("evidence"),
                source,
            },
            other => SessionError::Audit(other),
        }
    }
}

/// Why an A/B session has no result.
#[derive(Debug, thiserror::Error)]
pub(crate) enum AbError {
    /// A build could not be installed (or the previous one uninstalled).
    #[error("switching the device to the {arm} build `{hap}` failed")]
    Switch {
        /// The arm.
        arm: Arm,
        /// Its HAP.
        hap: String,
        /// hdc's or the bundle manager's reason.
        #[source]
        source: DeviceError,
    },
    /// An arm's audit stopped (the device, a signal, the evidence folder).
    #[error("the {arm} audit stopped")]
    Audit {
        /// The arm.
        arm: Arm,
        /// Why.
        #[source]
        source: AuditError,
    },
    /// The arms' audits cannot be compared (the device changed its identity mid-session).
    #[error("the arms cannot be compared")]
    Compare(#[source] CompareError),
    /// A report could not be written.
    #[error(transparent)]
    Publish(#[from] PublishError),
}

impl AbError {
    /// The stable code.
    pub(crate) fn code(&self) -> &str {
        match self {
            AbError::Switch { source, .. } => source.code(),
            AbError::Audit { source, .. } => source.code(),
            AbError::Compare(e) => e.code(),
            AbError::Publish(PublishError::Write(_)) => "E_WRITE",
            AbError::Publish(PublishError::Render(_)) => "E_RENDER",
        }
    }

    /// Whether a signal stopped the session.
    pub(crate) fn is_interrupted(&self) -> bool {
        match self {
            AbError::Switch { source, .. } => matches!(source, DeviceError::Cancelled),
            AbError::Audit { source, .. } => source.is_interrupted(),
            AbError::Compare(_) | AbError::Publish(_) => false,
        }
    }
}
