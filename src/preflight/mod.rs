//! Preflight: everything a run will need, resolved before anything is dispatched — the
//! agent's program, every verification command's program, the outside reviewer's, the hdc
//! client, the target (the one device reachable, identified, its density known; or the
//! capture), a playbook for every probe of the pack, a writable run folder. Every missing
//! piece is found in one pass and reported together, each with what was looked for, where,
//! and how to get it; `dwpipe doctor` prints the same checks as a table, with the versions of
//! the tools dwpipe knows (never a user's verification command: running it is not asking).

mod checks;
mod target;

pub(crate) use checks::{Check, hdc, history, playbooks, problems, programs, writable};
pub(crate) use target::{NotStarted, open, versions};
