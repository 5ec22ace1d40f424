//! A folder walked to one component at a time (`openat`, never through a link someone else
//! could have put there) and held open.

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::os::fd::OwnedFd;
use std::path::{Component, Path, PathBuf};

use nix::errno::Errno;
use nix::fcntl::{AtFlags, OFlag, openat, readlinkat};
use nix::sys::stat::{FileStat, Mode, SFlag, fchmod, fstat, fstatat, mkdirat};

use super::super::error::LockFileError;
use super::io;

/// Links followed on the way to a folder, at most.
const MAX_LINKS: usize = 40;

/// A folder, walked to and held open: lock files are opened in it, never by its path.
#[derive(Debug)]
pub(crate) struct Folder {
    pub(super) fd: OwnedFd,
    pub(super) path: PathBuf,
}

impl Folder {
    /// `name` in it, for messages.
    pub(crate) fn join(&self, name: impl AsRef<Path>) -> PathBuf {
        self.path.join(name)
    }
}

/// This process's effective user.
pub(super) fn euid() -> u32 {
    nix::unistd::geteuid().as_raw()
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

pub(super) fn is(stat: &FileStat, kind: SFlag) -> bool {
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
        super::super::planted::walk_own(&absolute)
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

/// Opens `base` as it is given (made by the caller), then walks `names` below it, each made
/// when missing and never a link.
pub(in crate::lock_file) fn walk_below_made(
    base: &Path,
    names: &[&OsStr],
) -> Result<Folder, LockFileError> {
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

/// `a symbolic link to TARGET`, the link `name` in `at` said in words.
pub(super) fn link_words(at: &OwnedFd, name: &OsStr) -> String {
    let target = readlinkat(at, name).map_or_else(
        |_| "?".to_owned(),
        |t| crate::text::one_line(&t.to_string_lossy(), 200).into_owned(),
    );
    format!("a symbolic link to {target}")
}

/// What a file of type `kind` is, in words.
pub(super) fn kind_words(kind: SFlag) -> String {
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
