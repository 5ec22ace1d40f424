//! The one error type at the edge of the library, and its mapping to exit codes.

use crate::device::DeviceError;
use crate::diagnostic::Diagnostic;
use crate::exit_code;
use crate::output::WriteError;
use crate::template::RenderError;

/// Why a command could not finish with a verdict.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The input does not validate; the diagnostics say where and why.
    #[error("invalid input ({} error(s))", .0.iter().filter(|d| d.is_error()).count())]
    Invalid(Vec<Diagnostic>),
    /// An output could not be written.
    #[error(transparent)]
    Write(#[from] WriteError),
    /// A template failed to render.
    #[error(transparent)]
    Render(#[from] RenderError),
    /// A report could not be written.
    #[error(transparent)]
    Publish(#[from] crate::report::PublishError),
    /// A device call failed.
    #[error(transparent)]
    Device(#[from] DeviceError),
    /// The machine failed under a command (a file that cannot be written, a ledger that cannot
    /// be appended to).
    #[error("{0}")]
    Local(String),
    /// The command line is wrong (clap has the message).
    #[error(transparent)]
    Usage(#[from] clap::Error),
}

impl Error {
    /// The exit code for this error (DESIGN §1).
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Invalid(_) => exit_code::INVALID_INPUT,
            Error::Usage(e) if !e.use_stderr() => exit_code::OK,
            Error::Usage(_) => exit_code::INVALID_INPUT,
            Error::Write(_) | Error::Local(_) => exit_code::ENVIRONMENT,
            Error::Device(DeviceError::Cancelled) => exit_code::INTERRUPTED,
            Error::Device(e) if e.is_invalid_input() => exit_code::INVALID_INPUT,
            Error::Device(_) => exit_code::ENVIRONMENT,
            // A template that does not render is dwpipe's bug; nothing was decided.
            Error::Render(_) | Error::Publish(_) => exit_code::ENVIRONMENT,
        }
    }
}

impl From<Diagnostic> for Error {
    fn from(diagnostic: Diagnostic) -> Error {
        Error::Invalid(vec![diagnostic])
    }
}
