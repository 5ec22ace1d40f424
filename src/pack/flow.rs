//! Flows: named step lists that take the app from its launch to the screen a criterion is
//! about (`flows: { open-note: [ {launch: cold}, {click: "id:note_item_1"}, … ] }`). The pack
//! writes each step as a one-key map; validation turns it into a typed [`Action`] whose every
//! selector, duration, key and input text is checked at freeze, so nothing a device command
//! is built from is parsed again at audit time.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_saphyr::Spanned;

use crate::input::parse_duration;
use crate::shell::ShellValue;
use crate::words::words;

use super::selector::Selector;

/// How long a wait looks for its node unless the step says otherwise.
pub(crate) const DEFAULT_WAIT: Duration = Duration::from_secs(5);
/// How long a launch lets the app come up, and a traced step lets the screen settle inside
/// its trace: a fixed wait, because polling the device inside a measured window would load it.
pub(crate) const DEFAULT_SETTLE: Duration = Duration::from_secs(2);
/// Swipes `scroll-until` makes before giving up, unless it says.
const DEFAULT_MAX_SWIPES: u32 = 5;
/// The longest text an `input` step types.
const MAX_INPUT_CHARS: usize = 200;
/// The most steps a flow may have (each one holds the device for a dump, an input and a
/// screenshot).
const MAX_STEPS: usize = 100;
/// The longest wait a step may ask for.
const MAX_TIMEOUT: Duration = Duration::from_secs(120);

/// One step as written: exactly one action key, plus an optional `name` and `timeout`.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct FlowStepDoc {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    launch: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    click: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    double_click: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    long_click: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    wait_for: Option<WaitDoc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    wait_gone: Option<WaitDoc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    input: Option<InputDoc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    swipe: Option<SwipeDoc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    fling: Option<SwipeDoc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    scroll_until: Option<ScrollDoc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    press: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sleep: Option<String>,
    /// What `perf.response` calls the step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    /// How long the step may wait (`5s`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    timeout: Option<String>,
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
    target: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    timeout: Option<String>,
}

/// `input: { target, text }`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct InputDoc {
    target: String,
    text: String,
}

/// `swipe:` / `fling:`: on a node in a direction, or from one node to another.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct SwipeDoc {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    on: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    direction: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    distance: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    from: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    to: Option<String>,
}

/// `scroll-until: { target, on, max-swipes, direction }`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct ScrollDoc {
    target: String,
    on: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    max_swipes: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    direction: Option<String>,
}

words! {
    /// How a flow starts the app.
    pub(crate) enum Launch {
        /// Force-stop, then start.
        Cold = "cold",
        /// Start (brings a running app to the front).
        Warm = "warm",
    }
}

words! {
    /// The way a finger moves across the screen.
    pub(crate) enum Direction {
        /// Towards the top (the content moves up: scrolls down a list).
        Up = "up",
        /// Towards the bottom.
        Down = "down",
        /// Towards the left.
        Left = "left",
        /// Towards the right.
        Right = "right",
    }
}

/// The three taps of `uitest uiInput`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tap {
    /// `click`.
    Click,
    /// `doubleClick`.
    DoubleClick,
    /// `longClick`.
    LongClick,
}

impl Tap {
    /// The `uitest uiInput` verb.
    pub(crate) fn verb(self) -> &'static str {
        match self {
            Tap::Click => "click",
            Tap::DoubleClick => "doubleClick",
            Tap::LongClick => "longClick",
        }
    }
}

/// A moving gesture of `uitest uiInput`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Gesture {
    /// `swipe` (velocity 600 px/s, uitest's default).
    Swipe,
    /// `fling`.
    Fling,
}

/// Where a swipe goes.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum SwipePath {
    /// From the centre of `on`'s visible rect, `distance` vp (default half the rect) in `direction`.
    On {
        on: Selector,
        direction: Direction,
        distance_vp: Option<f64>,
    },
    /// From one node's centre to another's.
    Between { from: Selector, to: Selector },
}

/// A key of `uitest uiInput keyEvent`: its own three names, or a key code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Key {
    /// `Back`.
    Back,
    /// `Home`.
    Home,
    /// `Power`.
    Power,
    /// A multimodal-input key code (`KEYCODE_ENTER` = 2054).
    Code(u32),
}

