//! A flow on the device: its steps in order, every selector resolved against a fresh layout
//! dump of the app window, taps at the centre of the node's visible rect, waits counted on
//! the device's clock (so a replay polls as often as the device did), a trace around the
//! steps a criterion measures, and a screenshot after every step, taken once any trace has
//! finished so it never adds frames to a measured window. What each step did is kept as
//! `flow.json`; a step that cannot be done ends the flow with the step, the selector and the
//! last layout named.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::device::Device;
use crate::diagnostic::chain;
use crate::input::read_bounded;
use crate::pack::SwipePath;
use crate::pack::{Action, Direction, Flow, FlowStep, FramesVia, Gesture, Launch, Selector};
use crate::playbook::Values;
use crate::probe::layout::{Layout, LayoutError, Rect};
use crate::shell::ShellValue;

use super::extract::{Context, Files};
use super::plan::Planned;
use super::session::{StepFailure, device_or_step, pull};
use crate::probe::Extractor;

/// The record of a flow run, kept beside its evidence.
pub(crate) const FLOW_RECORD: &str = "flow.json";
/// How often a wait looks again.
const POLL: Duration = Duration::from_millis(500);
/// Largest layout dump a flow reads back to resolve a selector.
const MAX_DUMP_BYTES: u64 = 64 * 1024 * 1024;
/// The categories a traced step records: what the response and frame rules read.
const TRACE_BEGIN: &str =
    "hitrace -b 65536 app ability ace graphic multimodalinput ohos --trace_begin";

/// The evidence file of a step: `step-02-layout.json`, `step-02-screen.png`, `step-02.ftrace`.
pub(crate) fn step_file(step: usize, what: &str) -> String {
    match what {
        "trace" => format!("step-{:02}.ftrace", step + 1),
        _ => format!("step-{:02}-{what}", step + 1),
    }
}

/// RenderService's present times before the flow's actions (after its launch) and after its
/// last step, the surface they were read for, and the screen's refresh rate.
pub(crate) const FPS_BEFORE: &str = "fps-before.txt";
pub(crate) const FPS_AFTER: &str = "fps-after.txt";
pub(crate) const FPS_SURFACE: &str = "fps-surface.txt";
pub(crate) const SCREEN: &str = "screen.txt";
/// The render layer every ArkUI window is composed in: read when the app's window has no
/// records of its own (OpenHarmony 5.1 and later keep per-surface records only for
/// self-drawing surfaces).
const UNIRENDER: &str = "UniRender";

/// What a flow run does besides its steps.
pub(super) struct FlowPlan<'a> {
    /// The flow.
    pub(super) flow: &'a Flow,
    /// The steps (0-based) traced from their input until the screen settled.
    pub(super) traced: BTreeSet<usize>,
    /// Read RenderService's present times before and after the flow (`perf.frames` via
    /// hidumper).
    pub(super) present_times: bool,
}

impl<'a> FlowPlan<'a> {
    /// The run of `flow` that serves `criteria` (those measured after it in this run): the
    /// steps a response names are traced, and every swipe when a frames criterion reads them.
    pub(super) fn of(flow: &'a Flow, criteria: &[&Planned<'_>]) -> FlowPlan<'a> {
        let mut traced = BTreeSet::new();
        let mut present_times = false;
        for planned in criteria {
            match planned.extractor {
                Extractor::Response => traced.extend(planned.args().step.map(|s| s.index)),
                Extractor::Frames if planned.args().via == FramesVia::Hidumper => {
                    present_times = true;
                }
                Extractor::Frames => traced.extend(
                    flow.steps
                        .iter()
                        .enumerate()
                        .filter(|(_, s)| matches!(s.action, Action::Move { .. }))
                        .map(|(i, _)| i),
                ),
                _ => {}
            }
        }
        FlowPlan {
            flow,
            traced,
            present_times,
        }
    }
}

/// What one step did.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct StepRecord {
    /// 1-based.
    pub(crate) step: usize,
    /// Its name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) name: Option<String>,
    /// What it did, in words.
    pub(crate) action: String,
    /// The node its selector resolved to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) node: Option<String>,
    /// Where the finger went down, in px.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) at: Option<[i64; 2]>,
    /// Where a swipe ended, in px.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) to: Option<[i64; 2]>,
    /// Layout dumps taken (more than one: a wait polled).
    pub(crate) dumps: u32,
    /// When it started, device time since the flow began, in ms.
    pub(crate) started_ms: u64,
    /// How long it held the device, in ms.
    pub(crate) took_ms: u64,
    /// Why it could not be done.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) failed: Option<String>,
}

