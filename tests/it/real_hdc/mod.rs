//! dwpipe against OpenHarmony's own hdc: the real client and server built from source, and
//! phones that are the real daemon (hdcd) with fake-hdc as their tools (see `stack.rs`).

mod audits;
mod devices;
pub(crate) mod stack;
mod texts;