/// Key names a pack may press besides `back`, `home` and `power`, with their OpenHarmony key
/// codes (`oh_key_code.h`).
const KEY_CODES: &[(&str, u32)] = &[
    ("enter", 2054),
    ("delete", 2055),
    ("tab", 2049),
    ("space", 2050),
    ("escape", 2070),
    ("menu", 2067),
    ("volume-up", 16),
    ("volume-down", 17),
    ("dpad-up", 2012),
    ("dpad-down", 2013),
    ("dpad-left", 2014),
    ("dpad-right", 2015),
];

impl Key {
    fn parse(text: &str) -> Option<Key> {
        match text {
            "back" => Some(Key::Back),
            "home" => Some(Key::Home),
            "power" => Some(Key::Power),
            _ => KEY_CODES
                .iter()
                .find(|(name, _)| *name == text)
                .map(|(_, code)| Key::Code(*code)),
        }
    }

    /// The `keyEvent` argument.
    pub(crate) fn argument(self) -> String {
        match self {
            Key::Back => "Back".to_owned(),
            Key::Home => "Home".to_owned(),
            Key::Power => "Power".to_owned(),
            Key::Code(code) => code.to_string(),
        }
    }
}

/// What a step does.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Action {
    /// Start the app.
    Launch(Launch),
    /// Tap a node's centre.
    Tap(Tap, Selector),
    /// Wait until a node is visible.
    WaitFor(Selector),
    /// Wait until a node is no longer visible.
    WaitGone(Selector),
    /// Tap a node and type into it.
    Input { target: Selector, text: ShellValue },
    /// Swipe or fling.
    Move { gesture: Gesture, path: SwipePath },
    /// Swipe `on` until `target` is visible.
    ScrollUntil {
        target: Selector,
        on: Selector,
        max_swipes: u32,
        direction: Direction,
    },
    /// Press a key.
    Press(Key),
    /// Wait a fixed time.
    Sleep(Duration),
}

/// The input a step sends, for the rules that measure its cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InputKind {
    /// A tap, a typed text or a key.
    Tap,
    /// A swipe or fling.
    Swipe,
}

/// The flow step a `perf.response` criterion measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MeasuredStep {
    /// 0-based.
    pub(crate) index: usize,
    /// What it sends.
    pub(crate) input: InputKind,
}

impl Action {
    /// The input the step sends, when `perf.response` can measure its cost.
    pub(crate) fn input(&self) -> Option<InputKind> {
        match self {
            Action::Tap(..) | Action::Input { .. } | Action::Press(_) => Some(InputKind::Tap),
            Action::Move { .. } => Some(InputKind::Swipe),
            _ => None,
        }
    }

    /// The step's key as written.
    pub(crate) fn key(&self) -> &'static str {
        match self {
            Action::Launch(_) => "launch",
            Action::Tap(Tap::Click, _) => "click",
            Action::Tap(Tap::DoubleClick, _) => "double-click",
            Action::Tap(Tap::LongClick, _) => "long-click",
            Action::WaitFor(_) => "wait-for",
            Action::WaitGone(_) => "wait-gone",
            Action::Input { .. } => "input",
            Action::Move {
                gesture: Gesture::Swipe,
                ..
            } => "swipe",
            Action::Move {
                gesture: Gesture::Fling,
                ..
            } => "fling",
            Action::ScrollUntil { .. } => "scroll-until",
            Action::Press(_) => "press",
            Action::Sleep(_) => "sleep",
        }
    }
}

impl std::fmt::Display for Action {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let key = self.key();
        match self {
            Action::Launch(launch) => write!(f, "{key}: {launch}"),
            Action::Tap(_, s) | Action::WaitFor(s) | Action::WaitGone(s) => write!(f, "{key}: {s}"),
            Action::Input { target, text } => write!(f, "{key}: {} into {target}", text.as_str()),
            Action::Move {
                path: SwipePath::On { on, direction, .. },
                ..
            } => write!(f, "{key} {direction} on {on}"),
            Action::Move {
                path: SwipePath::Between { from, to },
                ..
            } => write!(f, "{key} from {from} to {to}"),
            Action::ScrollUntil { target, on, .. } => write!(f, "{key}: {target} on {on}"),
            Action::Press(k) => write!(f, "{key}: {}", k.argument()),
            Action::Sleep(d) => write!(f, "{key}: {} ms", d.as_millis()),
        }
    }
}