/// `flow.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct FlowRecord {
    /// 1.
    pub(crate) format_version: u32,
    /// The flow's name.
    pub(crate) flow: String,
    /// Its steps, as far as it got.
    pub(crate) steps: Vec<StepRecord>,
}

/// One run of a flow.
struct Runner<'d, 'v, D> {
    device: &'d D,
    values: &'v mut Values,
    dir: &'d Path,
    files: &'d mut Files,
    context: Context<'d>,
    began: Duration,
}

/// Runs `plan`'s flow on `device`, its evidence into `dir` (and `files`).
pub(super) async fn run_flow(
    device: &impl Device,
    plan: &FlowPlan<'_>,
    values: &mut Values,
    dir: &Path,
    files: &mut Files,
    context: Context<'_>,
) -> Result<(), StepFailure> {
    std::fs::create_dir_all(dir).map_err(|e| StepFailure::Step {
        reason: format!("cannot create `{}`: {e}", dir.display()),
    })?;
    let mut runner = Runner {
        device,
        values,
        dir,
        files,
        context,
        began: device.clock(),
    };
    let mut record = FlowRecord {
        format_version: 1,
        flow: plan.flow.name.clone(),
        steps: Vec::with_capacity(plan.flow.steps.len()),
    };
    let mut outcome = Ok(());
    for (index, step) in plan.flow.steps.iter().enumerate() {
        let started = device.clock();
        let mut done = StepRecord {
            step: index + 1,
            name: step.name.clone(),
            action: step.action.to_string(),
            node: None,
            at: None,
            to: None,
            dumps: 0,
            started_ms: ms(started.saturating_sub(runner.began)),
            took_ms: 0,
            failed: None,
        };
        let result = runner
            .step(index, step, plan.traced.contains(&index), &mut done)
            .await;
        let result = match result {
            Ok(()) => runner.screenshot(index).await,
            Err(e) => Err(e),
        };
        // The frames of the flow's actions: RenderService's records just after the launch,
        // and again after the last step.
        let result = match result {
            Ok(()) if plan.present_times && index == 0 => runner.present_times_before().await,
            Ok(()) if plan.present_times && index + 1 == plan.flow.steps.len() => {
                runner.present_times(FPS_AFTER).await
            }
            other => other,
        };
        done.took_ms = ms(device.clock().saturating_sub(started));
        if let Err(failure) = result {
            let failure = match failure {
                StepFailure::Step { reason } => {
                    let reason = format!(
                        "flow `{}`, step {} (`{}`): {reason}",
                        plan.flow.name,
                        index + 1,
                        step.action
                    );
                    done.failed = Some(reason.clone());
                    StepFailure::Step { reason }
                }
                device => device,
            };
            record.steps.push(done);
            outcome = Err(failure);
            break;
        }
        record.steps.push(done);
    }
    let path = dir.join(FLOW_RECORD);
    let json = serde_json::to_vec_pretty(&record).unwrap_or_default();
    if crate::output::write_atomic(&path, &json).is_ok() {
        runner.files.insert(FLOW_RECORD.to_owned(), path);
    }
    outcome
}

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

fn step_error(reason: impl Into<String>) -> StepFailure {
    StepFailure::Step {
        reason: reason.into(),
    }
}

