//! The runner of one flow: each action's device commands, the dumps a selector is resolved
//! against, the trace around a measured step and the screenshot after every step.

use std::path::Path;
use std::time::Duration;

use crate::device::Device;
use crate::diagnostic::chain;
use crate::input::read_bounded;
use crate::pack::{Action, Direction, FlowStep, Gesture, Launch, Selector, SwipePath};
use crate::playbook::Values;
use crate::probe::layout::{Layout, LayoutError};
use crate::shell::ShellValue;

use super::super::capture::{Capture, Pairing, Shot, both, capture};
use super::super::evidence::{
    Context, FLOW_TRACE, Files, StepFailure, StepFile, StepRecord, step_error, step_file,
};
use super::super::extract::clock_file;
use super::super::keep::{device_or_step, judged, keep_clock, pull, remove_remote};
use super::super::ready;
use super::super::trace_level;
use super::super::window::Windows;
use super::geometry::{along, centre, coordinate, select};

/// How often a wait looks again.
const POLL: Duration = Duration::from_millis(500);
/// Largest layout dump a flow reads back to resolve a selector.
const MAX_DUMP_BYTES: u64 = 64 * 1024 * 1024;
/// Where the trace over a window of a flow's steps is written on the device.
const WINDOW_REMOTE: &str = "/data/local/tmp/dwpipe-flow-{run}.ftrace";
/// The categories a traced step records: what the response and frame rules read.
const TRACE_BEGIN: &str =
    "hitrace -b 65536 app ability ace graphic multimodalinput ohos --trace_begin";

/// One run of a flow.
pub(super) struct Runner<'d, 'v, D> {
    pub(super) device: &'d D,
    pub(super) values: &'v mut Values,
    pub(super) dir: &'d Path,
    pub(super) files: &'d mut Files,
    pub(super) context: Context<'d>,
    pub(super) began: Duration,
    /// How long traced steps settle, from what earlier runs showed.
    pub(super) windows: &'d Windows,
    /// A step whose screenshot waits for the next step's first dump, to be taken beside it.
    pub(super) screen_due: Option<usize>,
    /// Whether the device still takes a screenshot and a dump side by side.
    pub(super) pairing: &'d Pairing,
    /// The level threshold the flow's window lowered, to set back.
    pub(super) window_level: Option<trace_level::Lowered>,
}

/// Whether `action` begins with a dump of the screen (to resolve a selector or look for one):
/// the step before it may leave its screenshot to be taken beside that dump.
pub(super) fn dumps_first(action: &Action) -> bool {
    match action {
        Action::Tap(..)
        | Action::Input { .. }
        | Action::Move { .. }
        | Action::WaitFor(_)
        | Action::WaitGone(_)
        | Action::ScrollUntil { .. } => true,
        Action::Launch(_) | Action::Press(_) | Action::Sleep(_) => false,
    }
}

impl<D: Device> Runner<'_, '_, D> {
    pub(super) async fn step(
        &mut self,
        index: usize,
        step: &FlowStep,
        traced: bool,
        done: &mut StepRecord,
    ) -> Result<(), StepFailure> {
        match &step.action {
            Action::Launch(launch) => {
                if *launch == Launch::Cold {
                    self.shell("aa force-stop {bundle}").await?;
                }
                self.shell("aa start -b {bundle} -a {ability}").await?;
                // Polled as a session's start is, the step's timeout the ceiling (the fixed
                // wait it replaced): a launch is never traced, so nothing measured is loaded.
                let save = step_file(index, StepFile::Ready);
                ready::window(
                    self.device,
                    self.values,
                    step.timeout,
                    self.dir,
                    &save,
                    self.files,
                )
                .await?;
            }
            Action::Tap(tap, selector) => {
                let (layout, node) = self.resolve(index, selector, done).await?;
                let at = centre(&layout, node);
                done.at = Some(at);
                let command = format!("uitest uiInput {} {{x}} {{y}}", tap.verb());
                self.point(at)?;
                self.input(index, &command, traced, step.timeout).await?;
            }
            Action::Input { target, text } => {
                let (layout, node) = self.resolve(index, target, done).await?;
                let at = centre(&layout, node);
                done.at = Some(at);
                self.point(at)?;
                self.values.set("text", text.clone());
                self.input(
                    index,
                    "uitest uiInput inputText {x} {y} {text}",
                    traced,
                    step.timeout,
                )
                .await?;
            }
            Action::Move { gesture, path } => {
                let (from, to) = self.path(index, path, done).await?;
                done.at = Some(from);
                done.to = Some(to);
                self.swipe(index, *gesture, from, to, traced, step.timeout)
                    .await?;
            }
            Action::WaitFor(selector) => self.wait(index, selector, true, step, done).await?,
            Action::WaitGone(selector) => self.wait(index, selector, false, step, done).await?,
            Action::ScrollUntil {
                target,
                on,
                max_swipes,
                direction,
            } => {
                self.scroll_until(index, (target, on), (*max_swipes, *direction), step, done)
                    .await?;
            }
            Action::Press(key) => {
                self.values.set(
                    "key",
                    match key {
                        crate::pack::Key::Code(code) => {
                            ShellValue::number("key code", &code.to_string())
                        }
                        named => ShellValue::identifier("key", &named.argument()),
                    }
                    .map_err(|e| step_error(e.to_string()))?,
                );
                self.input(index, "uitest uiInput keyEvent {key}", traced, step.timeout)
                    .await?;
            }
            Action::Sleep(duration) => self.pause(*duration).await?,
        }
        Ok(())
    }

