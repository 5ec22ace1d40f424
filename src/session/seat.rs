//! One device's place in a lab: what its audit (or A/B session) gave, or why it has nothing.

use std::path::PathBuf;

use crate::schema::AuditReport;
use crate::target::{Absence, Member};

use super::error::SessionError;

/// Why a device has no report.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SeatError {
    /// It was asked for but is not there.
    #[error(transparent)]
    Absent(Absence),
    /// Its folder could not be created, or a link stood in its place.
    #[error("cannot create `{}`", path.display())]
    Folder {
        /// The folder.
        path: PathBuf,
        /// The cause.
        #[source]
        source: crate::lock_file::LockFileError,
    },
    /// Its audit (or A/B session) stopped: the device vanished, timed out, …
    #[error(transparent)]
    Stopped(SessionError),
}

/// One device's audit.
#[derive(Debug)]
pub(crate) struct Seat<T = AuditReport> {
    /// The device.
    pub(crate) member: Member,
    /// What it gave, or why it has nothing.
    pub(crate) outcome: Result<T, SeatError>,
}