impl<D: Device> Runner<'_, '_, D> {
    async fn step(
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
                self.device.pause(step.timeout).await;
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
            Action::WaitFor(selector) | Action::WaitGone(selector) => {
                let present = matches!(step.action, Action::WaitFor(_));
                let started = self.device.clock();
                loop {
                    let found = self.found(index, selector, done).await?;
                    if found.is_ok() == present {
                        break;
                    }
                    if self.device.clock().saturating_sub(started) >= step.timeout {
                        let file = step_file(index, "layout.json");
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
                    self.device.pause(POLL).await;
                }
            }
            Action::ScrollUntil {
                target,
                on,
                max_swipes,
                direction,
            } => {
                let mut swipes = 0;
                loop {
                    let found = self.found(index, target, done).await?;
                    if found.is_ok() {
                        break;
                    }
                    if swipes == *max_swipes {
                        return Err(step_error(format!(
                            "`{target}` did not appear after {swipes} swipes (last layout: {})",
                            step_file(index, "layout.json")
                        )));
                    }
                    let layout = self.layout(index)?;
                    let node = select(&layout, self.context.bundle, on, index)?;
                    let (from, to) = along(&layout, node, *direction, None, self.context.vpr);
                    done.at = Some(from);
                    done.to = Some(to);
                    self.swipe(index, Gesture::Swipe, from, to, false, step.timeout)
                        .await?;
                    swipes += 1;
                }
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
            Action::Sleep(duration) => self.device.pause(*duration).await,
        }
        Ok(())
    }

    /// Runs a command template; a reply with a non-zero status, or uitest's refusal of its
    /// coordinates (which it prints with status 0), fails the step.
    async fn shell(&mut self, template: &str) -> Result<String, StepFailure> {
        let command = self
            .values
            .command(template)
            .map_err(|e| step_error(e.to_string()))?;
        let reply = self.device.shell(&command).await.map_err(device_or_step)?;
        if reply.status != 0 || reply.output.contains("Please confirm that the coordinate") {
            return Err(step_error(format!(
                "`{command}` exited {}: {}",
                reply.status,
                reply.output.lines().next().unwrap_or("")
            )));
        }
        Ok(reply.output)
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
        self.shell(TRACE_BEGIN).await?;
        self.shell(template).await?;
        // A fixed wait: a poll inside the traced window would load the device and show in
        // the very frames being measured.
        self.device.pause(settle).await;
        let remote = format!(
            "/data/local/tmp/dwpipe-step-{{run}}-{:02}.ftrace",
            index + 1
        );
        self.written(
            "hitrace --trace_finish -o",
            &remote,
            &step_file(index, "trace"),
        )
        .await
    }

    /// Runs `command` with the device path `remote`, which it writes, and pulls that file as
    /// the evidence `save`.
    async fn written(
        &mut self,
        command: &str,
        remote: &str,
        save: &str,
    ) -> Result<(), StepFailure> {
        self.shell(&format!("{command} {remote}")).await?;
        pull(self.device, self.values, remote, save, self.dir, self.files).await
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
    /// stays) and reads it.
    async fn dump(&mut self, index: usize, done: &mut StepRecord) -> Result<Layout, StepFailure> {
        let remote = format!("/data/local/tmp/dwpipe-flow-{{run}}-{:02}.json", index + 1);
        self.written(
            "uitest dumpLayout -p",
            &remote,
            &step_file(index, "layout.json"),
        )
        .await?;
        done.dumps += 1;
        self.layout(index)
    }

    /// The step's last dump, parsed.
    fn layout(&self, index: usize) -> Result<Layout, StepFailure> {
        let name = step_file(index, "layout.json");
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

    /// Keeps a reply as evidence under `name`.
    fn save(&mut self, name: &str, text: &str) -> Result<(), StepFailure> {
        let path = self.dir.join(name);
        crate::output::write_atomic(&path, text.as_bytes()).map_err(|e| step_error(chain(&e)))?;
        self.files.insert(name.to_owned(), path);
        Ok(())
    }

    /// The surface to read present times for: the app's foreground window, found by its pid
    /// in the window manager's table, when RenderService keeps records for it; else
    /// `UniRender`. Then the screen's refresh rate, and the records as they stand.
    async fn present_times_before(&mut self) -> Result<(), StepFailure> {
        let pid = self.shell("pidof {bundle}").await?;
        let pid: u32 = pid
            .trim()
            .parse()
            .map_err(|_| step_error(format!("`pidof` printed {:?}, not a pid", pid.trim())))?;
        let table = self.shell("hidumper -s WindowManagerService -a -a").await?;
        let window = crate::probe::hidumper::windows(&table)
            .ok()
            .and_then(|t| t.windows.into_iter().find(|w| w.pid == pid && w.foreground))
            .map(|w| w.name)
            .filter(|name| ShellValue::identifier("window", name).is_ok());
        let mut surface = UNIRENDER.to_owned();
        let mut why = format!("{UNIRENDER}: no foreground window of pid {pid} with a plain name");
        if let Some(name) = window {
            self.values.set(
                "surface",
                ShellValue::identifier("window", &name).map_err(|e| step_error(e.to_string()))?,
            );
            let dump = self
                .shell("hidumper -s RenderService -a '{surface} fps'")
                .await?;
            let records = crate::probe::hidumper::fps_blocks(&dump)
                .is_ok_and(|blocks| blocks.iter().any(|b| !b.presents_ns.is_empty()));
            if records {
                surface = name.clone();
                why = format!("window [{name}] (pid {pid})");
            } else {
                why = format!(
                    "{UNIRENDER}: RenderService keeps no records for the app's window `{name}` (OpenHarmony 5.1 and later record only self-drawing surfaces)"
                );
            }
        }
        self.values.set(
            "surface",
            ShellValue::identifier("surface", &surface).map_err(|e| step_error(e.to_string()))?,
        );
        self.save(FPS_SURFACE, &why)?;
        let screen = self.shell("hidumper -s RenderService -a screen").await?;
        self.save(SCREEN, &screen)?;
        self.present_times(FPS_BEFORE).await
    }

    /// RenderService's present times of the chosen surface, kept as `name`.
    async fn present_times(&mut self, name: &str) -> Result<(), StepFailure> {
        let dump = self
            .shell("hidumper -s RenderService -a '{surface} fps'")
            .await?;
        self.save(name, &dump)
    }

    /// `uitest screenCap` after the step, pulled as `step-NN-screen.png`.
    async fn screenshot(&mut self, index: usize) -> Result<(), StepFailure> {
        let remote = format!("/data/local/tmp/dwpipe-step-{{run}}-{:02}.png", index + 1);
        self.written(
            "uitest screenCap -p",
            &remote,
            &step_file(index, "screen.png"),
        )
        .await
    }
}

/// The node `selector` names in the app window of `layout`, or why there is none.
fn select(
    layout: &Layout,
    bundle: &str,
    selector: &Selector,
    index: usize,
) -> Result<crate::probe::layout::NodeId, StepFailure> {
    let last = step_file(index, "layout.json");
    let window = layout
        .app_window(Some(bundle))
        .map_err(|e| step_error(format!("{e} (last layout: {last})")))?;
    layout
        .select(window, selector)
        .map_err(|e| step_error(format!("{e} (last layout: {last})")))
}

/// A coordinate uitest takes: a positive integer (it refuses 0 and below).
fn coordinate(value: i64) -> Result<ShellValue, StepFailure> {
    if value <= 0 {
        return Err(step_error(format!(
            "the point {value} is off screen: uitest takes positive coordinates only"
        )));
    }
    ShellValue::number("coordinate", &value.to_string()).map_err(|e| step_error(e.to_string()))
}

/// The centre of a node's visible rect (a selected node always has one).
fn centre(layout: &Layout, node: crate::probe::layout::NodeId) -> [i64; 2] {
    let rect = layout.visible_rect(node).unwrap_or_default();
    mid(&rect)
}

fn mid(rect: &Rect) -> [i64; 2] {
    [(rect.l + rect.r) / 2, (rect.t + rect.b) / 2]
}

/// A swipe across a node's visible rect: centred on it, `distance` vp long (half the rect
/// by default), kept inside the rect.
fn along(
    layout: &Layout,
    node: crate::probe::layout::NodeId,
    direction: Direction,
    distance_vp: Option<f64>,
    vpr: Option<f64>,
) -> ([i64; 2], [i64; 2]) {
    let rect = layout.visible_rect(node).unwrap_or_default();
    let [cx, cy] = mid(&rect);
    let vertical = matches!(direction, Direction::Up | Direction::Down);
    let span = if vertical {
        rect.height()
    } else {
        rect.width()
    };
    let wanted = match (distance_vp, vpr) {
        (Some(vp), Some(vpr)) => (vp * vpr).round() as i64,
        _ => span / 2,
    };
    // Inside the rect, one px from its edges.
    let half = (wanted.min(span - 2) / 2).max(1);
    match direction {
        Direction::Up => ([cx, cy + half], [cx, cy - half]),
        Direction::Down => ([cx, cy - half], [cx, cy + half]),
        Direction::Left => ([cx + half, cy], [cx - half, cy]),
        Direction::Right => ([cx - half, cy], [cx + half, cy]),
    }
}
