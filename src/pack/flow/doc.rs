//! A flow step as the pack writes it: a one-key map (`click: "id:save"`), with the keys of
//! each action's long form. Every key is optional here; validation decides what a step is.

use serde::{Deserialize, Serialize};

/// One step as written: exactly one action key, plus an optional `name` and `timeout`.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct FlowStepDoc {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) launch: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) click: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) double_click: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) long_click: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) wait_for: Option<WaitDoc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) wait_gone: Option<WaitDoc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) input: Option<InputDoc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) swipe: Option<SwipeDoc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) fling: Option<SwipeDoc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) scroll_until: Option<ScrollDoc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) press: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) sleep: Option<String>,
    /// What `perf.response` calls the step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) name: Option<String>,
    /// How long the step may wait (`5s`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) timeout: Option<String>,
}

/// `wait-for` / `wait-gone`: a selector, or a selector with its own timeout.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(untagged, expecting = "a selector, or { target, timeout }")]
pub(crate) enum WaitDoc {
    /// `wait-for: "id:x"`.
    Target(String),
    /// `wait-for: { target: "id:x", timeout: 5s }`.
    Full(WaitFullDoc),
}

/// The long form of a wait.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct WaitFullDoc {
    pub(super) target: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) timeout: Option<String>,
}

/// `input: { target, text }`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct InputDoc {
    pub(super) target: String,
    pub(super) text: String,
}

/// `swipe:` / `fling:`: on a node in a direction, or from one node to another.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct SwipeDoc {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) on: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) direction: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) distance: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) from: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) to: Option<String>,
}

/// `scroll-until: { target, on, max-swipes, direction }`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct ScrollDoc {
    pub(super) target: String,
    pub(super) on: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) max_swipes: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) direction: Option<String>,
}
