//! Readiness polls: where a session used to wait a fixed time after `aa start`, it asks the
//! device until the app's window is focused and shown, and goes on as soon as it is. The fixed
//! wait stays the ceiling, so a device that never says so costs no more than before. The poll
//! runs on the device's clock, so a replay, whose clock runs on the recorded delays and pauses,
//! asks as often as the recording did.
//!
//! Ready means: `pidof` names the app's process; the window manager's focused window
//! (`Focus window: <id>` of `hidumper -s WindowManagerService -a -a`) is a foreground window
//! of that process; and its details (`-w <id>`) say it is shown, by the signal its window
//! manager really keeps:
//!
//! - the legacy window manager (`IsStartingWindow: true|false`; OpenHarmony 3.2–4.1 and
//!   builds without SceneBoard) prints the window node's own first-frame flag: drawn is
//!   `FirstFrameCallbackCalled: 1` and `VisibilityState: 0` (3.2 prints no visibility state);
//! - SceneBoard (`IsStartingWindow: -`; OpenHarmony 4.0 on, every HarmonyOS NEXT phone)
//!   prints `FirstFrameCallbackCalled: 1` from a constant, so it is never read: ready is the
//!   session's visibility (`isRSVisible`, RenderService's, where printed, else `IsVisible`).
//!
//! The file the poll keeps names the signal it went on.

use std::path::Path;
use std::time::Duration;

use crate::device::Device;
use crate::playbook::Values;
use crate::probe::hidumper::Window;
use crate::shell::ShellValue;

use super::evidence::{Files, StepFailure};
use super::keep::{device_or_step, keep_said};

/// How long a poll waits before it asks again.
const EVERY: Duration = Duration::from_millis(200);

/// What one look at the device found.
enum Look {
    /// The app's window is focused and shown, by `signal`; where it is, in words.
    Ready {
        window: u64,
        signal: Signal,
        placed: String,
    },
    /// Not yet, and why.
    NotYet(String),
}

/// Polls until the app's window is focused and shown, for at most `within`; writes what it
/// saw into the visit's file `save` (a session's `ready.txt`, a flow's `step-01-ready.txt`)
/// either way.
pub(super) async fn window(
    device: &impl Device,
    values: &mut Values,
    within: Duration,
    dir: &Path,
    save: &str,
    files: &mut Files,
) -> Result<(), StepFailure> {
    let started = device.clock();
    let mut looks = 0u32;
    let said = loop {
        looks += 1;
        let look = look(device, values).await?;
        let spent = device.clock().saturating_sub(started);
        match look {
            Look::Ready {
                window,
                signal,
                placed,
            } => {
                break format!(
                    "ready: window {window} focused and {} after {} ms ({looks} looks; the ceiling is {} ms)\nsignal: {}\n{placed}",
                    signal.state(),
                    spent.as_millis(),
                    within.as_millis(),
                    signal.source()
                );
            }
            Look::NotYet(why) if spent >= within => {
                break format!(
                    "not ready after {} ms ({looks} looks): {why}; went on at the ceiling, as the fixed wait did\n",
                    spent.as_millis()
                );
            }
            Look::NotYet(_) => {
                device
                    .pause(EVERY.min(within - spent))
                    .await
                    .map_err(device_or_step)?;
            }
        }
    };
    keep_said(dir, files, save, &said)
}

/// One look: the app's pid, the focused window, and that window's first frame.
async fn look(device: &impl Device, values: &mut Values) -> Result<Look, StepFailure> {
    let pid = ask(device, values, "pidof {bundle}").await?;
    let Some(pid) = pid
        .split_whitespace()
        .next()
        .and_then(|p| p.parse::<u32>().ok())
    else {
        return Ok(Look::NotYet("the app has no process yet".to_owned()));
    };
    let table = ask(device, values, "hidumper -s WindowManagerService -a -a").await?;
    let table = match crate::probe::hidumper::windows(&table) {
        Ok(table) => table,
        Err(e) => return Ok(Look::NotYet(format!("the window table: {e}"))),
    };
    let Some(focus) = table.focus else {
        return Ok(Look::NotYet("no window has the focus".to_owned()));
    };
    let Some(app) = table
        .windows
        .iter()
        .find(|w| w.id == focus && w.pid == pid && w.foreground)
    else {
        return Ok(Look::NotYet(format!(
            "the focused window {focus} is not the app's (pid {pid})"
        )));
    };
    let number = |kind: &'static str, n: u64| {
        ShellValue::number(kind, &n.to_string()).map_err(|e| StepFailure::Step {
            reason: e.to_string(),
        })
    };
    values.set("window", number("window", focus)?);
    // Where the captures of the visit look: the display the app's window is on.
    values.set("display", number("display", app.display)?);
    let placed = placed(app, &table.windows);
    let detail = ask(
        device,
        values,
        "hidumper -s WindowManagerService -a '-w {window}'",
    )
    .await?;
    Ok(match shown(&detail) {
        Ok(signal) => Look::Ready {
            window: focus,
            signal,
            placed,
        },
        Err(why) => Look::NotYet(format!("window {focus} {why}")),
    })
}

