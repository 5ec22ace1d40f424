//! Lock files in places other people can write: the host's lease folder (every user's jobs
//! meet there, often under the temporary folder), and a workspace's `.dwpipe/` (the agent
//! being gated writes there). Such a place can hold what someone planted: a link to a file
//! the job may write as root, a FIFO that blocks an open for ever, a hard link to a file it
//! must not touch, or a link on the way to the folder itself. So a folder is walked to one
//! component at a time, each opened relative to the one before (`openat`) without following
//! a link, and held open: every lock file is opened in that handle, never by a path someone
//! could swap meanwhile. On the way to a shared folder every folder must be this user's or
//! root's and, when others may write it, sticky; a link is followed only where nobody else
//! could have put it; every missing level is made sticky and open to every user. In a
//! workspace, what dwpipe makes (`.dwpipe` and below) is never a link. A lock file is never
//! followed, never opened unless it is a regular file with one name (FIFOs, folders and
//! devices are refused by type before any open), made `0644` (nobody else can hard-link it,
//! and a lock needs only reading), never chmodded unless this open made it, and never
//! truncated: who holds it is written over its first bytes as a fixed-width line. A held lock
//! file removed or replaced (by its owner: a sticky folder lets nobody else) is a lease lost,
//! said at the holder's next call. Every refusal says what was found and how to clear it.

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::fs::{File, TryLockError};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::fs::FileExt;
use std::path::{Component, Path, PathBuf};

use nix::errno::Errno;
use nix::fcntl::{AtFlags, OFlag, openat, readlinkat};
use nix::sys::stat::{FileStat, Mode, SFlag, fchmod, fstat, fstatat, mkdirat};

/// The bytes a holder's line takes (padded with spaces): written over the same bytes each
/// time, so that the file never needs truncating.
const HOLDER_BYTES: usize = 255;

/// Links followed on the way to a folder, at most.
const MAX_LINKS: usize = 40;

/// Why a lock file (or its folder) is refused.
#[derive(Debug, thiserror::Error)]
pub enum LockFileError {
    /// The folder is not one this job may trust.
    #[error("`{}` {why}", folder.display())]
    Folder {
        /// The folder (or the part of its path found wanting).
        folder: PathBuf,
        /// What was found.
        why: String,
    },
    /// Something other than what dwpipe makes stands where it goes.
    #[error("`{}` is {found}: dwpipe makes it itself, so someone else put that there", path.display())]
    Planted {
        /// Its path.
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
                "use a folder whose every level only you (or root) can change, or one with the sticky bit (`chmod +t {}`); for the device leases, set DWPIPE_LEASES to such a folder",
                folder.display()
            ),
            LockFileError::Planted { path, .. } => format!(
                "look at who made it, remove it (`rm {}`) and run again: dwpipe makes its lock files and folders itself",
                path.display()
            ),
            LockFileError::Io { .. } => {
                "check the folder's permissions and the disk, then run again".to_owned()
            }
        }
    }
}

/// A folder, walked to and held open: lock files are opened in it, never by its path.
#[derive(Debug)]
pub(crate) struct Folder {
    fd: OwnedFd,
    path: PathBuf,
}

impl Folder {
    /// `name` in it, for messages.
    pub(crate) fn join(&self, name: impl AsRef<Path>) -> PathBuf {
        self.path.join(name)
    }
}

/// An open lock file.
#[derive(Debug)]
pub(crate) struct LockFile {
    file: File,
    /// Whether it was opened for writing (its holder's line can be written).
    writable: bool,
    /// Its folder and name, to tell whether it is still the file there.
    folder: OwnedFd,
    name: OsString,
    path: PathBuf,
}

/// This process's effective user.
fn euid() -> u32 {
    nix::unistd::geteuid().as_raw()
}

fn io(path: &Path) -> impl Fn(Errno) -> LockFileError + '_ {
    move |errno| LockFileError::Io {
        path: path.to_owned(),
        source: std::io::Error::from(errno),
    }
}

/// A folder's own flags: read only, never through a link, closed in children.
fn folder_flags() -> OFlag {
    OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC
}

