//! The capture format: a recorded device, small and hand-editable.
//!
//! ```text
//! <capture>/device.yaml       who the device is (DeviceInfo)
//! <capture>/transcript.yaml   the ordered exchanges: command, reply, status, delay, fault,
//!                             the pauses between them, where each visit of the audit began,
//!                             and the sessions it was recorded with
//! <capture>/replies/…         long replies, when not inline
//! <capture>/files/…           pulled files, each with its SHA-256 in the transcript
//! ```
//!
//! Loading validates everything a replay will rely on: one operation per exchange, device
//! commands that obey the same rules as live ones, and no path that leaves the folder.

mod exchange;
mod plan;
mod read;
mod write;

pub(super) use exchange::TranscriptDoc;
pub use exchange::{CaptureError, Exchange, ExchangeDoc, Fault, Operation};
pub use read::Capture;
pub use write::CaptureWriter;
