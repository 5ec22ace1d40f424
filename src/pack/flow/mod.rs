//! Flows: named step lists that take the app from its launch to the screen a criterion is
//! about (`flows: { open-note: [ {launch: cold}, {click: "id:note_item_1"}, … ] }`). The pack
//! writes each step as a one-key map ([`doc`]); validation ([`validate`]) turns it into a typed
//! [`Action`] whose every selector, duration, key and input text is checked at freeze, so
//! nothing a device command is built from is parsed again at audit time.

mod doc;
mod validate;

#[cfg(test)]
mod tests;

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::shell::ShellValue;
use crate::words::words;

use super::selector::Selector;

pub use doc::FlowStepDoc;
pub(crate) use validate::flows;

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