/// Refuses a folder on the way that someone other than this user or root could change: owned
/// by another user, or writable by others without the sticky bit.
fn trusted(stat: &FileStat, path: &Path) -> Result<(), LockFileError> {
    let refuse = |why: String| LockFileError::Folder {
        folder: path.to_owned(),
        why,
    };
    let me = euid();
    if stat.st_uid != me && stat.st_uid != 0 {
        return Err(refuse(format!(
            "belongs to user {} (this job runs as {me}): that user could replace what is in it",
            stat.st_uid
        )));
    }
    let mode = stat.st_mode;
    if mode & 0o022 != 0 && mode & 0o1000 == 0 {
        return Err(refuse(format!(
            "may be written by {} without the sticky bit (mode {:o}): another user could replace what is in it",
            if mode & 0o002 != 0 {
                "anyone"
            } else {
                "its group"
            },
            mode & 0o7777
        )));
    }
    Ok(())
}

fn is(stat: &FileStat, kind: SFlag) -> bool {
    SFlag::from_bits_truncate(stat.st_mode) & SFlag::S_IFMT == kind
}

/// Opens (making it when `make`, with `mode`) the folder `name` in `at`: never a link, and the
/// folder opened is the one looked at.
fn step(
    at: &OwnedFd,
    name: &OsStr,
    path: &Path,
    make: Option<Mode>,
) -> Result<Result<(OwnedFd, FileStat), FileStat>, LockFileError> {
    let seen = match fstatat(at, name, AtFlags::AT_SYMLINK_NOFOLLOW) {
        Ok(seen) => seen,
        Err(Errno::ENOENT) if make.is_some() => {
            let mode = make.unwrap_or(Mode::empty());
            match mkdirat(at, name, mode) {
                Ok(()) | Err(Errno::EEXIST) => {}
                Err(e) => return Err(io(path)(e)),
            }
            let made = openat(at, name, folder_flags(), Mode::empty()).map_err(io(path))?;
            let stat = fstat(&made).map_err(io(path))?;
            // Made here: its mode is this job's to set (the umask took from it).
            if stat.st_uid == euid() {
                fchmod(&made, mode).map_err(io(path))?;
            }
            let stat = fstat(&made).map_err(io(path))?;
            return Ok(Ok((made, stat)));
        }
        Err(e) => return Err(io(path)(e)),
    };
    if is(&seen, SFlag::S_IFLNK) {
        return Ok(Err(seen));
    }
    if !is(&seen, SFlag::S_IFDIR) {
        return Err(LockFileError::Folder {
            folder: path.to_owned(),
            why: "is not a folder".to_owned(),
        });
    }
    let fd = openat(at, name, folder_flags(), Mode::empty()).map_err(|e| match e {
        Errno::ELOOP | Errno::ENOTDIR => LockFileError::Planted {
            path: path.to_owned(),
            found: "replaced by a link while it was walked to".to_owned(),
        },
        e => io(path)(e),
    })?;
    let stat = fstat(&fd).map_err(io(path))?;
    if (stat.st_dev, stat.st_ino) != (seen.st_dev, seen.st_ino) {
        return Err(LockFileError::Planted {
            path: path.to_owned(),
            found: "replaced while it was walked to".to_owned(),
        });
    }
    Ok(Ok((fd, stat)))
}

/// Opens `folder` (made when missing), walked to one level at a time. A shared folder (the
/// host's leases, `shared`): every level this user's or root's and, when others may write
/// it, sticky; a link followed only where nobody else could have put it; every missing level
/// made sticky and open to every user. A folder of dwpipe's own in a workspace (`shared`
/// false: `.dwpipe/…`, which the agent being gated can write): the workspace taken as it is,
/// `.dwpipe` and everything below it never a link.
pub(crate) fn folder(folder: &Path, shared: bool) -> Result<Folder, LockFileError> {
    let absolute = if folder.is_absolute() {
        folder.to_owned()
    } else {
        std::env::current_dir()
            .map_err(|source| LockFileError::Io {
                path: folder.to_owned(),
                source,
            })?
            .join(folder)
    };
    if shared {
        walk_shared(&absolute)
    } else {
        walk_own(&absolute)
    }
}

/// The components of `path` (`..` refused: the walk does not go back up).
fn parts(path: &Path) -> Result<VecDeque<OsString>, LockFileError> {
    path.components()
        .filter_map(|c| match c {
            Component::Normal(name) => Some(Ok(name.to_owned())),
            Component::ParentDir => Some(Err(LockFileError::Folder {
                folder: path.to_owned(),
                why: "holds `..`: give the folder's own path".to_owned(),
            })),
            _ => None,
        })
        .collect()
}

fn root() -> Result<(OwnedFd, FileStat), LockFileError> {
    let root = Path::new("/");
    let fd = openat(
        nix::fcntl::AT_FDCWD,
        root,
        OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC,
        Mode::empty(),
    )
    .map_err(io(root))?;
    let stat = fstat(&fd).map_err(io(root))?;
    Ok((fd, stat))
}

