//! The acceptance pack as written: the serde schema shared by YAML input, JSON input and the
//! `pack` object inside `pack.lock.json`.
//!
//! Every struct denies unknown keys, so a typo (`matchr:`) is an error naming its key path
//! instead of a criterion that silently lost its assertion. Values that need a location for a
//! later semantic error are [`Spanned`]; spans serialize as their bare value, so the lock is
//! plain JSON.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Number;
use serde_saphyr::Spanned;

use super::flow::{FlowStepDoc, StepRef};
use super::regression::RegressionDoc;

/// A whole pack.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PackDoc {
    /// Schema version; only 1 exists.
    pub(crate) version: Spanned<u32>,
    /// The app under delivery.
    pub app: AppDoc,
    /// Named flows: the steps that reach the screen a probe measures (absent: none, and the
    /// pack's canonical JSON is what it was before flows existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) flows: Option<BTreeMap<String, Vec<Spanned<FlowStepDoc>>>>,
    /// The regression floor of every criterion that sets none (absent: the built-in floor of
    /// each probe's unit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) regression: Option<Spanned<RegressionDoc>>,
    /// What the device must say of its state before its runs for an audit of this pack to
    /// measure anything (`battery >= 80%`, `screen-lock: off`): sealed with the pack (absent:
    /// none, and the pack's canonical JSON is what it was before preconditions existed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) require: Vec<Spanned<String>>,
    /// The acceptance criteria, in the author's order.
    pub(crate) criteria: Vec<CriterionDoc>,
}

/// The app the pack is about.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AppDoc {
    /// Bundle name, a reverse-domain identifier.
    pub bundle: Spanned<String>,
    /// The ability to start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) ability: Option<Spanned<String>>,
    /// The HAP module.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) module: Option<Spanned<String>>,
}

/// One acceptance criterion.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CriterionDoc {
    /// Unique id (`P-01`).
    pub(crate) id: Spanned<String>,
    /// `function`, `aesthetic`, `performance` or `accessibility`.
    pub(crate) dimension: Spanned<String>,
    /// The criterion in words.
    pub(crate) statement: Spanned<String>,
    /// How it is verified, in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) verify: Option<String>,
    /// `must` or `should`.
    pub(crate) weight: Spanned<String>,
    /// The house rule the criterion comes from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) rule_id: Option<String>,
    /// The machine-checkable assertion.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) assertion: Option<Spanned<AssertionDoc>>,
    /// How far its median may move against a baseline before `dwpipe compare` counts it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) regression: Option<Spanned<RegressionDoc>>,
}

/// An assertion as written.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AssertionDoc {
    /// One of the eight matchers.
    pub(crate) matcher: Spanned<String>,
    /// The expected value (`equals`, `contains`, `regex`, `gte`, `lte`) or list (`oneOf`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) expected: Option<Spanned<ExpectedDoc>>,
    /// Inclusive lower bound of `range`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) min: Option<Spanned<Number>>,
    /// Inclusive upper bound of `range`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) max: Option<Spanned<Number>>,
    /// The unit the expected numbers are written in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) unit: Option<Spanned<String>>,
    /// Where the actual value comes from, in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) source: Option<String>,
    /// How dwpipe measures it on a device.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) probe: Option<Spanned<ProbeDoc>>,
}

/// `expected`: a scalar, or a list of scalars for `oneOf`.
#[derive(Debug, Deserialize, Serialize, Clone, PartialEq)]
#[serde(
    untagged,
    expecting = "a number, a string, or a list of numbers and strings"
)]
pub enum ExpectedDoc {
    /// A number.
    Number(Number),
    /// A string (booleans are read as their text).
    Text(String),
    /// A list, for `oneOf`.
    List(Vec<ScalarDoc>),
}

/// One element of an `expected` list.
#[derive(Debug, Deserialize, Serialize, Clone, PartialEq)]
#[serde(untagged, expecting = "a number or a string")]
pub enum ScalarDoc {
    /// A number.
    Number(Number),
    /// A string.
    Text(String),
}

/// The device probe that measures an assertion: an id from the catalog plus its arguments.
/// Which arguments a probe takes is checked against the catalog after parsing.
#[derive(Clone, Debug, Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ProbeDoc {
    /// Probe id (`perf.cold-start`).
    pub(crate) id: String,
    /// How many runs to measure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) runs: Option<u32>,
    /// How runs are aggregated: `median`, `min`, `max`, `mean`, `p90`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) aggregate: Option<String>,
    /// Largest spread between runs before the measurement is called unstable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) tolerance: Option<Number>,
    /// Which number of a multi-metric probe (`fps`, `p95`, `jank`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) metric: Option<String>,
    /// A layout selector (`id:save_button`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) target: Option<String>,
    /// First node of a pair.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) from: Option<String>,
    /// Second node of a pair.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) to: Option<String>,
    /// `vertical` or `horizontal` (gap).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) axis: Option<String>,
    /// `left` or `top` (alignment).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) edge: Option<String>,
    /// `width` or `height` (size).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) side: Option<String>,
    /// A hypium test suite (its `describe` name, which `aa test` calls the class).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) suite: Option<String>,
    /// One case of the suite (its `it` name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) case: Option<String>,
    /// The cases the run must report: one that does not is blocked, and fails the criterion.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) expect: Option<Vec<String>>,
    /// The flow the probe measures after (absent: the launch screen).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) flow: Option<String>,
    /// The flow step `perf.response` measures: its name or 1-based number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) step: Option<StepRef>,
    /// Where `perf.frames` reads frames: `hitrace` (the default) or `hidumper`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) via: Option<String>,
    /// The two steps of its flow a trace point probe is traced between (first and last).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) steps: Option<Vec<StepRef>>,
    /// The app's section or counter a trace point probe reads: a name or `/regex/`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) name: Option<String>,
    /// Which span `perf.span` reads: `first` (the default), `last` or `each`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) pick: Option<String>,
    /// Which number of every occurrence: `first`, `last`, `sum`, `min`, `max`, `mean`, `count`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) of: Option<String>,
    /// What a section's occurrence is worth: `duration` (the default) or `arg:KEY`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) value: Option<String>,
    /// The unit a counter's (or a section argument's) values are in: `B`, `KB`, `MB`, `count`…
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) unit: Option<String>,
}
