//! The one error type at the edge of the library, and its mapping to exit codes. Library
//! errors arrive typed; only here do they become a code.

use std::path::PathBuf;

use crate::audit::AuditError;
use crate::device::DeviceError;
use crate::diagnostic::Diagnostic;
use crate::exit_code;
use crate::history::{HistoryError, RecordError};
use crate::output::{PublishError, WriteError};
use crate::pipeline::ledger::AppendError;
use crate::pipeline::{DeliverPlanError, DeliveryError, RunDirError, StartError};
use crate::session::{AbError, AuditPlanError, SessionError};
use crate::template::RenderError;

/// Why a command could not finish with a verdict.
#[derive(Debug, thiserror::Error)]
pub(super) enum Error {
    /// The input does not validate; the diagnostics say where and why.
    #[error("invalid input ({} error(s))", .0.iter().filter(|d| d.is_error()).count())]
    Invalid(Vec<Diagnostic>),
    /// What the run needs is missing (preflight): nothing was started.
    #[error("{} missing; nothing was started", .0.len())]
    Missing(Vec<Diagnostic>),
    /// The command line is wrong (clap has the message).
    #[error(transparent)]
    Usage(#[from] clap::Error),
    /// An output could not be written.
    #[error(transparent)]
    Write(#[from] WriteError),
    /// A report could not be written.
    #[error(transparent)]
    Publish(#[from] PublishError),
    /// A template failed to render.
    #[error(transparent)]
    Render(#[from] RenderError),
    /// A device call failed.
    #[error(transparent)]
    Device(#[from] DeviceError),
    /// An audit stopped short of its report (its folder, its evidence).
    #[error(transparent)]
    Audit(AuditError),
    /// An audit session stopped: a signal, the device, an A/B switch.
    #[error(transparent)]
    Session(SessionError),
    /// A delivery's own files failed.
    #[error(transparent)]
    Delivery(#[from] DeliveryError),
    /// A ledger could not be appended to.
    #[error(transparent)]
    Ledger(#[from] AppendError),
    /// The workspace is being delivered by another run, or cannot be locked.
    #[error(transparent)]
    Claim(#[from] crate::pipeline::ClaimError),
    /// The history cannot be used (it is created if missing).
    #[error(transparent)]
    History(#[from] HistoryError),
    /// A device a delivery was given is not there.
    #[error("device {serial}")]
    Absent {
        /// Its connect key.
        serial: String,
        /// Why.
        #[source]
        why: crate::target::Absence,
    },
    /// A link (or a FIFO) stands where dwpipe makes a file or folder of its own.
    #[error(transparent)]
    Planted(#[from] crate::lock_file::LockFileError),
    /// No hdc server has a connected device.
    #[error("no connected device on the hdc servers")]
    NoDevices,
    /// An output folder could not be created.
    #[error("cannot create `{}`", path.display())]
    Folder {
        /// The folder.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

impl Error {
    /// The exit code for this error (docs/design.md §1).
    pub(super) fn exit_code(&self) -> i32 {
        match self {
            Error::Invalid(_) => exit_code::INVALID_INPUT,
            Error::Usage(e) if !e.use_stderr() => exit_code::OK,
            Error::Usage(_) => exit_code::INVALID_INPUT,
            Error::Device(DeviceError::Cancelled) => exit_code::INTERRUPTED,
            Error::Audit(
                AuditError::EvidenceExists(_) | AuditError::Unsafe(_) | AuditError::Refused(_),
            ) => exit_code::INVALID_INPUT,
            Error::Audit(_) => exit_code::ENVIRONMENT,
            Error::Session(SessionError::Interrupted(_)) => exit_code::INTERRUPTED,
            Error::Session(SessionError::Ab {
                error:
                    AbError::Audit {
                        source:
                            AuditError::EvidenceExists(_)
                            | AuditError::Unsafe(_)
                            | AuditError::Refused(_),
                        ..
                    },
                ..
            }) => exit_code::INVALID_INPUT,
            Error::Session(_) => exit_code::ENVIRONMENT,
            Error::Device(e) if e.is_invalid_input() => exit_code::INVALID_INPUT,
            Error::Device(_)
            | Error::Missing(_)
            | Error::Write(_)
            | Error::Delivery(_)
            | Error::Ledger(_)
            | Error::Claim(_)
            | Error::History(_)
            | Error::Absent { .. }
            | Error::Planted(_)
            | Error::NoDevices
            | Error::Folder { .. } => exit_code::ENVIRONMENT,
            // A template that does not render is dwpipe's bug; nothing was decided.
            Error::Render(_) | Error::Publish(_) => exit_code::ENVIRONMENT,
        }
    }

    /// The stable code every error is printed with.
    pub(super) fn code(&self) -> &str {
        use crate::pipeline::DeliveryError as D;
        match self {
            // Each diagnostic prints its own code.
            Error::Invalid(_) => "E_INVALID",
            Error::Missing(_) => "E_PREFLIGHT",
            Error::Usage(_) => "E_USAGE",
            Error::Write(_) | Error::Publish(PublishError::Write(_)) => "E_WRITE",
            Error::Render(_) | Error::Publish(PublishError::Render(_)) => "E_RENDER",
            Error::Device(e) => e.code(),
            Error::Audit(e) => e.code(),
            Error::Session(e) => e.code(),
            Error::Delivery(e) => match e {
                D::Resume(_) => "E_RESUME_REFUSED",
                D::Ledger(_) => "E_LEDGER_APPEND",
                D::Write(_) | D::Publish(PublishError::Write(_)) => "E_WRITE",
                D::Render(_) | D::Publish(PublishError::Render(_)) => "E_RENDER",
                D::Fingerprint(_) => "E_FINGERPRINT",
                D::Unrecorded { .. } => "E_DELIVER_UNRECORDED",
            },
            Error::Ledger(_) => "E_LEDGER_APPEND",
            Error::Claim(crate::pipeline::ClaimError::Busy { .. }) => "E_DELIVER_BUSY",
            Error::Claim(_) => "E_DELIVER_LOCK",
            Error::History(e) => e.code(),
            Error::Absent { .. } => "E_DEVICE_ABSENT",
            Error::NoDevices => "E_NO_DEVICES",
            Error::Planted(_) => "E_PLANTED",
            Error::Folder { .. } => "E_OUT_FOLDER",
        }
    }

    /// A folder error for `path`.
    pub(super) fn folder(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
        move |source| Error::Folder {
            path: path.to_owned(),
            source,
        }
    }
}

impl From<Diagnostic> for Error {
    fn from(diagnostic: Diagnostic) -> Error {
        Error::Invalid(vec![diagnostic])
    }
}

impl From<Vec<Diagnostic>> for Error {
    fn from(diagnostics: Vec<Diagnostic>) -> Error {
        Error::Invalid(diagnostics)
    }
}

impl From<crate::preflight::NotStarted> for Error {
    fn from(refusal: crate::preflight::NotStarted) -> Error {
        match refusal {
            crate::preflight::NotStarted::Missing(problems) => Error::Missing(problems),
            crate::preflight::NotStarted::Device(e) => Error::Device(e),
        }
    }
}

impl From<RunDirError> for Error {
    /// A run folder that cannot be made is the machine's; one that cannot be picked up again
    /// as it was begun is the user's input.
    fn from(error: RunDirError) -> Error {
        match error {
            RunDirError::Lock(diagnostics) => Error::Invalid(diagnostics),
            RunDirError::Write(error) => Error::Publish(error),
            RunDirError::Record(error) => Error::Write(error),
            RunDirError::Create { base, source } => Error::Folder { path: base, source },
            RunDirError::Planted(e) => Error::Planted(e),
            refused @ (RunDirError::RunRecord(_)
            | RunDirError::PackChanged { .. }
            | RunDirError::OtherTarget { .. }
            | RunDirError::Ledger(_)) => {
                Diagnostic::error("E_RESUME_REFUSED", crate::diagnostic::chain(&refused))
                    .fix(
                        "start a new delivery with --pack; a run is only continued as it was begun",
                    )
                    .into()
            }
        }
    }
}

impl From<DeliverPlanError> for Error {
    fn from(refused: DeliverPlanError) -> Error {
        match refused {
            DeliverPlanError::Invalid(found) | DeliverPlanError::NoDevice(found) => {
                Error::Invalid(found)
            }
            DeliverPlanError::Claim(e) => Error::Claim(e),
            DeliverPlanError::RunDir(e) => e.into(),
        }
    }
}

impl From<StartError> for Error {
    fn from(error: StartError) -> Error {
        match error {
            StartError::Preflight(refused) => refused.into(),
            StartError::Device(e) => Error::Device(e),
            StartError::RunDir(e) => e.into(),
            StartError::Absent { serial, why } => Error::Absent { serial, why },
            StartError::NoDevices => Error::NoDevices,
            StartError::NotOneDevice => Error::Usage(clap::Error::raw(
                clap::error::ErrorKind::ArgumentConflict,
                "a stop hook audits one device or one capture, not a lab",
            )),
            StartError::Delivery(e) => Error::Delivery(e),
        }
    }
}

impl From<RecordError> for Error {
    fn from(error: RecordError) -> Error {
        match error {
            RecordError::History(e) => Error::History(e),
            RecordError::Report(diagnostic) => Error::Invalid(vec![diagnostic]),
        }
    }
}

impl From<crate::attest::AttestError> for Error {
    fn from(error: crate::attest::AttestError) -> Error {
        match error {
            crate::attest::AttestError::Refused(found) => Error::Invalid(found),
            crate::attest::AttestError::Write(e) => Error::Write(e),
        }
    }
}

impl From<AuditPlanError> for Error {
    fn from(refused: AuditPlanError) -> Error {
        match refused {
            AuditPlanError::Invalid(found) => Error::Invalid(found),
            AuditPlanError::Folder { path, source } => Error::Folder { path, source },
        }
    }
}

impl From<SessionError> for Error {
    /// A session's ending as the command reports it: what the input is at fault for as a
    /// diagnostic with its fix, the rest by its own kind.
    fn from(error: SessionError) -> Error {
        match error {
            SessionError::Refused(e) | SessionError::Unfinished(e) => Error::Device(e),
            SessionError::Preflight(refused) => refused.into(),
            SessionError::Audit(e) => Error::Audit(e),
            SessionError::Publish(e) => Error::Publish(e),
            SessionError::History(e) => Error::History(e),
            SessionError::Ab {
                error: AbError::Compare(e),
                ..
            } => Diagnostic::error(e.code(), e.to_string())
                .fix("the device's identity changed during the session: run it again")
                .into(),
            SessionError::NoDevices => {
                Diagnostic::error("E_LAB_NO_DEVICES", "no connected device on the hdc servers")
                    .fix("check `dwpipe devices` (and --server for remote hosts)")
                    .into()
            }
            other => Error::Session(other),
        }
    }
}