    /// Polls the layout until `selector` is `present` (or gone), within the step's timeout.
    async fn wait(
        &mut self,
        index: usize,
        selector: &Selector,
        present: bool,
        step: &FlowStep,
        done: &mut StepRecord,
    ) -> Result<(), StepFailure> {
        let started = self.device.clock();
        loop {
            let found = self.found(index, selector, done).await?;
            if found.is_ok() == present {
                break;
            }
            if self.device.clock().saturating_sub(started) >= step.timeout {
                let file = step_file(index, StepFile::Layout);
                return Err(step_error(match found {
                    Err(e) => format!(
                        "{} within {} ms: {e} (last layout: {file})",
                        "did not appear",
                        step.timeout.as_millis()
                    ),
                    Ok(_) => format!(
                        "`{selector}` was still visible after {} ms (last layout: {file})",
                        step.timeout.as_millis()
                    ),
                }));
            }
            self.pause(POLL).await?;
        }
        Ok(())
    }

    /// Swipes on `on` in `direction` until `target` appears, at most `max_swipes` times.
    async fn scroll_until(
        &mut self,
        index: usize,
        (target, on): (&Selector, &Selector),
        (max_swipes, direction): (u32, Direction),
        step: &FlowStep,
        done: &mut StepRecord,
    ) -> Result<(), StepFailure> {
        let mut swipes = 0;
        loop {
            let found = self.found(index, target, done).await?;
            if found.is_ok() {
                break;
            }
            if swipes == max_swipes {
                return Err(step_error(format!(
                    "`{target}` did not appear after {swipes} swipes (last layout: {})",
                    step_file(index, StepFile::Layout)
                )));
            }
            let layout = self.layout(index)?;
            let node = select(&layout, self.context.bundle, on, index)?;
            let (from, to) = along(&layout, node, direction, None, self.context.vpr);
            done.at = Some(from);
            done.to = Some(to);
            self.swipe(index, Gesture::Swipe, from, to, false, step.timeout)
                .await?;
            swipes += 1;
        }
        Ok(())
    }

    /// Lets `duration` pass on the device.
    async fn pause(&self, duration: Duration) -> Result<(), StepFailure> {
        self.device.pause(duration).await.map_err(device_or_step)
    }

    /// Runs a command template; a reply its tool does not call a success (a non-zero status,
    /// a failure text such as `aa`'s or uitest's, printed with status 0) fails the step.
    pub(super) async fn shell(&mut self, template: &str) -> Result<String, StepFailure> {
        judged(self.device, self.values, template).await
    }

