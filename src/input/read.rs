//! Reading what users and devices give dwpipe: bounded, never through a FIFO or a device, with
//! a typed error naming the file.

use std::io;
use std::path::{Path, PathBuf};

/// Largest report, ledger or evidence text dwpipe reads whole (what dwpipe writes is
/// kilobytes to a few megabytes; a lab of hundreds of devices stays far below this).
pub(crate) const MAX_REPORT_BYTES: u64 = 64 * 1024 * 1024;

/// Why an input file was not read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The OS refused.
    #[error("cannot read `{}`", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// The file is larger than such inputs may be.
    #[error("`{}` is larger than {limit} bytes, the most {what} may be", path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// What it was meant to be (`a pack`).
        what: &'static str,
        /// The bound.
        limit: u64,
    },
    /// Not a regular file: a FIFO, a device, a socket or a folder never ends or never
    /// answers the way a file does, so it is refused by its type before a byte is read.
    #[error("`{}` is {kind}, not a file; {what} is read from a regular file", path.display())]
    NotAFile {
        /// The path.
        path: PathBuf,
        /// What it was meant to be.
        what: &'static str,
        /// What it is (`a FIFO`, `a character device`, …).
        kind: &'static str,
    },
}

impl ReadError {
    /// The stable code of the refusal.
    pub(crate) fn code(&self) -> &'static str {
        match self {
            ReadError::Io { .. } => "E_INPUT_UNREADABLE",
            ReadError::TooLarge { .. } => "E_INPUT_TOO_LARGE",
            ReadError::NotAFile { .. } => "E_INPUT_NOT_A_FILE",
        }
    }

    /// The refusal as a diagnostic: a file that cannot be read under `io_code` with `fix`
    /// (the command's own words for a missing input), one too large or not a file under
    /// `E_INPUT_TOO_LARGE` / `E_INPUT_NOT_A_FILE`.
    pub(crate) fn diagnostic(&self, io_code: &str, fix: &str) -> crate::diagnostic::Diagnostic {
        let (code, fix) = match self {
            ReadError::Io { .. } => (io_code, fix),
            ReadError::TooLarge { .. } => (
                self.code(),
                "pass the file dwpipe or the device wrote, not another",
            ),
            ReadError::NotAFile { .. } => {
                (self.code(), "save it to a file first and pass that file")
            }
        };
        crate::diagnostic::Diagnostic::error(code, crate::diagnostic::chain(self)).fix(fix)
    }
}

/// Opens `path` for reading if it is a regular file (symlinks followed). The open never
/// blocks (a FIFO without a writer would), and the type is checked on the opened file.
pub(crate) fn open_input(path: &Path, what: &'static str) -> Result<std::fs::File, ReadError> {
    let io = |source| ReadError::Io {
        path: path.to_owned(),
        source,
    };
    let file = open_nonblocking(path).map_err(io)?;
    let kind = file.metadata().map_err(io)?.file_type();
    if kind.is_file() {
        return Ok(file);
    }
    Err(ReadError::NotAFile {
        path: path.to_owned(),
        what,
        kind: kind_words(kind),
    })
}

/// Opens `path` for reading without waiting for a writer (Unix: a FIFO's open would).
#[cfg(unix)]
fn open_nonblocking(path: &Path) -> io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

/// Opens `path` for reading. Windows keeps pipes out of the file system's names (`\\.\pipe\`
/// is refused below as not a regular file), so no open of a path waits for a writer; a folder
/// opens (so that it is named as one, not as a denied file) with backup semantics, which
/// grant no access by themselves.
#[cfg(windows)]
fn open_nonblocking(path: &Path) -> io::Result<std::fs::File> {
    use std::os::windows::fs::OpenOptionsExt;
    const FILE_FLAG_BACKUP_SEMANTICS: u32 = 0x0200_0000;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(FILE_FLAG_BACKUP_SEMANTICS)
        .open(path)
}

/// What a file of `kind` is, in words (`a file`, `a folder`, `a FIFO`, …).
pub(crate) fn kind_words(kind: std::fs::FileType) -> &'static str {
    if kind.is_file() {
        return "a file";
    } else if kind.is_dir() {
        return "a folder";
    } else if kind.is_symlink() {
        return "a symbolic link";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO";
        } else if kind.is_char_device() {
            return "a character device";
        } else if kind.is_block_device() {
            return "a block device";
        } else if kind.is_socket() {
            return "a socket";
        }
    }
    "not a regular file"
}

/// Reads `path` whole if it is a regular file of at most `limit` bytes (a file that grows
/// while it is read stops at the limit too); `what` names the kind of input in messages.
pub(crate) fn read_bounded(
    path: &Path,
    limit: u64,
    what: &'static str,
) -> Result<Vec<u8>, ReadError> {
    use std::io::Read;
    let file = open_input(path, what)?;
    let io = |source| ReadError::Io {
        path: path.to_owned(),
        source,
    };
    let too_large = || ReadError::TooLarge {
        path: path.to_owned(),
        what,
        limit,
    };
    let size = file.metadata().map_err(io)?.len();
    if size > limit {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    file.take(limit + 1).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(too_large());
    }
    Ok(bytes)
}

/// Reads `path` whole as text (see [`read_bounded`]); not UTF-8 is an I/O error of its own.
pub(crate) fn read_text(path: &Path, limit: u64, what: &'static str) -> Result<String, ReadError> {
    let bytes = read_bounded(path, limit, what)?;
    String::from_utf8(bytes).map_err(|_| ReadError::Io {
        path: path.to_owned(),
        source: io::Error::new(io::ErrorKind::InvalidData, "it is not UTF-8 text"),
    })
}

/// SHA-256 (hex) of a regular file of any size, streamed in fixed memory.
pub(crate) fn hash_file(path: &Path, what: &'static str) -> Result<String, ReadError> {
    use std::io::Read;
    let mut file = open_input(path, what)?;
    let mut hasher = crate::hash::Hasher::new();
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        match file.read(&mut buffer) {
            Ok(0) => return Ok(hasher.finish()),
            Ok(n) => hasher.update(&buffer[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(source) => {
                return Err(ReadError::Io {
                    path: path.to_owned(),
                    source,
                });
            }
        }
    }
}
