//! The acceptance pack: schema, loading (YAML/JSON), validation and freezing into a hashed
//! lock.

mod load;
mod lock;
mod model;
mod schema;
mod validate;

#[cfg(test)]
mod tests;

pub use load::{MAX_PACK_BYTES, Syntax, load_pack, parse_json, parse_pack, parse_yaml};
pub use lock::{
    Frozen, LOCK_FORMAT_VERSION, LockFile, canonical_json, freeze, load_lock, sha256_hex,
};
pub use model::{Criterion, CriterionAssertion, Dimension, MeasuredBy, Pack, Weight};
pub use schema::{AppDoc, AssertionDoc, CriterionDoc, ExpectedDoc, PackDoc, ProbeDoc, ScalarDoc};
pub use validate::{REGEX_SIZE_LIMIT, validate};