fn walk_shared(path: &Path) -> Result<Folder, LockFileError> {
    let mut queue = parts(path)?;
    let (mut at, mut stat) = root()?;
    trusted(&stat, Path::new("/"))?;
    let mut walked = PathBuf::from("/");
    let mut links = 0;
    while let Some(name) = queue.pop_front() {
        let here = walked.join(&name);
        let sticky_open = Mode::from_bits_truncate(0o1777);
        match step(&at, &name, &here, Some(sticky_open))? {
            Ok((next, next_stat)) => {
                trusted(&next_stat, &here)?;
                (at, stat) = (next, next_stat);
                walked = here;
            }
            Err(link) => {
                // Followed only where nobody but root and this user could have put it: a
                // folder others cannot write, or a sticky one where the link is theirs.
                let others_write = stat.st_mode & 0o022 != 0;
                if others_write && link.st_uid != euid() && link.st_uid != 0 {
                    return Err(LockFileError::Planted {
                        path: here.clone(),
                        found: format!(
                            "{}, made by user {} in a folder anyone may write",
                            link_words(&at, &name),
                            link.st_uid
                        ),
                    });
                }
                links += 1;
                if links > MAX_LINKS {
                    return Err(LockFileError::Folder {
                        folder: here,
                        why: format!("leads through more than {MAX_LINKS} links"),
                    });
                }
                let target = PathBuf::from(readlinkat(&at, name.as_os_str()).map_err(io(&here))?);
                let mut ahead = parts(&target)?;
                ahead.extend(queue);
                queue = ahead;
                if target.is_absolute() {
                    (at, stat) = root()?;
                    walked = PathBuf::from("/");
                }
            }
        }
    }
    Ok(Folder {
        fd: at,
        path: walked,
    })
}

fn walk_own(path: &Path) -> Result<Folder, LockFileError> {
    // What dwpipe makes: `.dwpipe` and below (else the folder itself).
    let names: Vec<&OsStr> = path.iter().collect();
    let own_from = names
        .iter()
        .position(|n| *n == OsStr::new(".dwpipe"))
        .unwrap_or(names.len().saturating_sub(1));
    let base: PathBuf = names[..own_from].iter().collect();
    walk_below(&base, &names[own_from..])
}

/// Opens `base` as it is given (made when missing), then walks `names` below it, each made
/// when missing and never a link.
fn walk_below(base: &Path, names: &[&OsStr]) -> Result<Folder, LockFileError> {
    std::fs::create_dir_all(base).map_err(|source| LockFileError::Io {
        path: base.to_owned(),
        source,
    })?;
    let mut at = openat(
        nix::fcntl::AT_FDCWD,
        base,
        OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC,
        Mode::empty(),
    )
    .map_err(io(base))?;
    let mut walked = base.to_owned();
    for name in names {
        let here = walked.join(name);
        match step(&at, name, &here, Some(Mode::from_bits_truncate(0o777)))? {
            Ok((next, _)) => at = next,
            Err(_) => {
                return Err(LockFileError::Planted {
                    found: link_words(&at, name),
                    path: here,
                });
            }
        }
        walked = here;
    }
    Ok(Folder {
        fd: at,
        path: walked,
    })
}

/// Makes `dir`, a folder dwpipe keeps its own files in under `base` (an audit's evidence
/// under its `--out`), refusing a link at any level below `base`: someone else put it there
/// to have dwpipe write where it leads.
pub(crate) fn own_folder(base: &Path, dir: &Path) -> Result<(), LockFileError> {
    let below = dir.strip_prefix(base).map_err(|_| LockFileError::Folder {
        folder: dir.to_owned(),
        why: format!("is not under `{}`", base.display()),
    })?;
    let names: Vec<&OsStr> = below.iter().collect();
    walk_below(base, &names).map(drop)
}

/// Refuses what stands at `path` where dwpipe is about to make a file of its own (a pull's
/// temporary file): anything there, a link above all, was put by someone else.
pub(crate) fn unplanted(path: &Path) -> Result<(), LockFileError> {
    match std::fs::symlink_metadata(path) {
        Err(_) => Ok(()),
        Ok(meta) => Err(LockFileError::Planted {
            path: path.to_owned(),
            found: kind_of(path, &meta),
        }),
    }
}

