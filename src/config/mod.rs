//! `dwpipe.yaml`: the project configuration (kebab-case keys, durations like `10m`, unknown
//! keys are errors naming their path). `dwpipe init` writes a commented one. Each section is
//! validated by its own module; `load` reads the file and puts them together.

mod agent;
mod device;
mod doc;
mod load;
mod review;
mod store;
mod value;
mod verify;

#[cfg(test)]
pub(crate) use agent::Transport;
pub(crate) use agent::{Agent, AgentKind};
pub(crate) use device::DeviceDefaults;
pub use load::Config;
pub(crate) use load::{CONFIG_FILE, in_current_folder};
pub(crate) use review::{FailMode, Repair, Review};
pub(crate) use store::{Server, Store};
pub(crate) use verify::{VerifyCommand, VerifyKind};

#[cfg(test)]
mod tests;
