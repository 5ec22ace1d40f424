//! Devices: one trait, three implementations. [`HdcDevice`] drives a real device through the
//! `hdc` client, [`ReplayDevice`] answers from a recorded capture, [`RecordingDevice`] wraps
//! another device and writes a capture of everything it does. The rest of dwpipe sees only
//! [`Device`].

mod access;
mod any;
mod capture;
mod error;
mod hdc;
mod info;
pub mod lease;
mod recording;
mod replay;
mod reply;
mod said;
mod source;
mod state;
mod survey;

mod calls;
#[cfg(test)]
mod tests;

pub use access::{Access, AccessTable, Family, Read, Rule, Shows, access_table};
pub(crate) use any::AnyDevice;
pub use calls::{Device, RunPlan, ShellReply};
pub(crate) use calls::{Spent, millis};
pub use capture::{Capture, Fault, Operation};
pub use capture::{CaptureError, CaptureWriter, Exchange, ExchangeDoc};
pub use error::DeviceError;
pub(crate) use hdc::default_hdc;
pub use hdc::{CallTimeouts, Hdc, HdcDevice, Server, ServerError};
pub use info::{DeviceInfo, identity_command, render_identity, virtual_pixel_ratio};
pub use recording::RecordingDevice;
pub use replay::ReplayDevice;
pub use reply::{HdcFailure, SENTINEL, Target, hdc_failure, parse_targets, split_sentinel};
pub use said::{Refusal, judge};
pub use source::Source;
pub use state::{STATE_FIELDS, STATE_MARKER, clock_command, state_command};
pub(crate) use survey::survey;
pub use survey::{DeviceReport, DevicesReport, ServerReport};