/// A validated step.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowStep {
    /// What it does.
    pub(crate) action: Action,
    /// What `perf.response` calls it.
    pub(crate) name: Option<String>,
    /// How long it may wait (waits, scroll-until), or settle (launch, a traced input).
    pub(crate) timeout: Duration,
}

/// A validated flow.
#[derive(Clone, Debug, PartialEq)]
pub struct Flow {
    /// Its name.
    pub(crate) name: String,
    /// Its steps, the first a launch.
    pub(crate) steps: Vec<FlowStep>,
}

impl Flow {
    /// The flow in words, a line per step (`2. click: id:note_item_1 (open)`), for the spec and
    /// the Goal brief: an agent has to know which nodes the audit will look for.
    pub(crate) fn lines(&self) -> Vec<String> {
        self.steps
            .iter()
            .enumerate()
            .map(|(i, step)| match &step.name {
                Some(name) => format!("{}. {} ({name})", i + 1, step.action),
                None => format!("{}. {}", i + 1, step.action),
            })
            .collect()
    }

    /// The 0-based index of the step `reference` names: a step `name`, or a 1-based index.
    pub(crate) fn step(&self, reference: &StepRef) -> Option<usize> {
        match reference {
            StepRef::Index(n) => (*n as usize)
                .checked_sub(1)
                .filter(|i| *i < self.steps.len()),
            StepRef::Name(name) => self
                .steps
                .iter()
                .position(|s| s.name.as_deref() == Some(name)),
        }
    }
}

/// How a probe names a flow step.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq, Hash)]
#[serde(untagged, expecting = "a step name or a 1-based step number")]
pub enum StepRef {
    /// Its 1-based position.
    Index(u32),
    /// Its `name`.
    Name(String),
}

impl std::fmt::Display for StepRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StepRef::Index(n) => write!(f, "{n}"),
            StepRef::Name(name) => write!(f, "{name}"),
        }
    }
}

/// Why a step does not validate: what is wrong and the fix.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct StepError {
    pub(crate) message: String,
    pub(crate) fix: &'static str,
}

fn error(message: impl Into<String>, fix: &'static str) -> StepError {
    StepError {
        message: message.into(),
        fix,
    }
}

/// A flow name: lower-case letters, digits and `-`, so it can name an evidence folder.
pub(crate) fn valid_flow_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 48
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

fn selector(key: &str, text: &str) -> Result<Selector, StepError> {
    Selector::parse(text).map_err(|e| {
        error(
            format!("`{key}`: {e}"),
            "write a selector like \"id:note_item_1\", \"text:Save\" or \"type:Button[2]\"",
        )
    })
}

fn duration(key: &str, text: &str) -> Result<Duration, StepError> {
    let d = parse_duration(text)
        .map_err(|e| error(format!("`{key}`: {e}"), "write it like 5s or 500ms"))?;
    if d > MAX_TIMEOUT {
        return Err(error(
            format!("`{key}: {text}` is longer than {} s", MAX_TIMEOUT.as_secs()),
            "a flow step waits at most two minutes",
        ));
    }
    Ok(d)
}

fn direction(text: Option<&str>) -> Result<Direction, StepError> {
    let text = text.unwrap_or("up");
    Direction::parse(text).ok_or_else(|| {
        error(
            format!(
                "`direction: {text}` is not one of {}",
                Direction::WORDS.join(", ")
            ),
            "say which way the finger moves: up, down, left or right",
        )
    })
}

/// `300vp` → 300.
fn distance(text: &str) -> Result<f64, StepError> {
    text.strip_suffix("vp")
        .and_then(|n| n.trim().parse::<f64>().ok())
        .filter(|n| n.is_finite() && *n > 0.0 && *n <= 10_000.0)
        .ok_or_else(|| {
            error(
                format!("`distance: {text}` is not a length in vp"),
                "write it like 300vp",
            )
        })
}

