//! A child's whole tree, as one thing to stop: a process group on Unix, a Job Object on
//! Windows. Both platforms export the same [`Group`]: made ready on the command before it
//! spawns, adopted from the spawned child, then asked to end (SIGTERM; Ctrl-Break), killed
//! (SIGKILL; the job terminated) and asked whether anything in it still runs.

#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub(super) use unix::Group;

#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub(super) use windows::Group;

#[cfg(not(any(unix, windows)))]
compile_error!(
    "dwpipe stops a child's whole tree with a Unix process group or a Windows Job Object: build it on Linux, macOS or Windows"
);
