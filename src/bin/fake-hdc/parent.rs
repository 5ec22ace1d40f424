//! The process that called fake-hdc (a dwpipe run) and when it started: a pid is reused, a
//! pid with its start time is not. Linux reads `/proc`; Windows asks the process table.

/// The calling process's id.
#[cfg(unix)]
pub(crate) fn parent_id() -> u32 {
    std::os::unix::process::parent_id()
}

/// A process's start time in clock ticks since boot (`/proc/PID/stat`, field 22).
#[cfg(unix)]
pub(crate) fn start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name, which is in parentheses and may hold anything.
    let after = stat.get(stat.rfind(')')? + 2..)?;
    after.split_whitespace().nth(19)?.parse().ok()
}

#[cfg(windows)]
pub(crate) use windows::{parent_id, start_time};

#[cfg(windows)]
#[expect(
    unsafe_code,
    reason = "std tells neither a process's parent nor when a process started"
)]
mod windows {
    use std::os::windows::io::{AsRawHandle, FromRawHandle, OwnedHandle};

    use windows_sys::Win32::Foundation::{FILETIME, INVALID_HANDLE_VALUE};
    use windows_sys::Win32::System::Diagnostics::ToolHelp::{
        CreateToolhelp32Snapshot, PROCESSENTRY32W, Process32FirstW, Process32NextW,
        TH32CS_SNAPPROCESS,
    };
    use windows_sys::Win32::System::Threading::{
        GetProcessTimes, OpenProcess, PROCESS_QUERY_LIMITED_INFORMATION,
    };

    /// The calling process's id (0 when the process table cannot be read).
    pub(crate) fn parent_id() -> u32 {
        let me = std::process::id();
        // SAFETY: a snapshot of every process; no memory is passed.
        let raw = unsafe { CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0) };
        if raw == INVALID_HANDLE_VALUE {
            return 0;
        }
        // SAFETY: a handle just returned open, owned by nothing else.
        let snapshot = unsafe { OwnedHandle::from_raw_handle(raw) };
        // SAFETY: all-zero is a valid value of this plain C struct; its size is set below.
        let mut entry: PROCESSENTRY32W = unsafe { std::mem::zeroed() };
        entry.dwSize = u32::try_from(size_of::<PROCESSENTRY32W>()).unwrap_or(0);
        // SAFETY: `entry` is a PROCESSENTRY32W with its size set, as the call requires.
        let mut more = unsafe { Process32FirstW(snapshot.as_raw_handle(), &raw mut entry) } != 0;
        while more {
            if entry.th32ProcessID == me {
                return entry.th32ParentProcessID;
            }
            // SAFETY: as for Process32FirstW.
            more = unsafe { Process32NextW(snapshot.as_raw_handle(), &raw mut entry) } != 0;
        }
        0
    }

    /// When process `pid` started, in 100 ns since 1601 (`None` when it is gone).
    pub(crate) fn start_time(pid: u32) -> Option<u64> {
        // SAFETY: no memory is passed; a process that is gone gives a null handle.
        let raw = unsafe { OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid) };
        if raw.is_null() {
            return None;
        }
        // SAFETY: a handle just returned open, owned by nothing else.
        let process = unsafe { OwnedHandle::from_raw_handle(raw) };
        let zero = FILETIME {
            dwLowDateTime: 0,
            dwHighDateTime: 0,
        };
        let (mut created, mut exited, mut kernel, mut user) = (zero, zero, zero, zero);
        // SAFETY: four FILETIMEs the call fills, the handle open with query access.
        let asked = unsafe {
            GetProcessTimes(
                process.as_raw_handle(),
                &raw mut created,
                &raw mut exited,
                &raw mut kernel,
                &raw mut user,
            )
        };
        (asked != 0)
            .then(|| (u64::from(created.dwHighDateTime) << 32) | u64::from(created.dwLowDateTime))
    }
}
