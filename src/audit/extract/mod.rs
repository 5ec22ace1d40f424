//! From a session's evidence files to one reading per probe: pure functions over bytes, so
//! `verify-evidence` can run them again offline on the stored files. Each file is decoded at
//! most once per session visit and shared by every probe of the session and by the report's
//! figures.

mod decoded;
mod extractors;
mod frames;
mod placement;
mod points;
mod reading;
mod resources;

pub(crate) use decoded::clock_file;
pub use decoded::{Decoded, Screenshot, Trace};
pub use extractors::extract;
use extractors::number;
pub(crate) use placement::{Placement, placement};
pub use reading::{ExtractError, Reading, Value};
