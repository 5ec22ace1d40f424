//! A flow on the device: its steps in order, every selector resolved against a fresh layout
//! dump of the app window, taps at the centre of the node's visible rect, waits counted on
//! the device's clock (so a replay polls as often as the device did), a trace around the
//! steps a criterion measures, and a screenshot after every step, taken once any trace has
//! finished so it never adds frames to a measured window. What each step did is kept as
//! `flow.json`; a step that cannot be done ends the flow with the step, the selector and the
//! last layout named. The runner's steps are in [`runner`], RenderService's present times in
//! [`present`], where a finger goes on a node in [`geometry`].

mod geometry;
mod present;
mod run;
mod runner;

pub(super) use run::{EndedOn, FlowPlan, frames_steps, run_flow};
