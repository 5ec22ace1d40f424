//! A child's Job Object (Windows). Windows has no process groups that stop a tree: a job
//! does. The child starts suspended, is put in a job of its own before it runs a single
//! instruction (so nothing it starts can be outside it), and is then resumed; everything it
//! starts after that is in the job too. Stopping asks first with Ctrl-Break (the child leads
//! a console process group of its own, which is also what keeps a terminal's Ctrl-C from
//! reaching it before dwpipe decides), then terminates the whole job. The job is made to
//! kill what is left in it when its last handle closes: when dwpipe is done with the child,
//! or dies.
#![expect(
    unsafe_code,
    reason = "Job Objects, thread resumption and console control events have no wrapper in std"
)]

use std::ffi::c_void;
use std::io;
use std::os::windows::io::{AsRawHandle, FromRawHandle, OwnedHandle};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::process::{Child, Command};
use windows_sys::Win32::Foundation::INVALID_HANDLE_VALUE;
use windows_sys::Win32::System::Console::{CTRL_BREAK_EVENT, GenerateConsoleCtrlEvent};
use windows_sys::Win32::System::Diagnostics::ToolHelp::{
    CreateToolhelp32Snapshot, TH32CS_SNAPTHREAD, THREADENTRY32, Thread32First, Thread32Next,
};
use windows_sys::Win32::System::JobObjects::{
    AssignProcessToJobObject, CreateJobObjectW, JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
    JOBOBJECT_BASIC_ACCOUNTING_INFORMATION, JOBOBJECT_EXTENDED_LIMIT_INFORMATION,
    JobObjectBasicAccountingInformation, JobObjectExtendedLimitInformation,
    QueryInformationJobObject, SetInformationJobObject, TerminateJobObject,
};
use windows_sys::Win32::System::Threading::{
    CREATE_NEW_PROCESS_GROUP, CREATE_SUSPENDED, OpenThread, ResumeThread, THREAD_SUSPEND_RESUME,
};

/// The exit code every process of a terminated job gets.
const KILLED: u32 = 1;

/// A spawned child's Job Object.
#[derive(Clone, Debug)]
pub(crate) struct Group {
    pid: u32,
    job: Arc<OwnedHandle>,
    /// Whether dwpipe terminated it (shared by every clone: the cancel registry's too).
    killed: Arc<AtomicBool>,
}

impl Group {
    /// Makes the command's child start suspended (it is put in its job before it runs) and
    /// lead a console process group of its own (Ctrl-Break can be sent to it alone, and a
    /// terminal's Ctrl-C reaches dwpipe, which stops it, rather than it).
    pub(crate) fn prepare(command: &mut Command) {
        command.creation_flags(CREATE_NEW_PROCESS_GROUP | CREATE_SUSPENDED);
    }

    /// Puts a child spawned from a prepared command in a new job and resumes it. On failure
    /// the child (still suspended) is killed: it never runs outside a job.
    pub(crate) fn adopt(child: &mut Child) -> io::Result<Group> {
        let adopted = child
            .id()
            .zip(child.raw_handle())
            .ok_or_else(|| io::Error::other("the child ended before it could be put in a job"))
            .and_then(|(pid, process)| {
                let job = new_job()?;
                // SAFETY: both handles are open (the job just made, the child not yet reaped).
                let assigned = unsafe { AssignProcessToJobObject(job.as_raw_handle(), process) };
                if assigned == 0 {
                    return Err(io::Error::last_os_error());
                }
                resume(pid)?;
                Ok(Group {
                    pid,
                    job: Arc::new(job),
                    killed: Arc::default(),
                })
            });
        if adopted.is_err() {
            let _ = child.start_kill();
        }
        adopted
    }

    /// Its id (the child's pid, which is also its console process group's).
    pub(crate) fn id(&self) -> u32 {
        self.pid
    }

    /// Asks the child's console process group to end (Ctrl-Break, which ends a console
    /// program that does not handle it); whether it could be sent (not when dwpipe has no
    /// console to share with it).
    pub(crate) fn terminate(&self) -> bool {
        if self.pid == 0 {
            return false;
        }
        // SAFETY: no memory is passed; a group that is gone makes the call fail.
        unsafe { GenerateConsoleCtrlEvent(CTRL_BREAK_EVENT, self.pid) != 0 }
    }

