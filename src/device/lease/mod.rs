//! Device leases: a device is leased before it is driven (`slot`), in a store that says
//! where leases live — a lock file per device on this host (`host`), or the history's
//! PostgreSQL server (`history::lease`), which every host of a lab sees.

mod host;
mod slot;

pub use super::error::TakeError;
pub(crate) use host::{HostLeases, host_folder};
pub use slot::LeaseRecord;
pub(crate) use slot::{
    Confirmation, LeaseGuard, LeaseSlot, LeaseStore, LeaseWait, Leasing, this_host,
};