    /// Sends an input, inside a trace when the step is measured: the trace begins after the
    /// selector was resolved, and finishes once the screen had `settle` to come to rest.
    async fn input(
        &mut self,
        index: usize,
        template: &str,
        traced: bool,
        settle: Duration,
    ) -> Result<(), StepFailure> {
        if !traced {
            self.shell(template).await?;
            return Ok(());
        }
        let remote = format!(
            "/data/local/tmp/dwpipe-step-{{run}}-{:02}.ftrace",
            index + 1
        );
        let save = step_file(index, StepFile::Trace);
        // Before the traced window, where a call would load the frames being measured: an
        // earlier run's trace removed, the level threshold lowered (6.0+), the device's clock
        // kept to hold the new one to.
        remove_remote(self.device, self.values, &remote).await?;
        let lowered = trace_level::lower(
            self.device,
            (self.dir, &mut *self.files),
            self.context.api_level,
            &save,
        )
        .await?;
        let traced = self
            .traced_input(template, settle, (index, &remote, &save))
            .await;
        match lowered {
            Some(lowered) => {
                let restored =
                    trace_level::restore(self.device, (self.dir, &mut *self.files), lowered).await;
                traced.and(restored)
            }
            None => traced,
        }
    }

    /// The traced part of an input: the clock, the trace around the input, its pull.
    async fn traced_input(
        &mut self,
        template: &str,
        settle: Duration,
        (index, remote, save): (usize, &str, &str),
    ) -> Result<(), StepFailure> {
        keep_clock(
            self.device,
            self.values,
            self.dir,
            self.files,
            &clock_file(save),
        )
        .await?;
        self.shell(TRACE_BEGIN).await?;
        self.shell(template).await?;
        // A fixed wait: a poll inside the traced window would load the device and show in
        // the very frames being measured. Its length is the step's timeout, or what the
        // earlier runs showed the reading needs (checked on the trace afterwards).
        self.pause(self.windows.step_wait(index, settle)).await?;
        self.shell(&format!("hitrace --trace_finish -o {remote}"))
            .await?;
        pull(self.device, self.values, remote, save, self.dir, self.files).await
    }

    /// Begins the trace over a window of the flow's steps (the app's trace points): an
    /// earlier run's file removed and the device's clock kept first, as for a step's trace.
    pub(super) async fn window_begin(&mut self) -> Result<(), StepFailure> {
        remove_remote(self.device, self.values, WINDOW_REMOTE).await?;
        self.window_level = trace_level::lower(
            self.device,
            (self.dir, &mut *self.files),
            self.context.api_level,
            FLOW_TRACE,
        )
        .await?;
        keep_clock(
            self.device,
            self.values,
            self.dir,
            self.files,
            &clock_file(FLOW_TRACE),
        )
        .await?;
        self.shell(TRACE_BEGIN).await.map(drop)
    }

    /// Finishes the window's trace and pulls it as `flow.ftrace`.
    pub(super) async fn window_finish(&mut self) -> Result<(), StepFailure> {
        self.shell(&format!("hitrace --trace_finish -o {WINDOW_REMOTE}"))
            .await?;
        pull(
            self.device,
            self.values,
            WINDOW_REMOTE,
            FLOW_TRACE,
            self.dir,
            self.files,
        )
        .await?;
        self.restore_window_level().await
    }

    /// Sets back a threshold the window lowered (also when the flow stopped inside it).
    pub(super) async fn restore_window_level(&mut self) -> Result<(), StepFailure> {
        match self.window_level.take() {
            Some(lowered) => {
                trace_level::restore(self.device, (self.dir, &mut *self.files), lowered).await
            }
            None => Ok(()),
        }
    }

    async fn swipe(
        &mut self,
        index: usize,
        gesture: Gesture,
        from: [i64; 2],
        to: [i64; 2],
        traced: bool,
        settle: Duration,
    ) -> Result<(), StepFailure> {
        for (name, value) in [("x", from[0]), ("y", from[1]), ("tx", to[0]), ("ty", to[1])] {
            self.values.set(name, coordinate(value)?);
        }
        let template = match gesture {
            Gesture::Swipe => "uitest uiInput swipe {x} {y} {tx} {ty} 600",
            Gesture::Fling => "uitest uiInput fling {x} {y} {tx} {ty}",
        };
        self.input(index, template, traced, settle).await
    }

    fn point(&mut self, [x, y]: [i64; 2]) -> Result<(), StepFailure> {
        self.values.set("x", coordinate(x)?);
        self.values.set("y", coordinate(y)?);
        Ok(())
    }

