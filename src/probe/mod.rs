//! Probes: what dwpipe can measure on a device. For now the catalog of probe ids and their
//! arguments, which the pack is validated against; the extractors that do the measuring live
//! beside it as they arrive.

mod catalog;
mod density;
pub mod hidumper;
pub mod hitrace;
pub mod hypium;
pub mod layout;
pub mod screenshot;
mod selector;

pub use catalog::{CATALOG, ProbeArgError, ProbeKind, check_probe};
pub use density::virtual_pixel_ratio;
pub use selector::{Selector, SelectorError, SelectorKind};