/// `a symbolic link to TARGET`, the link `name` in `at` said in words.
fn link_words(at: &OwnedFd, name: &OsStr) -> String {
    let target = readlinkat(at, name).map_or_else(
        |_| "?".to_owned(),
        |t| crate::text::one_line(&t.to_string_lossy(), 200).into_owned(),
    );
    format!("a symbolic link to {target}")
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
    let kind = meta.file_type();
    if kind.is_symlink() {
        let target = std::fs::read_link(path).map_or_else(
            |_| "?".to_owned(),
            |t| crate::text::one_line(&t.display().to_string(), 200).into_owned(),
        );
        format!("a symbolic link to {target}")
    } else {
        kind_words(SFlag::from_bits_truncate(
            std::os::unix::fs::MetadataExt::mode(meta),
        ))
    }
}

/// What a file of type `kind` is, in words.
fn kind_words(kind: SFlag) -> String {
    match kind & SFlag::S_IFMT {
        SFlag::S_IFLNK => "a symbolic link",
        SFlag::S_IFDIR => "a folder",
        SFlag::S_IFIFO => "a FIFO",
        SFlag::S_IFCHR => "a character device",
        SFlag::S_IFBLK => "a block device",
        SFlag::S_IFSOCK => "a socket",
        SFlag::S_IFREG => "a file",
        _ => "not a regular file",
    }
    .to_owned()
}

impl LockFile {
    /// Opens the lock file `name` in `folder` (opened by [`folder`] first), making it (`0644`:
    /// another user's job needs only to read it to lock it) when it is not there.
    pub(crate) fn open(folder: &Folder, name: &str) -> Result<LockFile, LockFileError> {
        let path = folder.join(name);
        let io = io(&path);
        let flags = OFlag::O_NOFOLLOW | OFlag::O_NONBLOCK | OFlag::O_CLOEXEC;
        let mode = Mode::from_bits_truncate(0o644);
        let own = |file: OwnedFd, writable| -> Result<LockFile, LockFileError> {
            Ok(LockFile {
                file: File::from(file),
                writable,
                folder: folder.fd.try_clone().map_err(|source| LockFileError::Io {
                    path: path.clone(),
                    source,
                })?,
                name: OsString::from(name),
                path: path.clone(),
            })
        };
        // Made by this open: its mode is this job's (the umask may take from it, never add).
        match openat(
            &folder.fd,
            name,
            OFlag::O_RDWR | OFlag::O_CREAT | OFlag::O_EXCL | flags,
            mode,
        ) {
            Ok(file) => return own(file, true),
            Err(Errno::EEXIST) => {}
            Err(e) => return Err(io(e)),
        }
        // There already: looked at before it is opened (a FIFO or a device is never opened),
        // and the file opened checked to be the one looked at.
        let planted = |found: String| LockFileError::Planted {
            path: path.clone(),
            found,
        };
        let seen = fstatat(&folder.fd, name, AtFlags::AT_SYMLINK_NOFOLLOW).map_err(&io)?;
        if !is(&seen, SFlag::S_IFREG) {
            let found = if is(&seen, SFlag::S_IFLNK) {
                link_words(&folder.fd, OsStr::new(name))
            } else {
                kind_words(SFlag::from_bits_truncate(seen.st_mode))
            };
            return Err(planted(found));
        }
        let (file, writable) = match openat(&folder.fd, name, OFlag::O_RDWR | flags, Mode::empty())
        {
            Ok(file) => (file, true),
            // Another user's lock file: a lock needs no more than reading it.
            Err(Errno::EACCES) => (
                openat(&folder.fd, name, OFlag::O_RDONLY | flags, Mode::empty()).map_err(&io)?,
                false,
            ),
            Err(Errno::ELOOP) => return Err(planted("a symbolic link".to_owned())),
            Err(e) => return Err(io(e)),
        };
        let opened = fstat(&file).map_err(&io)?;
        if !is(&opened, SFlag::S_IFREG)
            || (opened.st_dev, opened.st_ino) != (seen.st_dev, seen.st_ino)
        {
            return Err(planted(format!(
                "replaced while it was opened (now {})",
                kind_words(SFlag::from_bits_truncate(opened.st_mode))
            )));
        }
        if opened.st_nlink != 1 {
            return Err(planted(format!(
                "a file with {} names (a hard link to another file)",
                opened.st_nlink
            )));
        }
        own(file, writable)
    }

    /// Takes the lock if it is free: `false` when another holds it.
    pub(crate) fn try_lock(&self) -> std::io::Result<bool> {
        match self.file.try_lock() {
            Ok(()) => Ok(true),
            Err(TryLockError::WouldBlock) => Ok(false),
            Err(TryLockError::Error(e)) => Err(e),
        }
    }

