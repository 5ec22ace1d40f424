//! The acceptance pack: schema, loading (YAML/JSON), validation and freezing into a hashed
//! lock; and its vocabulary: the probe catalog and layout selectors.

mod catalog;
mod load;
mod lock;
mod model;
mod probe;
mod schema;
mod selector;
mod spec;
mod validate;

#[cfg(test)]
mod tests;

pub use catalog::{CATALOG, MeasuredBy, ProbeKind, check_probe};
pub use load::{MAX_PACK_BYTES, Syntax, load_pack, parse_pack};
pub use lock::{Frozen, LOCK_FILE, LockFile, canonical_json, freeze, freeze_file, load_lock};
pub use model::{Criterion, CriterionAssertion, Dimension, Pack, Weight};
pub use probe::{Aggregate, Axis, Edge, FrameMetric, ProbeArgError, ProbeArgs, Side};
pub use schema::{AppDoc, AssertionDoc, CriterionDoc, ExpectedDoc, PackDoc, ProbeDoc, ScalarDoc};
pub(crate) use selector::{Selector, SelectorKind};
pub use validate::validate;
