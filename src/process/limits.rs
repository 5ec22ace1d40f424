//! The host's open-file limit, met rather than hit. Every child dwpipe runs holds pipes, and a
//! lab runs an hdc per device at once: the soft limit (256 on macOS by default) is raised to
//! the hard one when a command that drives children starts, and a lab's concurrency is held to
//! what the limit then allows. Windows has no such limit to meet: its handles are not
//! descriptors, and a process may hold millions of them.

/// Open files one device's job holds at its peak: an hdc child's pipes while it is spawned
/// (stdout, stderr and the exec-error pipe, both ends), and the evidence file being written.
const FILES_PER_JOB: u64 = 8;

/// Open files kept for everything else: the standard streams, the runtime's event queue and
/// signal pipe, the history (its database, WAL and shared memory), a report being written.
const RESERVED: u64 = 64;

/// Raises the soft open-file limit to the hard one (on macOS, to the kernel's per-process
/// ceiling, which the hard limit does not report); the soft limit in force afterwards, if
/// the host tells.
pub(crate) fn raise_open_files() -> Option<u64> {
    #[cfg(unix)]
    return rlimit::increase_nofile_limit(u64::MAX)
        .ok()
        .or_else(open_files);
    #[cfg(not(unix))]
    None
}

/// The soft open-file limit in force, if the host tells (never on Windows).
pub(crate) fn open_files() -> Option<u64> {
    #[cfg(unix)]
    return rlimit::Resource::NOFILE.get().ok().map(|(soft, _)| soft);
    #[cfg(not(unix))]
    None
}

/// How many devices' jobs `open_files` allows at once (at least one).
pub(crate) fn jobs_within(open_files: u64) -> usize {
    let jobs = open_files.saturating_sub(RESERVED) / FILES_PER_JOB;
    usize::try_from(jobs).unwrap_or(usize::MAX).max(1)
}

#[cfg(test)]
mod tests;
