//! A child's process group (Unix): the child leads a group of its own, and signals go to the
//! whole group, so grandchildren are stopped with it.

use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::process::{Child, Command};

/// A spawned child's process group.
#[derive(Clone, Debug)]
pub(crate) struct Group {
    pgid: u32,
    /// Whether dwpipe SIGKILLed it (shared by every clone: the cancel registry's too).
    killed: Arc<AtomicBool>,
}

impl Group {
    /// Makes the command's child lead a process group of its own, so that a timeout reaches
    /// grandchildren too and a terminal's Ctrl-C reaches dwpipe alone.
    pub(crate) fn prepare(command: &mut Command) {
        command.process_group(0);
    }

    /// The group of a child spawned from a prepared command.
    pub(crate) fn adopt(child: &mut Child) -> io::Result<Group> {
        Ok(Group {
            pgid: child.id().unwrap_or(0),
            killed: Arc::default(),
        })
    }

    /// Its id (the leader's pid).
    pub(crate) fn id(&self) -> u32 {
        self.pgid
    }

    /// Asks every member to end (SIGTERM); whether the request could be sent (a grace period
    /// is then worth waiting).
    pub(crate) fn terminate(&self) -> bool {
        signal_group(self.pgid, libc::SIGTERM)
    }

    /// Ends every member now (SIGKILL).
    pub(crate) fn kill(&self) {
        self.killed.store(true, Ordering::SeqCst);
        signal_group(self.pgid, libc::SIGKILL);
    }

    /// Whether dwpipe killed it.
    pub(crate) fn was_killed(&self) -> bool {
        self.killed.load(Ordering::SeqCst)
    }

    /// Whether a live process is still in the group. On Linux the process table is read,
    /// so a zombie nobody reaps (a container's init may not) does not count as running;
    /// elsewhere signal 0 probes the group.
    pub(crate) fn alive(&self) -> bool {
        group_alive(self.pgid)
    }
}

/// Sends `signal` to the process group `pgid`; whether it was sent. A group that is already
/// gone is not an error.
fn signal_group(pgid: u32, signal: libc::c_int) -> bool {
    let Ok(pgid) = libc::pid_t::try_from(pgid) else {
        return false;
    };
    if pgid <= 1 {
        // Never signal group 0 (ours) or 1: a child without an id has already been reaped.
        return false;
    }
    // SAFETY: killpg has no memory-safety preconditions; a stale or foreign group id yields
    // ESRCH/EPERM, which is ignored because the group is then already gone.
    #[expect(unsafe_code, reason = "std can signal a child, not its process group")]
    let sent = unsafe { libc::killpg(pgid, signal) } == 0;
    sent
}

fn group_alive(pgid: u32) -> bool {
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
    found || io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}
