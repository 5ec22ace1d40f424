//! Process-group signalling (Unix).

#[cfg(not(unix))]
compile_error!("dwpipe runs children in process groups and needs a Unix host");

/// Sends `signal` to the process group `pgid`. A group that is already gone is not an error.
pub(super) fn signal_group(pgid: u32, signal: libc::c_int) {
    let Ok(pgid) = libc::pid_t::try_from(pgid) else {
        return;
    };
    if pgid <= 1 {
        // Never signal group 0 (ours) or 1: a child without an id has already been reaped.
        return;
    }
    // SAFETY: killpg has no memory-safety preconditions; a stale or foreign group id yields
    // ESRCH/EPERM, which is ignored because the group is then already gone.
    #[expect(unsafe_code, reason = "std can signal a child, not its process group")]
    unsafe {
        libc::killpg(pgid, signal);
    }
}

/// SIGTERM.
pub(super) const TERM: libc::c_int = libc::SIGTERM;
/// SIGKILL.
pub(super) const KILL: libc::c_int = libc::SIGKILL;