/// Validates one step. `first` says whether it is the flow's first.
pub(crate) fn step(doc: &FlowStepDoc, first: bool) -> Result<FlowStep, StepError> {
    let given = [
        doc.launch.is_some(),
        doc.click.is_some(),
        doc.double_click.is_some(),
        doc.long_click.is_some(),
        doc.wait_for.is_some(),
        doc.wait_gone.is_some(),
        doc.input.is_some(),
        doc.swipe.is_some(),
        doc.fling.is_some(),
        doc.scroll_until.is_some(),
        doc.press.is_some(),
        doc.sleep.is_some(),
    ];
    let keys = "launch, click, double-click, long-click, wait-for, wait-gone, input, swipe, fling, scroll-until, press or sleep";
    match given.iter().filter(|g| **g).count() {
        1 => {}
        0 => {
            return Err(error(
                format!("the step has no action (one of {keys})"),
                "give the step exactly one action key",
            ));
        }
        _ => {
            return Err(error(
                "the step has more than one action",
                "split it into one step per action",
            ));
        }
    }
    let mut wait_timeout = None;
    let action = if let Some(launch) = &doc.launch {
        Action::Launch(Launch::parse(launch).ok_or_else(|| {
            error(
                format!("`launch: {launch}` is not cold or warm"),
                "write `launch: cold` or `launch: warm`",
            )
        })?)
    } else if let Some(s) = &doc.click {
        Action::Tap(Tap::Click, selector("click", s)?)
    } else if let Some(s) = &doc.double_click {
        Action::Tap(Tap::DoubleClick, selector("double-click", s)?)
    } else if let Some(s) = &doc.long_click {
        Action::Tap(Tap::LongClick, selector("long-click", s)?)
    } else if let Some(wait) = doc.wait_for.as_ref().or(doc.wait_gone.as_ref()) {
        let key = if doc.wait_for.is_some() {
            "wait-for"
        } else {
            "wait-gone"
        };
        let target = match wait {
            WaitDoc::Target(t) => selector(key, t)?,
            WaitDoc::Full(full) => {
                wait_timeout = full
                    .timeout
                    .as_deref()
                    .map(|t| duration("timeout", t))
                    .transpose()?;
                selector(key, &full.target)?
            }
        };
        if doc.wait_for.is_some() {
            Action::WaitFor(target)
        } else {
            Action::WaitGone(target)
        }
    } else if let Some(input) = &doc.input {
        Action::Input {
            target: selector("target", &input.target)?,
            text: input_text(&input.text)?,
        }
    } else if let Some(swipe) = doc.swipe.as_ref().or(doc.fling.as_ref()) {
        let gesture = if doc.swipe.is_some() {
            Gesture::Swipe
        } else {
            Gesture::Fling
        };
        Action::Move {
            gesture,
            path: swipe_path(swipe)?,
        }
    } else if let Some(scroll) = &doc.scroll_until {
        Action::ScrollUntil {
            target: selector("target", &scroll.target)?,
            on: selector("on", &scroll.on)?,
            max_swipes: match scroll.max_swipes {
                Some(n @ 1..=50) => n,
                None => DEFAULT_MAX_SWIPES,
                Some(n) => {
                    return Err(error(
                        format!("`max-swipes: {n}` is not between 1 and 50"),
                        "say how many swipes to try, at most 50",
                    ));
                }
            },
            direction: direction(scroll.direction.as_deref())?,
        }
    } else if let Some(key) = &doc.press {
        Action::Press(Key::parse(key).ok_or_else(|| {
            error(
                format!("`press: {key}` is not a key dwpipe knows"),
                "press back, home, power, enter, delete, tab, space, escape, menu, volume-up, volume-down or dpad-up/down/left/right",
            )
        })?)
    } else {
        let text = doc.sleep.as_deref().unwrap_or_default();
        Action::Sleep(duration("sleep", text)?)
    };
    if first != matches!(action, Action::Launch(_)) {
        return Err(if first {
            error(
                format!("the flow starts with `{}`, not `launch`", action.key()),
                "start every flow with `launch: cold` or `launch: warm`",
            )
        } else {
            error(
                "`launch` may only be the flow's first step",
                "start a second flow for a second launch",
            )
        });
    }
    let step_timeout = doc
        .timeout
        .as_deref()
        .map(|t| duration("timeout", t))
        .transpose()?;
    if step_timeout.is_some() && matches!(action, Action::Sleep(_)) {
        return Err(error(
            "`timeout` means nothing for `sleep`",
            "remove `timeout`",
        ));
    }
    if let Some(name) = &doc.name
        && (name.is_empty() || name.len() > 48 || name.bytes().all(|b| b.is_ascii_digit()))
    {
        return Err(error(
            format!("step name {name:?} is empty, too long or a number"),
            "name a step with a word, like `save`",
        ));
    }
    let default = match action {
        Action::WaitFor(_) | Action::WaitGone(_) | Action::ScrollUntil { .. } => DEFAULT_WAIT,
        _ => DEFAULT_SETTLE,
    };
    Ok(FlowStep {
        action,
        name: doc.name.clone(),
        timeout: wait_timeout.or(step_timeout).unwrap_or(default),
    })
}