/// Where the app's window `app` is (`window:`), and which other apps' windows share its
/// display (`windowing:`): what the visit's layout dump and screenshot are of, and what another
/// app may cover of it.
fn placed(app: &Window, windows: &[Window]) -> String {
    let [x, y, w, h] = app.rect;
    let others: Vec<String> = windows
        .iter()
        .filter(|o| o.foreground && o.is_apps() && o.pid != app.pid && o.display == app.display)
        .map(|o| {
            let [x, y, w, h] = o.rect;
            format!(
                "{} (window {}, pid {}, {}, [{x} {y} {w} {h}])",
                o.name,
                o.id,
                o.pid,
                o.mode_words()
            )
        })
        .collect();
    let windowing = match (app.shares_display(), others.is_empty()) {
        (false, true) => format!("the app alone on display {}", app.display),
        (_, true) => format!(
            "the app in {}, no other app's window on display {}",
            app.mode_words(),
            app.display
        ),
        (_, false) => format!(
            "the app in {}, beside or under other apps' windows on display {}: {}",
            app.mode_words(),
            app.display,
            others.join("; ")
        ),
    };
    format!(
        "window: {} on display {} at [{x} {y} {w} {h}], {}\nwindowing: {windowing}\n",
        app.id,
        app.display,
        app.mode_words()
    )
}

/// The signal a window was found shown by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Signal {
    /// The legacy window manager's first-frame flag of the window node.
    FirstFrame,
    /// SceneBoard: RenderService's visibility of the session (`isRSVisible`).
    RenderVisible,
    /// SceneBoard: the session's visibility (`IsVisible`).
    SessionVisible,
}

impl Signal {
    /// What the window was found to be.
    fn state(self) -> &'static str {
        match self {
            Signal::FirstFrame => "drawn",
            Signal::RenderVisible | Signal::SessionVisible => "visible",
        }
    }

    /// Which field, of which window manager, said so.
    fn source(self) -> &'static str {
        match self {
            Signal::FirstFrame => {
                "legacy window manager: FirstFrameCallbackCalled 1 (the window node's own first frame), VisibilityState 0"
            }
            Signal::RenderVisible => {
                "SceneBoard: isRSVisible (RenderService sees the window); its FirstFrameCallbackCalled is a constant and was not read"
            }
            Signal::SessionVisible => {
                "SceneBoard: IsVisible (the session is shown); its FirstFrameCallbackCalled is a constant and was not read"
            }
        }
    }
}

/// Whether a window's details (`hidumper -s WindowManagerService -a '-w <id>'`) say it is
/// shown, and by which signal; else why not.
fn shown(detail: &str) -> Result<Signal, String> {
    let field = |name: &str| {
        detail
            .lines()
            .find_map(|l| l.trim().strip_prefix(name))
            .map(str::trim)
    };
    let yes = |value: Option<&str>| matches!(value, Some("1" | "true"));
    let scene_board = match field("IsStartingWindow:") {
        Some("true" | "false") => false,
        Some(_) => true,
        None => field("isRSVisible:").is_some(),
    };
    if scene_board {
        return match field("isRSVisible:") {
            Some(value) if yes(Some(value)) => Ok(Signal::RenderVisible),
            Some(value) => Err(format!(
                "is not visible to RenderService (isRSVisible {value})"
            )),
            None if yes(field("IsVisible:")) => Ok(Signal::SessionVisible),
            None => Err("is not visible (IsVisible false)".to_owned()),
        };
    }
    match (
        field("FirstFrameCallbackCalled:"),
        field("VisibilityState:"),
    ) {
        (Some("1"), Some("0")) => Ok(Signal::FirstFrame),
        // 3.2 prints no visibility state: its `IsVisible`, when printed, stands for it.
        (Some("1"), None) if field("IsVisible:") != Some("false") => Ok(Signal::FirstFrame),
        (Some("1"), Some(state)) => Err(format!(
            "is drawn but not visible (VisibilityState {state})"
        )),
        (Some("1"), None) => Err("is drawn but not visible (IsVisible false)".to_owned()),
        _ => Err("has not drawn its first frame".to_owned()),
    }
}

/// Runs a command: its output whatever its status (a poll reads the words; `pidof` of a
/// process not there yet exits 1).
async fn ask(device: &impl Device, values: &Values, template: &str) -> Result<String, StepFailure> {
    let command = values.command(template).map_err(|e| StepFailure::Step {
        reason: e.to_string(),
    })?;
    let reply = device.shell(&command).await.map_err(device_or_step)?;
    Ok(reply.output)
}

#[cfg(test)]
mod tests;
