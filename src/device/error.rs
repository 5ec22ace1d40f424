//! Everything that can go wrong talking to a device, typed.

use std::path::PathBuf;
use std::time::Duration;

use super::capture::CaptureError;
use crate::shell::UnsafeValue;

/// A device call that did not produce a usable answer.
#[derive(Debug, thiserror::Error)]
pub enum DeviceError {
    /// The hdc binary is not there.
    #[error("hdc not found: tried `{}` (set --hdc PATH or DWPIPE_HDC)", tried.display())]
    HdcNotFound {
        /// The path or name that was tried.
        tried: PathBuf,
    },
    /// Another job held the device's lease for as long as this one would wait.
    #[error("device {serial} is leased to {holder}; waited {}s for it", waited.as_secs())]
    Leased {
        /// The connect key.
        serial: String,
        /// Who holds it.
        holder: String,
        /// How long this job waited.
        waited: Duration,
    },
    /// The lease could not be asked for (its folder, its lock file, its server).
    #[error("the lease on device {serial} cannot be taken")]
    Lease {
        /// The connect key.
        serial: String,
        /// Why.
        #[source]
        source: TakeError,
    },
    /// The device's lease was lost while held (its server's connection cut): another job may
    /// have driven it since, so nothing more is asked of it.
    #[error("the lease on device {serial} was lost {why}")]
    LeaseLost {
        /// The connect key.
        serial: String,
        /// When and why.
        why: String,
    },
    /// The hdc client could not reach its server.
    #[error("hdc server {server} is unreachable ({why})")]
    ServerUnreachable {
        /// `local` or `HOST:PORT`.
        server: String,
        /// What showed it: hdc's `Connect server failed`, or a call that ran out of time
        /// against an address where nothing accepts a connection.
        why: String,
    },
    /// Something answered at the server's address, but not as an hdc server this client can
    /// talk to: the client printed only its own log.
    #[error(
        "hdc server {server} does not speak hdc to this client (the client said: {said}); is another program on that port, or a server of another hdc release? Stop it (`hdc -s {server} kill`) and start the server again"
    )]
    ServerBroken {
        /// `local` or `HOST:PORT`.
        server: String,
        /// The words of the client's warnings.
        said: String,
    },
    /// The device has not authorized this host (hdc's words and advice).
    #[error("device {serial} has not authorized this host: {message}")]
    Unauthorized {
        /// The connect key.
        serial: String,
        /// hdc's words, with its advice.
        message: String,
    },
    /// The device is unknown to the server or no longer connected.
    #[error("device {serial} not found or not connected: {message}")]
    DeviceNotFound {
        /// The connect key.
        serial: String,
        /// hdc's words.
        message: String,
    },
    /// hdc printed a `[Fail]` line.
    #[error("hdc failed{}: {message}", code.as_ref().map(|c| format!(" [{c}]")).unwrap_or_default())]
    HdcFailed {
        /// The `E…` code, if any.
        code: Option<String>,
        /// hdc's words.
        message: String,
    },
    /// A call did not answer within its time.
    #[error("{step} did not answer within {after:?}; its process group was stopped")]
    Timeout {
        /// What was asked, in a few words (`hdc shell` on a device and the start of its
        /// command, reading a device's identity): never a whole shell line.
        step: String,
        /// The limit.
        after: Duration,
    },
    /// A shell reply arrived without dwpipe's status sentinel: the command did not run to
    /// its end (the device dropped, or hdc answered instead of the device).
    #[error("`{command}` ended without its status line; the reply was: {reply}")]
    NoStatus {
        /// The device command.
        command: String,
        /// The first line of what came back.
        reply: String,
    },
    /// A file transfer did not report success.
    #[error("file transfer of `{path}` failed: {message}")]
    Transfer {
        /// The remote path.
        path: String,
        /// hdc's words.
        message: String,
    },
    /// `install`/`uninstall` did not report success.
    #[error("{operation} failed{}: {message}", code.as_ref().map(|c| format!(" (code {c})")).unwrap_or_default())]
    App {
        /// `install` or `uninstall`.
        operation: &'static str,
        /// The bundle manager's error code.
        code: Option<String>,
        /// Its words.
        message: String,
    },
    /// A value was refused before anything was spawned.
    #[error(transparent)]
    Unsafe(#[from] UnsafeValue),
    /// A capture could not serve the call.
    #[error(transparent)]
    Capture(#[from] CaptureError),
    /// A signal (SIGINT, SIGTERM) stopped the call.
    #[error("interrupted")]
    Cancelled,
    /// A local file operation failed.
    #[error("{context}")]
    Io {
        /// What was being done.
        context: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

impl DeviceError {
    /// The stable code of the failure.
    pub fn code(&self) -> &'static str {
        match self {
            DeviceError::HdcNotFound { .. } => "E_HDC_NOT_FOUND",
            DeviceError::ServerUnreachable { .. } => "E_HDC_SERVER_UNREACHABLE",
            DeviceError::ServerBroken { .. } => "E_HDC_SERVER_BROKEN",
            DeviceError::Unauthorized { .. } => "E_DEVICE_UNAUTHORIZED",
            DeviceError::Leased { .. } => "E_DEVICE_LEASED",
            DeviceError::Lease { .. } => "E_DEVICE_LEASE",
            DeviceError::LeaseLost { .. } => "E_LEASE_LOST",
            DeviceError::DeviceNotFound { .. } => "E_DEVICE_NOT_FOUND",
            DeviceError::HdcFailed { .. } => "E_HDC_FAILED",
            DeviceError::Timeout { .. } => "E_DEVICE_TIMEOUT",
            DeviceError::NoStatus { .. } => "E_DEVICE_NO_STATUS",
            DeviceError::Transfer { .. } => "E_DEVICE_TRANSFER",
            DeviceError::App { .. } => "E_DEVICE_APP",
            DeviceError::Unsafe(_) => "E_UNSAFE_VALUE",
            DeviceError::Capture(e) => e.code,
            DeviceError::Cancelled => "E_INTERRUPTED",
            DeviceError::Io { .. } => "E_DEVICE_IO",
        }
    }

    /// What to do when hdc said the server or the device cannot be used (`None` for the
    /// other failures, whose fix depends on what was being done).
    pub(crate) fn fix(&self) -> Option<&'static str> {
        Some(match self {
            DeviceError::ServerUnreachable { .. } => {
                "start the hdc server (`hdc start` here; `hdc -s HOST:PORT -m` on the lab host), or fix --server"
            }
            DeviceError::ServerBroken { .. } => {
                "point --server at an hdc server, or restart the one there with the hdc release this host runs"
            }
            DeviceError::Unauthorized { .. } => {
                "do as hdc advises: confirm the host on the device (a dialog after `hdc kill`), then run again"
            }
            DeviceError::DeviceNotFound { .. } => {
                "check `dwpipe devices`: is it listed, and Connected (an Offline device needs its cable or `hdc tconn` again)?"
            }
            _ => return None,
        })
    }

    /// Whether the input (a capture, a value) is at fault rather than the environment.
    pub(crate) fn is_invalid_input(&self) -> bool {
        matches!(self, DeviceError::Unsafe(_) | DeviceError::Capture(_))
    }
}

/// Why a lease could not be asked for.
#[derive(Debug, thiserror::Error)]
pub enum TakeError {
    /// The lock file, or its folder, was refused.
    #[error(transparent)]
    File(#[from] crate::lock_file::LockFileError),
    /// The lock file could not be locked.
    #[error("cannot lock `{}`", path.display())]
    Io {
        /// The lock file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The server that keeps the leases could not be asked.
    #[error("the leases in `{at}` cannot be asked: {why}")]
    Server {
        /// The server, as it may be shown.
        at: String,
        /// Why, in its own words.
        why: String,
    },
}

impl TakeError {
    /// What to do about it.
    pub(crate) fn fix(&self) -> String {
        match self {
            TakeError::File(e) => e.fix(),
            TakeError::Io { .. } => "check the lease folder and the disk".to_owned(),
            TakeError::Server { .. } => {
                "check the history's server (`dwpipe doctor`), or audit without --history to lease on this host only".to_owned()
            }
        }
    }
}
