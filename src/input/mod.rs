//! Reading input: a file into memory with a size bound (a generated or hostile file is refused
//! from its size, before a byte of it is read), its text into serde types with the key path and
//! position of any error, and durations as people write them.

mod duration;
mod parse;

pub use duration::parse_duration;
pub(crate) use parse::{parse_json, parse_yaml};

use std::io;
use std::path::{Path, PathBuf};

/// Largest report, ledger or evidence text dwpipe reads whole (what dwpipe writes is
/// kilobytes to a few megabytes; a lab of hundreds of devices stays far below this).
pub(crate) const MAX_REPORT_BYTES: u64 = 64 * 1024 * 1024;

/// Why an input file was not read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ReadError {
    /// The OS refused.
    #[error("cannot read `{}`", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// The file is larger than such inputs may be.
    #[error("`{}` is {size} bytes; {what} may be at most {limit} bytes", path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// What it was meant to be (`a pack`).
        what: &'static str,
        /// Its size.
        size: u64,
        /// The bound.
        limit: u64,
    },
}

/// Reads `path` if it is at most `limit` bytes; `what` names the kind of input in messages.
pub(crate) fn read_bounded(
    path: &Path,
    limit: u64,
    what: &'static str,
) -> Result<Vec<u8>, ReadError> {
    let io = |source| ReadError::Io {
        path: path.to_owned(),
        source,
    };
    let size = std::fs::metadata(path).map_err(io)?.len();
    if size > limit {
        return Err(ReadError::TooLarge {
            path: path.to_owned(),
            what,
            size,
            limit,
        });
    }
    std::fs::read(path).map_err(io)
}