fn swipe_path(doc: &SwipeDoc) -> Result<SwipePath, StepError> {
    match (&doc.on, &doc.from, &doc.to) {
        (Some(on), None, None) => Ok(SwipePath::On {
            on: selector("on", on)?,
            direction: direction(doc.direction.as_deref())?,
            distance_vp: doc.distance.as_deref().map(distance).transpose()?,
        }),
        (None, Some(from), Some(to)) if doc.direction.is_none() && doc.distance.is_none() => {
            Ok(SwipePath::Between {
                from: selector("from", from)?,
                to: selector("to", to)?,
            })
        }
        _ => Err(error(
            "a swipe is either `on` a node (with `direction`, `distance`) or `from` a node `to` another",
            "write `{ on: \"id:list\", direction: up, distance: 300vp }` or `{ from: \"id:a\", to: \"id:b\" }`",
        )),
    }
}

/// Input text: letters and digits of any script, space and `. , _ @ + -`, at most 200
/// characters; it reaches the device in single quotes, so nothing else may pass.
fn input_text(text: &str) -> Result<ShellValue, StepError> {
    let fix = "type letters, digits, spaces and . , _ @ + - only, at most 200 characters";
    if let Some(why) = crate::shell::input_text_refusal(text, MAX_INPUT_CHARS) {
        return Err(error(format!("input text {text:?}: {why}"), fix));
    }
    ShellValue::input_text(text, MAX_INPUT_CHARS).map_err(|e| error(e.to_string(), fix))
}

/// What does not validate: `(flow name, step index or None, error)`.
pub(crate) type FlowErrors = Vec<(String, Option<usize>, StepError)>;

