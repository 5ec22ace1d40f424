//! Flows: named step lists that take the app from its launch to the screen a criterion is
//! about (`flows: { open-note: [ {launch: cold}, {click: "id:note_item_1"}, … ] }`). The pack
//! writes each step as a one-key map ([`doc`]); validation ([`validate`]) turns it into a typed
//! [`Action`] whose every selector, duration, key and input text is checked at freeze, so
//! nothing a device command is built from is parsed again at audit time.

mod doc;
mod validate;

mod input;
mod steps;
#[cfg(test)]
mod tests;

pub use doc::FlowStepDoc;
pub(crate) use input::{Direction, Gesture, Key, Launch, SwipePath, Tap};
pub(crate) use steps::Action;
pub use steps::{Flow, FlowStep, InputKind, MeasuredStep, StepRef};
pub(crate) use validate::flows;
