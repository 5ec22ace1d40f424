//! Writing results so that no reader ever sees half a file: everything goes to a temporary
//! file in the destination folder and is then renamed (or hard-linked) into place.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Failure to write an output file.
#[derive(Debug, thiserror::Error)]
#[error("cannot write `{}`", path.display())]
pub(crate) struct WriteError {
    /// The file being written.
    pub(crate) path: PathBuf,
    /// The cause.
    #[source]
    pub(crate) source: io::Error,
}

/// A rendered file that could not be written: the template failed (dwpipe's bug) or the
/// machine did.
#[derive(Debug, thiserror::Error)]
pub(crate) enum PublishError {
    /// A file could not be written.
    #[error(transparent)]
    Write(#[from] WriteError),
    /// A template did not render.
    #[error(transparent)]
    Render(#[from] crate::template::RenderError),
}

fn write_error(path: &Path) -> impl FnOnce(io::Error) -> WriteError + '_ {
    move |source| WriteError {
        path: path.to_owned(),
        source,
    }
}

/// A folder as a path to join onto: `.` when it is absent or empty (the parent of a bare file
/// name is the empty path).
/// dwpipe's own folder in a project (its runs, reviews, history, reports without `--out`).
pub(crate) const DWPIPE_FOLDER: &str = ".dwpipe";

/// Where a command's reports go without `--out`: a new folder named for the command and the
/// time under `.dwpipe/` (numbered when that second already has one), never the folder the
/// user is in (a checkout's sources).
pub(crate) fn default_out(out: Option<&Path>, command: &str) -> PathBuf {
    if let Some(out) = out {
        return out.to_owned();
    }
    let base = format!("{command}-{}", crate::time::now().replace([':', '-'], ""));
    let dwpipe = Path::new(DWPIPE_FOLDER);
    let mut n = 1u32;
    loop {
        let path = match n {
            1 => dwpipe.join(&base),
            n => dwpipe.join(format!("{base}-{n}")),
        };
        if !path.exists() || n == u32::MAX {
            return path;
        }
        n += 1;
    }
}

pub(crate) fn dir_or_dot(dir: Option<&Path>) -> &Path {
    dir.filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Writes `bytes` to a fresh temporary file beside `path` and returns its name.
fn write_temp(path: &Path, bytes: &[u8]) -> Result<PathBuf, WriteError> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let dir = dir_or_dot(path.parent());
    fs::create_dir_all(dir).map_err(write_error(dir))?;
    let name = path
        .file_name()
        .map_or_else(|| "out".into(), |n| n.to_string_lossy());
    let temp = dir.join(format!(
        ".{name}.{}-{}.tmp",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let mut file = File::create_new(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()
    })();
    if let Err(source) = result {
        let _ = fs::remove_file(&temp);
        // The file the user asked for, not the temporary name it was being written under.
        return Err(WriteError {
            path: path.to_owned(),
            source,
        });
    }
    Ok(temp)
}

/// Replaces `path` with `bytes` atomically (temp file + rename).
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    let temp = write_temp(path, bytes)?;
    fs::rename(&temp, path).map_err(|e| {
        let _ = fs::remove_file(&temp);
        write_error(path)(e)
    })
}

/// Publishes a numbered set of files `<stem>-<n>.<ext>` in `dir`, with `n` the next number free
/// for every extension, without ever overwriting: each file is hard-linked into place, which
/// fails rather than clobbers if a concurrent run took the same number first.
pub(crate) fn publish_numbered(
    dir: &Path,
    stem: &str,
    files: &[(&str, &[u8])],
) -> Result<(u32, Vec<PathBuf>), WriteError> {
    fs::create_dir_all(dir).map_err(write_error(dir))?;
    let temps = files
        .iter()
        .map(|(ext, bytes)| write_temp(&dir.join(format!("{stem}.{ext}")), bytes))
        .collect::<Result<Vec<_>, _>>()?;
    let cleanup = |temps: &[PathBuf]| temps.iter().for_each(|t| drop(fs::remove_file(t)));
    let mut n = next_free(dir, stem, files).map_err(|e| {
        cleanup(&temps);
        write_error(dir)(e)
    })?;
    loop {
        let targets: Vec<PathBuf> = files
            .iter()
            .map(|(ext, _)| dir.join(format!("{stem}-{n}.{ext}")))
            .collect();
        match link_all(&temps, &targets) {
            Ok(()) => {
                cleanup(&temps);
                return Ok((n, targets));
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && n < u32::MAX => n += 1,
            Err(e) => {
                cleanup(&temps);
                return Err(write_error(dir)(e));
            }
        }
    }
}

/// Links every temp to its target; on failure removes the links already made.
fn link_all(temps: &[PathBuf], targets: &[PathBuf]) -> io::Result<()> {
    for (i, (temp, target)) in temps.iter().zip(targets).enumerate() {
        if let Err(e) = fs::hard_link(temp, target) {
            targets[..i].iter().for_each(|t| drop(fs::remove_file(t)));
            return Err(e);
        }
    }
    Ok(())
}

/// One more than the highest `<stem>-<n>.<ext>` present for any of the extensions.
fn next_free(dir: &Path, stem: &str, files: &[(&str, &[u8])]) -> io::Result<u32> {
    let prefix = format!("{stem}-");
    let mut highest = 0;
    for entry in fs::read_dir(dir)? {
        let name = entry?.file_name();
        let Some(name) = name.to_str() else { continue };
        let Some(rest) = name.strip_prefix(&prefix) else {
            continue;
        };
        for (ext, _) in files {
            if let Some(n) = rest
                .strip_suffix(&format!(".{ext}"))
                .and_then(|n| n.parse::<u32>().ok())
            {
                highest = highest.max(n);
            }
        }
    }
    Ok(highest.saturating_add(1))
}

/// `path` as a report in `dir` names it: relative to `dir` when both exist, else as given.
pub(crate) fn relative_to(path: &Path, dir: &Path) -> String {
    let (Ok(path), Ok(dir)) = (fs::canonicalize(path), fs::canonicalize(dir)) else {
        return path.display().to_string();
    };
    let mut base = dir.as_path();
    let mut ups = String::new();
    loop {
        if let Ok(rest) = path.strip_prefix(base) {
            return format!("{ups}{}", rest.display());
        }
        match base.parent() {
            Some(parent) => {
                base = parent;
                ups.push_str("../");
            }
            None => return path.display().to_string(),
        }
    }
}

#[cfg(test)]
mod tests;