    /// Whether the file locked is no longer the one its folder holds by its name (its owner
    /// removed or replaced it: another job may lock the new one): why, or `None`.
    pub(crate) fn replaced(&self) -> Option<String> {
        let held = fstat(self.file.as_fd()).ok()?;
        let gone = || {
            format!(
                "its lock file `{}` was removed or replaced while it was held: another job may have taken the device",
                self.path.display()
            )
        };
        match fstatat(
            &self.folder,
            self.name.as_os_str(),
            AtFlags::AT_SYMLINK_NOFOLLOW,
        ) {
            Ok(now) if (now.st_dev, now.st_ino) == (held.st_dev, held.st_ino) => None,
            _ => Some(gone()),
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
pub(crate) fn holder(folder: &Folder, name: &str) -> Option<String> {
    let seen = fstatat(&folder.fd, name, AtFlags::AT_SYMLINK_NOFOLLOW).ok()?;
    if !is(&seen, SFlag::S_IFREG) {
        return None;
    }
    let file = openat(
        &folder.fd,
        name,
        OFlag::O_RDONLY | OFlag::O_NOFOLLOW | OFlag::O_NONBLOCK | OFlag::O_CLOEXEC,
        Mode::empty(),
    )
    .ok()?;
    said(&File::from(file))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::{MetadataExt, PermissionsExt};

    #[test]
    fn a_lock_file_is_made_held_and_said_once_per_holder_without_truncating() {
        let dir = tempfile::tempdir().unwrap();
        // Every missing level is made sticky and open to every user.
        let path = dir.path().join("lab/leases");
        let folder = folder(&path, true).unwrap();
        for level in [dir.path().join("lab"), path.clone()] {
            let mode = std::fs::metadata(&level).unwrap().mode() & 0o7777;
            assert_eq!(mode, 0o1777, "{}", level.display());
        }
        let first = LockFile::open(&folder, "a.lock").unwrap();
        assert!(first.try_lock().unwrap());
        first.say("dwpipe audit (pid 1 on h), since now");
        let second = LockFile::open(&folder, "a.lock").unwrap();
        assert!(!second.try_lock().unwrap());
        assert_eq!(
            holder(&folder, "a.lock").as_deref(),
            Some("dwpipe audit (pid 1 on h), since now")
        );
        assert_eq!(first.replaced(), None);
        drop(first);
        assert!(second.try_lock().unwrap());
        second.say("x");
        assert_eq!(second.said().as_deref(), Some("x"));
        let file_mode = std::fs::metadata(path.join("a.lock")).unwrap().mode() & 0o777;
        assert_eq!(file_mode & !0o644, 0, "0644 or less: {file_mode:o}");
        // Its owner removes it while it is held: the holder finds out.
        std::fs::remove_file(path.join("a.lock")).unwrap();
        assert!(
            second
                .replaced()
                .unwrap()
                .contains("was removed or replaced")
        );
    }

    #[test]
    fn links_fifos_folders_and_hard_links_are_refused_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("leases");
        let folder = folder(&path, true).unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "root:x:0:0\n").unwrap();
        std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o600)).unwrap();
        std::os::unix::fs::symlink(&victim, path.join("link.lock")).unwrap();
        std::fs::hard_link(&victim, path.join("hard.lock")).unwrap();
        std::fs::create_dir(path.join("dir.lock")).unwrap();
        assert!(
            std::process::Command::new("mkfifo")
                .arg(path.join("fifo.lock"))
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
        // A level on the way counts as much as the folder itself.
        let e = folder(&open.join("leases"), true).unwrap_err();
        assert!(e.to_string().contains("without the sticky bit"), "{e}");
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o1777)).unwrap();
        folder(&open, true).unwrap();
    }

    #[test]
    fn a_link_on_the_way_is_followed_only_where_nobody_else_could_have_put_it() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        std::fs::create_dir(&real).unwrap();
        // In a folder only this user writes: the user's own link, followed.
        std::os::unix::fs::symlink(&real, dir.path().join("mine")).unwrap();
        folder(&dir.path().join("mine/leases"), true).unwrap();
        assert!(real.join("leases").is_dir());
        // In a workspace, `.dwpipe` is never a link, whoever made it.
        let workspace = dir.path().join("ws");
        std::fs::create_dir(&workspace).unwrap();
        std::os::unix::fs::symlink(&real, workspace.join(".dwpipe")).unwrap();
        let e = folder(&workspace.join(".dwpipe/hooks"), false).unwrap_err();
        assert!(matches!(e, LockFileError::Planted { .. }), "{e}");
    }
}
