//! Running child processes: argv only, their own process group (a Job Object on Windows),
//! output drained while waiting and kept bounded, a timeout that escalates SIGTERM → grace →
//! SIGKILL on the whole group (Ctrl-Break → grace → the job terminated), cancellation that
//! does the same, and leaked grandchildren reported instead of waited for.
//!
//! Everything that spawns a child (hdc, agents, verification commands) goes through [`run`].

mod bounded;
mod cancel;
mod group;
mod join;
mod limits;
mod observe;
mod runner;

#[cfg(test)]
mod tests;

pub use cancel::Cancel;
pub(crate) use join::join_all;
pub(crate) use limits::{jobs_within, open_files, raise_open_files};
pub(crate) use observe::{Line, Pipe};
pub use runner::{Completion, ProcessOutcome, SpawnError};
pub(crate) use runner::{NotSent, Stdin, StdinSender, stdin_feed};
pub use runner::{ProcessSpec, run};