    /// Ends every process in the job now.
    pub(crate) fn kill(&self) {
        self.killed.store(true, Ordering::SeqCst);
        // SAFETY: the job handle is open for as long as `self` is.
        unsafe {
            TerminateJobObject(self.job.as_raw_handle(), KILLED);
        }
    }

    /// Whether dwpipe killed it.
    pub(crate) fn was_killed(&self) -> bool {
        self.killed.load(Ordering::SeqCst)
    }

    /// Whether a process in the job still runs.
    pub(crate) fn alive(&self) -> bool {
        // SAFETY: all-zero is a valid value of this plain C struct.
        let mut info: JOBOBJECT_BASIC_ACCOUNTING_INFORMATION = unsafe { std::mem::zeroed() };
        // SAFETY: the buffer is the struct the class names, with its size.
        let asked = unsafe {
            QueryInformationJobObject(
                self.job.as_raw_handle(),
                JobObjectBasicAccountingInformation,
                (&raw mut info).cast::<c_void>(),
                size_of_u32::<JOBOBJECT_BASIC_ACCOUNTING_INFORMATION>(),
                std::ptr::null_mut(),
            )
        };
        asked != 0 && info.ActiveProcesses > 0
    }
}

/// A new job that kills what is in it when its last handle closes.
fn new_job() -> io::Result<OwnedHandle> {
    // SAFETY: no attributes, no name: an anonymous job this process alone holds.
    let raw = unsafe { CreateJobObjectW(std::ptr::null(), std::ptr::null()) };
    if raw.is_null() {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a handle just returned open, owned by nothing else.
    let job = unsafe { OwnedHandle::from_raw_handle(raw) };
    // SAFETY: all-zero is a valid value of this plain C struct.
    let mut limits: JOBOBJECT_EXTENDED_LIMIT_INFORMATION = unsafe { std::mem::zeroed() };
    limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
    // SAFETY: the buffer is the struct the class names, with its size.
    let set = unsafe {
        SetInformationJobObject(
            job.as_raw_handle(),
            JobObjectExtendedLimitInformation,
            (&raw const limits).cast::<c_void>(),
            size_of_u32::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>(),
        )
    };
    if set == 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(job)
}

/// Resumes the threads of the suspended process `pid` (its one, main thread): std keeps the
/// thread handle CreateProcess returned to itself, so the thread is found by its process.
fn resume(pid: u32) -> io::Result<()> {
    // SAFETY: a snapshot of every thread on the system; no memory is passed.
    let raw = unsafe { CreateToolhelp32Snapshot(TH32CS_SNAPTHREAD, 0) };
    if raw == INVALID_HANDLE_VALUE {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a handle just returned open, owned by nothing else.
    let snapshot = unsafe { OwnedHandle::from_raw_handle(raw) };
    // SAFETY: all-zero is a valid value of this plain C struct; its size is set below.
    let mut entry: THREADENTRY32 = unsafe { std::mem::zeroed() };
    entry.dwSize = size_of_u32::<THREADENTRY32>();
    let mut resumed = 0;
    // SAFETY: `entry` is a THREADENTRY32 with its size set, as the call requires.
    let mut more = unsafe { Thread32First(snapshot.as_raw_handle(), &raw mut entry) } != 0;
    while more {
        if entry.th32OwnerProcessID == pid {
            // SAFETY: no memory is passed; a thread that is gone gives a null handle.
            let thread = unsafe { OpenThread(THREAD_SUSPEND_RESUME, 0, entry.th32ThreadID) };
            if !thread.is_null() {
                // SAFETY: a handle just returned open, owned by nothing else.
                let thread = unsafe { OwnedHandle::from_raw_handle(thread) };
                // SAFETY: the thread handle is open, with the access resuming needs.
                if unsafe { ResumeThread(thread.as_raw_handle()) } != u32::MAX {
                    resumed += 1;
                }
            }
        }
        // SAFETY: as for Thread32First.
        more = unsafe { Thread32Next(snapshot.as_raw_handle(), &raw mut entry) } != 0;
    }
    if resumed == 0 {
        return Err(io::Error::other(
            "its main thread could not be found to start it",
        ));
    }
    Ok(())
}

/// The size of `T` as the `u32` Win32 calls take.
fn size_of_u32<T>() -> u32 {
    u32::try_from(size_of::<T>()).unwrap_or(u32::MAX)
}
