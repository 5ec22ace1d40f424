//! The gate inside an agent's own loop. Claude Code's and Codex's `Stop` hooks, Cursor's `stop`
//! hook and dwpipe's OpenCode/DevEco Code plugin run `dwpipe hook stop` when the agent wants to
//! end its turn; dwpipe runs the gate `deliver` runs after an agent (verification, then the
//! audit, against the frozen pack) and answers in the harness's own words: let it stop, or send
//! it back with the repair brief.
//!
//! The hook counts its own rounds per agent session ([`state`]): a harness's
//! `stop_hook_active` only says the agent is already continuing because of a hook, so it is
//! recorded, never trusted to end the loop. Rounds are bounded by `repair.max-rounds` and the
//! same-failure guard; when they run out, or when the gate cannot decide, the review's fail
//! mode says what happens ([`mod@decide`]): `open` lets the agent stop and records it, `warn` sends
//! it back once to say the change is unverified and then lets it stop, `closed` keeps refusing
//! "verified" and says so.

mod decide;
mod harness;
mod state;
mod stop;
mod words;

pub(crate) use harness::render;
pub(crate) use stop::{StopRequest, stop};
pub(crate) use words::Harness;
