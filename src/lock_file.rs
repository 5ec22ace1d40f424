//! Lock files in places other people can write: the host's lease folder (every user's jobs
//! meet there, often under the temporary folder), and a workspace's `.dwpipe/` (the agent
//! being gated writes there). Such a place can hold what someone planted: a link to a file
//! the job may write as root, a FIFO that blocks an open for ever, a hard link to a file it
//! must not touch. So a lock file is never followed (`O_NOFOLLOW`), never opened unless it is
//! a regular file with one name (FIFOs, folders and devices are refused by type before any
//! open), never chmodded unless this open created it, and never truncated: who holds it is
//! written over its first bytes as a fixed-width line. Its folder is checked first: owned by
//! this user or root, and when others may write it, sticky (so that nobody else can replace a
//! file in it). Every refusal says what was found and how to clear it.

use std::fs::{File, OpenOptions, TryLockError};
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// The bytes a holder's line takes (padded with spaces): written over the same bytes each
/// time, so that the file never needs truncating.
const HOLDER_BYTES: usize = 255;

/// Why a lock file (or its folder) is refused.
#[derive(Debug, thiserror::Error)]
pub enum LockFileError {
    /// The folder is not one this job may trust.
    #[error("`{}` {why}", folder.display())]
    Folder {
        /// The folder.
        folder: PathBuf,
        /// What was found.
        why: String,
    },
    /// Something other than a lock file stands where the lock file goes.
    #[error("`{}` is {found}: dwpipe makes it itself, so someone else put that there", path.display())]
    Planted {
        /// The lock file's path.
        path: PathBuf,
        /// What it is (`a symbolic link to /etc/passwd`, `a FIFO`, …).
        found: String,
    },
    /// The OS refused.
    #[error("cannot open the lock file `{}`", path.display())]
    Io {
        /// The lock file's path (or its folder's).
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

impl LockFileError {
    /// What to do about it.
    pub(crate) fn fix(&self) -> String {
        match self {
            LockFileError::Folder { folder, .. } => format!(
                "use a folder only you (or root) own, or one with the sticky bit (`chmod +t {}`); for the device leases, set DWPIPE_LEASES to such a folder",
                folder.display()
            ),
            LockFileError::Planted { path, .. } => format!(
                "look at who made it, remove it (`rm {}`) and run again: dwpipe makes its lock files itself",
                path.display()
            ),
            LockFileError::Io { .. } => {
                "check the folder's permissions and the disk, then run again".to_owned()
            }
        }
    }
}

/// An open lock file.
#[derive(Debug)]
pub(crate) struct LockFile {
    file: File,
    /// Whether it was opened for writing (its holder's line can be written).
    writable: bool,
}

/// This process's effective user.
fn euid() -> u32 {
    // Read from a file this process owns: `/proc/self` belongs to its effective user. A
    // system without `/proc` trusts only root's folders, which is the safe side.
    std::fs::metadata("/proc/self").map_or(0, |m| m.uid())
}

/// Checks that `folder` (made, open to every user and sticky, when `shared` asks it and it is
/// missing) is one whose files nobody but this user and root can replace. A shared folder's
/// path is the operator's own (links in it are followed: what is checked is the folder it
/// names); a folder of dwpipe's own in a workspace (`shared` false: `.dwpipe/…`, which the
/// agent being gated can write) is never reached through a link planted for it or for its
/// `.dwpipe`.
pub(crate) fn folder(folder: &Path, shared: bool) -> Result<PathBuf, LockFileError> {
    let io = |source| LockFileError::Io {
        path: folder.to_owned(),
        source,
    };
    if !shared {
        planted_links(folder)?;
    }
    match std::fs::create_dir(folder) {
        Ok(()) => {
            // Made here: opened to every user's jobs, as the temporary folder is, through the
            // folder's own handle (never the path, which could be swapped meanwhile).
            if shared {
                let made = OpenOptions::new()
                    .read(true)
                    .custom_flags(libc::O_NOFOLLOW | libc::O_DIRECTORY)
                    .open(folder)
                    .map_err(io)?;
                made.set_permissions(std::fs::Permissions::from_mode(0o1777))
                    .map_err(io)?;
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::create_dir_all(folder).map_err(io)?;
            return self::folder(folder, shared);
        }
        Err(e) => return Err(io(e)),
    }
    let real = folder.canonicalize().map_err(io)?;
    let meta = std::fs::metadata(&real).map_err(io)?;
    let refuse = |why: String| LockFileError::Folder {
        folder: real.clone(),
        why,
    };
    if !meta.is_dir() {
        return Err(refuse("is not a folder".to_owned()));
    }
    let me = euid();
    if meta.uid() != me && meta.uid() != 0 {
        return Err(refuse(format!(
            "belongs to user {} (this job runs as {me}): that user could replace the files in it",
            meta.uid()
        )));
    }
    let mode = meta.mode();
    if mode & 0o022 != 0 && mode & 0o1000 == 0 {
        return Err(refuse(format!(
            "may be written by {} without the sticky bit (mode {:o}): another user could replace the files in it",
            if mode & 0o002 != 0 {
                "anyone"
            } else {
                "its group"
            },
            mode & 0o7777
        )));
    }
    Ok(real)
}

/// Refuses `folder`, or a `.dwpipe` it is in, when it is a symbolic link: dwpipe makes those
/// folders itself, so a link there was put by someone else (to make dwpipe write where it
/// leads).
pub(crate) fn planted_links(folder: &Path) -> Result<(), LockFileError> {
    let mut at = Some(folder);
    let mut first = true;
    while let Some(path) = at {
        let own = first || path.file_name().is_some_and(|n| n == ".dwpipe");
        if own
            && let Ok(meta) = std::fs::symlink_metadata(path)
            && meta.file_type().is_symlink()
        {
            return Err(LockFileError::Planted {
                path: path.to_owned(),
                found: kind_of(path, &meta),
            });
        }
        first = false;
        at = path.parent().filter(|p| !p.as_os_str().is_empty());
    }
    Ok(())
}

/// What a path that is not a regular file is, in words.
fn kind_of(path: &Path, meta: &std::fs::Metadata) -> String {
    use std::os::unix::fs::FileTypeExt;
    let kind = meta.file_type();
    if kind.is_symlink() {
        let target = std::fs::read_link(path).map_or_else(
            |_| "?".to_owned(),
            |t| crate::text::one_line(&t.display().to_string(), 200).into_owned(),
        );
        format!("a symbolic link to {target}")
    } else if kind.is_dir() {
        "a folder".to_owned()
    } else if kind.is_fifo() {
        "a FIFO".to_owned()
    } else if kind.is_char_device() {
        "a character device".to_owned()
    } else if kind.is_block_device() {
        "a block device".to_owned()
    } else if kind.is_socket() {
        "a socket".to_owned()
    } else {
        "not a regular file".to_owned()
    }
}

impl LockFile {
    /// Opens the lock file `name` in `folder` (checked by [`folder`] first), making it (open
    /// to every user's jobs: another user's job may lease the device next) when it is not
    /// there.
    pub(crate) fn open(folder: &Path, name: &str) -> Result<LockFile, LockFileError> {
        let path = folder.join(name);
        let io = |source| LockFileError::Io {
            path: path.clone(),
            source,
        };
        let flags = libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC;
        // Made by this open: its mode is this job's to set.
        match OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(0o666)
            .custom_flags(flags)
            .open(&path)
        {
            Ok(file) => {
                file.set_permissions(std::fs::Permissions::from_mode(0o666))
                    .map_err(io)?;
                return Ok(LockFile {
                    file,
                    writable: true,
                });
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(io(e)),
        }
        // There already: looked at before it is opened (a FIFO or a device is never opened),
        // and the file opened checked to be the one looked at.
        let planted = |found: String| LockFileError::Planted {
            path: path.clone(),
            found,
        };
        let seen = std::fs::symlink_metadata(&path).map_err(io)?;
        if !seen.file_type().is_file() {
            return Err(planted(kind_of(&path, &seen)));
        }
        let open = |write: bool| {
            OpenOptions::new()
                .read(true)
                .write(write)
                .custom_flags(flags)
                .open(&path)
        };
        let (file, writable) = match open(true) {
            Ok(file) => (file, true),
            // Another user's lock file: a lock needs no more than reading it.
            Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
                (open(false).map_err(io)?, false)
            }
            Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
                return Err(planted("a symbolic link".to_owned()));
            }
            Err(e) => return Err(io(e)),
        };
        let opened = file.metadata().map_err(io)?;
        if !opened.file_type().is_file() || (opened.dev(), opened.ino()) != (seen.dev(), seen.ino())
        {
            return Err(planted(format!(
                "replaced while it was opened (now {})",
                kind_of(&path, &opened)
            )));
        }
        if opened.nlink() != 1 {
            return Err(planted(format!(
                "a file with {} names (a hard link to another file)",
                opened.nlink()
            )));
        }
        Ok(LockFile { file, writable })
    }

    /// Takes the lock if it is free: `false` when another holds it.
    pub(crate) fn try_lock(&self) -> std::io::Result<bool> {
        match self.file.try_lock() {
            Ok(()) => Ok(true),
            Err(TryLockError::WouldBlock) => Ok(false),
            Err(TryLockError::Error(e)) => Err(e),
        }
    }

    /// Writes `holder` (one line) over the file's first bytes, for whoever waits to read: a
    /// courtesy, so a file that cannot be written is left as it is.
    pub(crate) fn say(&self, holder: &str) {
        if !self.writable {
            return;
        }
        let mut line: String = crate::text::one_line(holder, HOLDER_BYTES).into_owned();
        while line.len() > HOLDER_BYTES {
            line.pop();
        }
        let mut bytes = format!("{line:<HOLDER_BYTES$}").into_bytes();
        bytes.push(b'\n');
        let _ = self.file.write_all_at(&bytes, 0);
    }

    /// What its holder wrote: its first line, trimmed (`None` when empty or unreadable).
    pub(crate) fn said(&self) -> Option<String> {
        said(&self.file)
    }
}

/// The first line of `file`, trimmed.
fn said(file: &File) -> Option<String> {
    let mut bytes = vec![0; HOLDER_BYTES + 1];
    let n = file.read_at(&mut bytes, 0).ok()?;
    let text = String::from_utf8_lossy(&bytes[..n]);
    let line = text.lines().next().unwrap_or("").trim();
    (!line.is_empty()).then(|| crate::text::one_line(line, crate::text::LINE).into_owned())
}

/// What the holder of the lock file `name` in `folder` wrote, read without following a link
/// and only from a regular file (never waiting on a FIFO).
pub(crate) fn holder(folder: &Path, name: &str) -> Option<String> {
    let path = folder.join(name);
    if !std::fs::symlink_metadata(&path).ok()?.file_type().is_file() {
        return None;
    }
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(&path)
        .ok()?;
    said(&file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lock_file_is_made_held_and_said_once_per_holder_without_truncating() {
        let dir = tempfile::tempdir().unwrap();
        let folder = folder(&dir.path().join("leases"), true).unwrap();
        let mode = std::fs::metadata(&folder).unwrap().mode() & 0o7777;
        assert_eq!(mode, 0o1777);
        let first = LockFile::open(&folder, "a.lock").unwrap();
        assert!(first.try_lock().unwrap());
        first.say("dwpipe audit (pid 1 on h), since now");
        let second = LockFile::open(&folder, "a.lock").unwrap();
        assert!(!second.try_lock().unwrap());
        assert_eq!(
            holder(&folder, "a.lock").as_deref(),
            Some("dwpipe audit (pid 1 on h), since now")
        );
        drop(first);
        assert!(second.try_lock().unwrap());
        second.say("x");
        assert_eq!(second.said().as_deref(), Some("x"));
        let file_mode = std::fs::metadata(folder.join("a.lock")).unwrap().mode() & 0o777;
        assert_eq!(file_mode, 0o666);
    }

    #[test]
    fn links_fifos_folders_and_hard_links_are_refused_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let folder = folder(&dir.path().join("leases"), true).unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "root:x:0:0\n").unwrap();
        std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o600)).unwrap();
        std::os::unix::fs::symlink(&victim, folder.join("link.lock")).unwrap();
        std::fs::hard_link(&victim, folder.join("hard.lock")).unwrap();
        std::fs::create_dir(folder.join("dir.lock")).unwrap();
        assert!(
            std::process::Command::new("mkfifo")
                .arg(folder.join("fifo.lock"))
                .status()
                .unwrap()
                .success()
        );
        for (name, found) in [
            ("link.lock", "a symbolic link to"),
            ("hard.lock", "2 names"),
            ("dir.lock", "a folder"),
            ("fifo.lock", "a FIFO"),
        ] {
            let e = LockFile::open(&folder, name).unwrap_err();
            assert!(e.to_string().contains(found), "{name}: {e}");
            assert!(matches!(e, LockFileError::Planted { .. }), "{name}: {e}");
        }
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "root:x:0:0\n");
        let mode = std::fs::metadata(&victim).unwrap().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }

    #[test]
    fn a_folder_others_may_write_without_the_sticky_bit_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let open = dir.path().join("open");
        std::fs::create_dir(&open).unwrap();
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
        let e = folder(&open, true).unwrap_err();
        assert!(e.to_string().contains("without the sticky bit"), "{e}");
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o1777)).unwrap();
        folder(&open, true).unwrap();
    }
}
