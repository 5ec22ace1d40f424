//! Process-group signalling (Unix).

#[cfg(not(unix))]
compile_error!(
    "dwpipe runs children in process groups and needs a Unix host: Linux or macOS (on Windows, build and run it in WSL2; see the README's platform notes)"
);

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

/// Whether a live process is still in the group `pgid`. On Linux the process table is read,
/// so a zombie nobody reaps (a container's init may not) does not count as running; elsewhere
/// signal 0 probes the group.
pub(super) fn group_alive(pgid: u32) -> bool {
    // Asked after every child: a group signal 0 finds empty is done with at once. Reading the
    // whole process table each time cost a lab of 16 devices about a millisecond of CPU per
    // hdc call, and more the more processes run.
    if pgid <= 1 || !probe_group(pgid) {
        return false;
    }
    #[cfg(target_os = "linux")]
    {
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return true;
        };
        entries.flatten().any(|entry| {
            let name = entry.file_name();
            let is_pid = name
                .to_str()
                .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()));
            is_pid
                && std::fs::read_to_string(entry.path().join("stat"))
                    .is_ok_and(|stat| live_member(&stat, pgid))
        })
    }
    #[cfg(not(target_os = "linux"))]
    true
}

/// Whether a `/proc/<pid>/stat` line is of a process in group `pgid` that is not a zombie:
/// after the command name in parentheses come the state, the parent and the group.
#[cfg(target_os = "linux")]
fn live_member(stat: &str, pgid: u32) -> bool {
    let Some((_, rest)) = stat.rsplit_once(')') else {
        return false;
    };
    let mut fields = rest.split_whitespace();
    let state = fields.next().unwrap_or("Z");
    let group = fields.nth(1).and_then(|g| g.parse::<u32>().ok());
    group == Some(pgid) && !matches!(state, "Z" | "X")
}

/// Signal 0 to the group: whether any process (a zombie too) is in it. A member we may not
/// signal (EPERM) is still a member.
fn probe_group(pgid: u32) -> bool {
    let Ok(pgid) = libc::pid_t::try_from(pgid) else {
        return false;
    };
    // SAFETY: as in `signal_group`; signal 0 only checks that the group exists.
    #[expect(unsafe_code, reason = "std cannot probe a process group")]
    let found = unsafe { libc::killpg(pgid, 0) } == 0;
    found || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// SIGTERM.
pub(super) const TERM: libc::c_int = libc::SIGTERM;
/// SIGKILL.
pub(super) const KILL: libc::c_int = libc::SIGKILL;