/// Validates every flow, and says what does not.
pub(crate) fn flows(
    docs: &BTreeMap<String, Vec<Spanned<FlowStepDoc>>>,
) -> (BTreeMap<String, Flow>, FlowErrors) {
    let mut flows = BTreeMap::new();
    let mut errors = Vec::new();
    for (name, docs) in docs {
        if !valid_flow_name(name) {
            errors.push((
                name.clone(),
                None,
                error(
                    format!("flow name {name:?} is not lower-case letters, digits and `-`"),
                    "name a flow like `open-note`",
                ),
            ));
            continue;
        }
        if docs.is_empty() || docs.len() > MAX_STEPS {
            errors.push((
                name.clone(),
                None,
                if docs.is_empty() {
                    error("the flow has no steps", "start it with `launch: cold`")
                } else {
                    error(
                        format!("the flow has {} steps, more than {MAX_STEPS}", docs.len()),
                        "split it: a flow reaches one screen",
                    )
                },
            ));
            continue;
        }
        let mut steps = Vec::with_capacity(docs.len());
        let mut ok = true;
        for (i, doc) in docs.iter().enumerate() {
            match step(&doc.value, i == 0) {
                Ok(step) => {
                    if let Some(n) = &step.name
                        && steps.iter().any(|s: &FlowStep| s.name.as_ref() == Some(n))
                    {
                        errors.push((
                            name.clone(),
                            Some(i),
                            error(
                                format!("step name `{n}` is used twice"),
                                "give every step its own name",
                            ),
                        ));
                        ok = false;
                    }
                    steps.push(step);
                }
                Err(e) => {
                    errors.push((name.clone(), Some(i), e));
                    ok = false;
                }
            }
        }
        if ok {
            flows.insert(
                name.clone(),
                Flow {
                    name: name.clone(),
                    steps,
                },
            );
        }
    }
    (flows, errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(yaml: &str) -> Result<FlowStep, String> {
        let doc: FlowStepDoc = serde_saphyr::from_str(yaml).map_err(|e| e.to_string())?;
        step(&doc, false).map_err(|e| e.message)
    }

    #[test]
    fn every_step_kind_parses_into_its_action() {
        let rows: &[(&str, &str)] = &[
            ("click: \"id:note_item_1\"", "click: id:note_item_1"),
            ("double-click: \"text:Edit\"", "double-click: text:Edit"),
            (
                "long-click: \"type:Button[2]\"",
                "long-click: type:Button[2]",
            ),
            (
                "wait-for: { target: \"id:editor_title\", timeout: 3s }",
                "wait-for: id:editor_title",
            ),
            ("wait-gone: \"id:spinner\"", "wait-gone: id:spinner"),
            (
                "input: { target: \"id:t\", text: \"Groceries 2\" }",
                "input: 'Groceries 2' into id:t",
            ),
            (
                "swipe: { on: \"id:list\", direction: up, distance: 300vp }",
                "swipe up on id:list",
            ),
            (
                "fling: { from: \"id:a\", to: \"id:b\" }",
                "fling from id:a to id:b",
            ),
            (
                "scroll-until: { target: \"text:Archive\", on: \"id:list\", max-swipes: 5 }",
                "scroll-until: text:Archive on id:list",
            ),
            ("press: back", "press: Back"),
            ("press: enter", "press: 2054"),
            ("sleep: 500ms", "sleep: 500 ms"),
        ];
        for (yaml, shown) in rows {
            assert_eq!(parse(yaml).unwrap().action.to_string(), *shown, "{yaml}");
        }
        let wait = parse("wait-for: { target: \"id:x\", timeout: 3s }").unwrap();
        assert_eq!(wait.timeout, Duration::from_secs(3));
        assert_eq!(parse("wait-for: \"id:x\"").unwrap().timeout, DEFAULT_WAIT);
        let named = parse("{ click: \"id:btn_save\", name: save, timeout: 4s }").unwrap();
        assert_eq!(
            (named.name.as_deref(), named.timeout),
            (Some("save"), Duration::from_secs(4))
        );
    }

    #[test]
    fn refuses_what_cannot_run_with_the_reason() {
        let rows: &[(&str, &str)] = &[
            ("{}", "no action"),
            ("{ click: \"id:a\", press: back }", "more than one action"),
            ("tap: \"id:a\"", "unknown field"),
            ("click: \"name:save\"", "selector"),
            (
                "input: { target: \"id:t\", text: \"rm -rf /; echo\" }",
                "`/`",
            ),
            ("input: { target: \"id:t\", text: \"it's\" }", "`'`"),
            ("swipe: { on: \"id:l\", from: \"id:a\" }", "either `on`"),
            ("swipe: { on: \"id:l\", distance: 3cm }", "length in vp"),
            ("press: reboot", "not a key"),
            ("sleep: forever", "sleep"),
            ("{ sleep: 1s, timeout: 2s }", "means nothing"),
            (
                "wait-for: { target: \"id:x\", timeout: 10m }",
                "longer than",
            ),
            ("launch: cold", "only be the flow's first"),
            (
                "scroll-until: { target: \"id:a\", on: \"id:b\", max-swipes: 0 }",
                "between 1 and 50",
            ),
        ];
        for (yaml, expected) in rows {
            let message = parse(yaml).unwrap_err();
            assert!(message.contains(expected), "{yaml}: {message}");
        }
        let doc: FlowStepDoc = serde_saphyr::from_str("click: \"id:a\"").unwrap();
        assert!(
            step(&doc, true)
                .unwrap_err()
                .message
                .contains("not `launch`")
        );
    }

    #[test]
    fn a_step_is_named_by_name_or_by_its_one_based_number() {
        let docs: BTreeMap<String, Vec<Spanned<FlowStepDoc>>> = serde_saphyr::from_str(
            "open-note:\n  - launch: cold\n  - { click: \"id:n\", name: open }\n",
        )
        .unwrap();
        let (flows, errors) = flows(&docs);
        assert!(errors.is_empty());
        let flow = &flows["open-note"];
        assert_eq!(flow.step(&StepRef::Name("open".into())), Some(1));
        assert_eq!(flow.step(&StepRef::Index(2)), Some(1));
        assert_eq!(flow.step(&StepRef::Index(0)), None);
        assert_eq!(flow.step(&StepRef::Index(3)), None);
        assert!(valid_flow_name("open-note") && !valid_flow_name("Open note"));
        let long = format!(
            "long:\n  - launch: cold\n{}",
            "  - sleep: 1ms\n".repeat(MAX_STEPS)
        );
        let docs: BTreeMap<String, Vec<Spanned<FlowStepDoc>>> =
            serde_saphyr::from_str(&long).unwrap();
        let (flows, errors) = super::flows(&docs);
        assert!(flows.is_empty());
        assert!(
            errors[0].2.message.contains("more than 100"),
            "{:?}",
            errors[0].2
        );
    }
}
