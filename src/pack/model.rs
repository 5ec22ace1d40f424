//! The validated pack: what the gate, the brief and the audit work from.

use std::fmt;

use serde::Serialize;

use crate::assertion::Assertion;
use crate::pack::ProbeKind;

use super::schema::PackDoc;

/// A pack that passed validation. `doc` is the schema form (what the lock hashes); `criteria`
/// hold the compiled assertions, in the author's order.
#[derive(Debug)]
pub struct Pack {
    /// The pack as written (normalized by the schema).
    pub doc: PackDoc,
    /// The criteria, validated.
    pub criteria: Vec<Criterion>,
}

/// One of the four dimensions of acceptance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Dimension {
    /// Does it work.
    Function,
    /// Does it look as designed.
    Aesthetic,
    /// Is it fast enough.
    Performance,
    /// Can everyone use it.
    Accessibility,
}

/// How much a criterion counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Weight {
    /// Failing it fails the delivery.
    Must,
    /// Failing it is reported, not fatal.
    Should,
}

impl Dimension {
    /// Every dimension, in report order.
    pub const ALL: [Dimension; 4] = [
        Dimension::Function,
        Dimension::Aesthetic,
        Dimension::Performance,
        Dimension::Accessibility,
    ];

    /// Reads the lowercase name.
    pub fn parse(name: &str) -> Option<Dimension> {
        Dimension::ALL.into_iter().find(|d| d.as_str() == name)
    }

    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Dimension::Function => "function",
            Dimension::Aesthetic => "aesthetic",
            Dimension::Performance => "performance",
            Dimension::Accessibility => "accessibility",
        }
    }
}

impl Weight {
    /// Reads `must` or `should`.
    pub fn parse(name: &str) -> Option<Weight> {
        match name {
            "must" => Some(Weight::Must),
            "should" => Some(Weight::Should),
            _ => None,
        }
    }

    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Weight::Must => "must",
            Weight::Should => "should",
        }
    }
}

impl fmt::Display for Dimension {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for Weight {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A validated criterion.
#[derive(Debug)]
pub struct Criterion {
    /// Unique id.
    pub id: String,
    /// Which dimension.
    pub dimension: Dimension,
    /// must or should.
    pub weight: Weight,
    /// The criterion in words.
    pub statement: String,
    /// How it is verified, in words.
    pub verify: Option<String>,
    /// The house rule it comes from.
    pub rule_id: Option<String>,
    /// The compiled assertion, if any.
    pub assertion: Option<CriterionAssertion>,
}

/// A criterion's compiled assertion with what the author said about it.
#[derive(Debug)]
pub struct CriterionAssertion {
    /// What the gate evaluates.
    pub assertion: Assertion,
    /// The matcher name as written.
    pub matcher: String,
    /// Where the actual value comes from, in words.
    pub source: Option<String>,
    /// The probe that measures it on a device, if any.
    pub probe: Option<MeasuredBy>,
}

/// A probe from the catalog, with the unit it produces for the arguments given.
#[derive(Debug)]
pub struct MeasuredBy {
    /// The catalog entry.
    pub kind: &'static ProbeKind,
    /// The unit it produces (`None`: a count or a word).
    pub unit: Option<&'static str>,
}
