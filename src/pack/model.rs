//! The validated pack: what the gate, the brief and the audit work from.

use std::collections::BTreeMap;

use crate::assertion::Assertion;
use crate::words::words;

use super::flow::Flow;
use super::measured::MeasuredBy;
use super::regression::Floor;
use super::require::Condition;
use super::schema::PackDoc;

/// A pack that passed validation. `doc` is the schema form (what the lock hashes); `criteria`
/// hold the compiled assertions, in the author's order.
#[derive(Clone, Debug)]
pub struct Pack {
    /// The pack as written (normalized by the schema).
    pub doc: PackDoc,
    /// The criteria, validated.
    pub criteria: Vec<Criterion>,
    /// The flows, validated, by name.
    pub(crate) flows: BTreeMap<String, Flow>,
    /// The pack's regression floor, for criteria that set none.
    pub(crate) regression: Option<Floor>,
    /// What the device must say of its state before its runs.
    pub(crate) require: Vec<Condition>,
}

words! {
    /// One of the four dimensions of acceptance, in report order.
    pub enum Dimension {
        /// Does it work.
        Function = "function",
        /// Does it look as designed.
        Aesthetic = "aesthetic",
        /// Is it fast enough.
        Performance = "performance",
        /// Can everyone use it.
        Accessibility = "accessibility",
    }
}

words! {
    /// How much a criterion counts.
    pub enum Weight {
        /// Failing it fails the delivery.
        Must = "must",
        /// Failing it is reported, not fatal.
        Should = "should",
    }
}

/// A validated criterion.
#[derive(Clone, Debug)]
pub struct Criterion {
    /// Unique id.
    pub id: String,
    /// Which dimension.
    pub(crate) dimension: Dimension,
    /// must or should.
    pub(crate) weight: Weight,
    /// The criterion in words.
    pub(crate) statement: String,
    /// How it is verified, in words.
    pub(crate) verify: Option<String>,
    /// The house rule it comes from.
    pub(crate) rule_id: Option<String>,
    /// The compiled assertion, if any.
    pub assertion: Option<CriterionAssertion>,
    /// Its regression floor, when it sets one.
    pub(crate) regression: Option<Floor>,
}

/// A criterion's compiled assertion with what the author said about it.
#[derive(Clone, Debug)]
pub struct CriterionAssertion {
    /// What the gate evaluates.
    pub(crate) assertion: Assertion,
    /// The matcher name as written.
    pub(crate) matcher: crate::assertion::Matcher,
    /// Where the actual value comes from, in words.
    pub(crate) source: Option<String>,
    /// The probe that measures it on a device, if any.
    pub probe: Option<MeasuredBy>,
}
