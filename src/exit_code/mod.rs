//! Exit codes, for every command, and the one place verdicts become them ([`verdicts`]); the
//! stable `E_*` codes errors are printed with, each with its meaning, its exit code and its
//! fix ([`registry`], from which `docs/errors.md` and `dwpipe explain` are made).

mod registry;
mod verdicts;

pub(crate) use registry::{CODES, markdown};
pub(crate) use verdicts::*;
