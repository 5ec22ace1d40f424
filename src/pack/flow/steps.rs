//! A flow and its steps as the pack compiled them: each step's action, its screen, what it
//! measures.

use super::super::selector::Selector;
use super::{Direction, Gesture, Key, Launch, SwipePath, Tap};
use crate::shell::ShellValue;
use serde::{Deserialize, Serialize};
use std::time::Duration;

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
    /// Whether it sends the app away on purpose (`press: home` or `power`): its end is not
    /// held to the app having the focus.
    pub(crate) fn leaves_app(&self) -> bool {
        self.steps
            .iter()
            .any(|s| matches!(s.action, Action::Press(Key::Home | Key::Power)))
    }

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