    /// Takes a fresh dump of the screen into `step-NN-layout.json` (the last one of a step
    /// stays) and reads it; the screenshot the step before left due is taken beside it.
    async fn dump(&mut self, index: usize, done: &mut StepRecord) -> Result<Layout, StepFailure> {
        let save = step_file(index, StepFile::Layout);
        let named = Capture::names_window(self.context.api_level);
        let layout = Capture {
            shot: Shot::Layout,
            remote: format!("/data/local/tmp/dwpipe-flow-{{run}}-{:02}.json", index + 1),
            save: &save,
            named,
        };
        match self.screen_due.take() {
            Some(before) => {
                let screen_save = step_file(before, StepFile::Screen);
                let screen = screen_capture(before, &screen_save, named);
                let pair = (&screen, &layout);
                both(
                    self.device,
                    self.values,
                    self.pairing,
                    pair,
                    self.dir,
                    self.files,
                )
                .await?;
            }
            None => capture(self.device, self.values, &layout, self.dir, self.files).await?,
        }
        done.dumps += 1;
        self.layout(index)
    }

    /// The step's last dump, parsed.
    fn layout(&self, index: usize) -> Result<Layout, StepFailure> {
        let name = step_file(index, StepFile::Layout);
        let path = self.dir.join(&name);
        let bytes = read_bounded(&path, MAX_DUMP_BYTES, "a layout dump")
            .map_err(|e| step_error(chain(&e)))?;
        Layout::parse(&bytes).map_err(|e| step_error(format!("{name}: {e}")))
    }

    /// Dumps and looks for `selector`: the layout, and the node or why there is none.
    async fn found(
        &mut self,
        index: usize,
        selector: &Selector,
        done: &mut StepRecord,
    ) -> Result<Result<String, LayoutError>, StepFailure> {
        let layout = self.dump(index, done).await?;
        let window = match layout.app_window(Some(self.context.bundle)) {
            Ok(window) => window,
            Err(e) => return Ok(Err(e)),
        };
        let found = layout
            .select(window, selector)
            .map(|node| layout.selector_of(node));
        if let Ok(node) = &found {
            done.node = Some(node.clone());
        }
        Ok(found)
    }

    /// Dumps and resolves `selector`; not found ends the flow.
    async fn resolve(
        &mut self,
        index: usize,
        selector: &Selector,
        done: &mut StepRecord,
    ) -> Result<(Layout, crate::probe::layout::NodeId), StepFailure> {
        let layout = self.dump(index, done).await?;
        let node = select(&layout, self.context.bundle, selector, index)?;
        done.node = Some(layout.selector_of(node));
        Ok((layout, node))
    }

    async fn path(
        &mut self,
        index: usize,
        path: &SwipePath,
        done: &mut StepRecord,
    ) -> Result<([i64; 2], [i64; 2]), StepFailure> {
        match path {
            SwipePath::On {
                on,
                direction,
                distance_vp,
            } => {
                let (layout, node) = self.resolve(index, on, done).await?;
                Ok(along(
                    &layout,
                    node,
                    *direction,
                    *distance_vp,
                    self.context.vpr,
                ))
            }
            SwipePath::Between { from, to } => {
                let (layout, from) = self.resolve(index, from, done).await?;
                let to = select(&layout, self.context.bundle, to, index)?;
                Ok((centre(&layout, from), centre(&layout, to)))
            }
        }
    }

    /// `uitest screenCap` after the step, pulled as `step-NN-screen.png`.
    pub(super) async fn screenshot(&mut self, index: usize) -> Result<(), StepFailure> {
        let save = step_file(index, StepFile::Screen);
        let named = Capture::names_window(self.context.api_level);
        let screen = screen_capture(index, &save, named);
        capture(self.device, self.values, &screen, self.dir, self.files).await
    }

    /// The screenshot left due, taken alone: the step after it ended before its first dump.
    pub(super) async fn screenshot_due(&mut self) -> Result<(), StepFailure> {
        match self.screen_due.take() {
            Some(index) => self.screenshot(index).await,
            None => Ok(()),
        }
    }
}

/// The screenshot after step `index` (0-based), kept as `save`; `named`: of the display the
/// app's window is on.
fn screen_capture(index: usize, save: &str, named: bool) -> Capture<'_> {
    Capture {
        shot: Shot::Screen,
        remote: format!("/data/local/tmp/dwpipe-step-{{run}}-{:02}.png", index + 1),
        save,
        named,
    }
}
