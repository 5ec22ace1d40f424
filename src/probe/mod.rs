//! Probes: the extractors that turn evidence files into readings, pure functions over bytes:
//! hitrace traces, hidumper outputs, layout dumps, screenshots and hypium results. The probe
//! catalog (which probe ids a pack may name) is the pack's vocabulary and lives with the pack.

mod extractor;
pub(crate) mod faults;
pub mod hap;
pub mod hidumper;
pub mod hitrace;
pub mod hypium;
pub mod layout;
pub mod proc_cpu;
pub mod screenshot;
pub mod sp_daemon;
pub mod sysfs;

pub use extractor::{Evidence, Extractor};
