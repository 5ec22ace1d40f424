//! The acceptance pack: schema, loading (YAML/JSON), validation and freezing into a hashed
//! lock; and its vocabulary: the probe catalog and layout selectors.

mod catalog;
mod compile;
mod flow;
mod load;
mod lock;
mod measured;
mod model;
mod points;
mod probe;
mod probes_doc;
mod regression;
mod require;
mod schema;
mod selector;
mod spec;
mod traced;
mod validate;

#[cfg(test)]
mod tests;

pub use catalog::{CATALOG, ProbeKind};
pub(crate) use flow::{Action, Direction, Gesture, Key, Launch, SwipePath};
pub use flow::{Flow, FlowStep, FlowStepDoc, InputKind, MeasuredStep, StepRef};
pub use load::parse_pack;
pub use load::{MAX_PACK_BYTES, Syntax, load_pack};
pub use lock::{Frozen, freeze, load_lock};
pub use lock::{LOCK_FILE, PackLock, canonical_json, freeze_file};
pub use measured::{MeasuredBy, check_probe};
pub use model::{Criterion, CriterionAssertion, Dimension, Pack, Weight};
pub(crate) use points::NameMatcher;
pub use points::{Of, Pick, Point, SectionValue, TraceName};
pub use probe::ProbeArgError;
pub use probe::{
    Aggregate, Axis, CpuShare, Edge, FrameMetric, FramesVia, ProbeArgs, ResponseMetric, Side,
};
pub(crate) use probes_doc::{ProbeRef, probes};
pub(crate) use regression::Floor;
pub use regression::RegressionDoc;
pub(crate) use require::FOLDS;
pub use require::{Compare, Condition, Reading};
pub use schema::{AppDoc, AssertionDoc, CriterionDoc, ExpectedDoc, PackDoc, ProbeDoc, ScalarDoc};
pub(crate) use selector::{Selector, SelectorKind};
pub(crate) use spec::FlowView;
pub use spec::SPEC_FILE;
pub use validate::validate;
