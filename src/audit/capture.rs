//! What the screen shows, kept as evidence: a screenshot (`uitest screenCap`, PNG), a layout
//! dump (`uitest dumpLayout`), or both of one screen side by side in one call.
//!
//! Side by side, because neither waits on the other: uitest's `screenCap` reads the display
//! (`DisplayManager::GetScreenshot`) and packs a PNG in its own process, `dumpLayout` asks
//! the accessibility service for the window tree in another (testfwk_arkxtest
//! `uitest/server/server_main.cpp`, `system_ui_controller.cpp`). Each tool's exit status is
//! echoed on its own marker line and each is judged by its own texts; when either did not say
//! it worked, both are taken again one after the other, and so is every later pair of the
//! audit: a device where they cannot run together costs one call's time, never evidence.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::device::{Device, ShellReply, judge};
use crate::playbook::Values;

use super::evidence::{Files, StepFailure};
use super::keep::{device_or_step, judged, pull, remove_remote};

/// The tool of a capture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Shot {
    /// `uitest screenCap`: the screen as PNG (snapshot_display's default is JPEG, which blurs
    /// edges).
    Screen,
    /// `uitest dumpLayout`: the window tree.
    Layout,
}

/// The first API level whose uitest is told what to capture: `dumpLayout -b <bundle>` (the
/// app's windows only) and `-d <display>`, `screenCap -d <display>` (OpenHarmony 5.1,
/// testfwk_arkxtest `server_main.cpp`). Before it, uitest captures display 0 with every window
/// merged, and the app's window is found in the dump afterwards.
pub(crate) const NAMED_FIRST_API: u32 = 18;

/// One capture: its tool, the device path it writes (a template: `{run}` is filled), and the
/// evidence name it is kept under.
pub(super) struct Capture<'s> {
    /// Which tool.
    pub(super) shot: Shot,
    /// The device path it writes (`{run}` filled in when it runs).
    pub(super) remote: String,
    /// The evidence name.
    pub(super) save: &'s str,
    /// Whether uitest is told the app's windows and their display (a phone of
    /// [`NAMED_FIRST_API`] or later).
    pub(super) named: bool,
}

impl Capture<'_> {
    /// Whether a phone of `api_level` is told what to capture.
    pub(super) fn names_window(api_level: Option<u32>) -> bool {
        api_level.is_some_and(|api| api >= NAMED_FIRST_API)
    }

    /// The command that writes `path` (a template: `{bundle}` and `{display}`, the display
    /// the app's window was found on by the visit's readiness poll, are filled when it runs).
    fn command(&self, path: &str, values: &Values) -> String {
        let display = values.has("display");
        match (self.shot, self.named) {
            (Shot::Layout, true) if display => {
                format!("uitest dumpLayout -p {path} -b {{bundle}} -d {{display}}")
            }
            (Shot::Layout, true) => format!("uitest dumpLayout -p {path} -b {{bundle}}"),
            (Shot::Screen, true) if display => {
                format!("uitest screenCap -p {path} -d {{display}}")
            }
            (Shot::Layout, _) => format!("uitest dumpLayout -p {path}"),
            (Shot::Screen, _) => format!("uitest screenCap -p {path}"),
        }
    }
}

/// Whether the device still takes a screenshot and a dump side by side: after the first pair
/// it did not, an audit takes its pairs one after the other (each try costs the longer tool's
/// time before the two are taken apart).
#[derive(Debug, Default)]
pub(super) struct Pairing {
    apart: AtomicBool,
}

/// The markers the side-by-side call echoes each tool's exit status on.
const DUMPED: &str = "__DWPIPE_DUMPED=";
const SHOT: &str = "__DWPIPE_SHOT=";

/// Takes `capture` on its own: its device file removed first (uitest's `screenCap` does not
/// truncate what it writes over), written, pulled.
pub(super) async fn capture(
    device: &impl Device,
    values: &Values,
    capture: &Capture<'_>,
    dir: &Path,
    files: &mut Files,
) -> Result<(), StepFailure> {
    remove_remote(device, values, &capture.remote).await?;
    let command = capture.command(&capture.remote, values);
    judged(device, values, &command).await?;
    pull(device, values, &capture.remote, capture.save, dir, files).await
}

/// Takes a screenshot and a layout dump of the same screen side by side in one call (both
/// files removed in one call before), then pulls both; one after the other when the device
/// did not do both side by side.
pub(super) async fn both(
    device: &impl Device,
    values: &Values,
    pairing: &Pairing,
    (screen, layout): (&Capture<'_>, &Capture<'_>),
    dir: &Path,
    files: &mut Files,
) -> Result<(), StepFailure> {
    // The dump first, either way: what a screenshot that cannot be had leaves unread is only
    // what reads the screen.
    if pairing.apart.load(Ordering::Relaxed) {
        capture(device, values, layout, dir, files).await?;
        return capture(device, values, screen, dir, files).await;
    }
    let fail = |reason: String| StepFailure::Step { reason };
    let path = |c: &Capture<'_>| {
        values
            .remote_path(&c.remote)
            .map(|p| p.as_str().to_owned())
            .map_err(|e| fail(e.to_string()))
    };
    let (screen_path, layout_path) = (path(screen)?, path(layout)?);
    judged(
        device,
        values,
        &format!("rm -f {screen_path} {layout_path}"),
    )
    .await?;
    let filled = |template: String| {
        values
            .command(&template)
            .map(|c| c.as_str().to_owned())
            .map_err(|e| fail(e.to_string()))
    };
    let screen_command = filled(screen.command(&screen_path, values))?;
    let layout_command = filled(layout.command(&layout_path, values))?;
    let command = values
        .command(&format!(
            "{screen_command} & {layout_command}; echo {DUMPED}$?; wait $!; echo {SHOT}$?"
        ))
        .map_err(|e| fail(e.to_string()))?;
    let reply = device.shell(&command).await.map_err(device_or_step)?;
    if !side_by_side(&reply, &screen_command, &layout_command) {
        pairing.apart.store(true, Ordering::Relaxed);
        capture(device, values, layout, dir, files).await?;
        return capture(device, values, screen, dir, files).await;
    }
    pull(device, values, &layout.remote, layout.save, dir, files).await?;
    pull(device, values, &screen.remote, screen.save, dir, files).await
}

/// Whether both tools of a side-by-side call said they worked: each one's status, echoed on
/// its marker, and each one's own failure texts looked for in everything they printed. A
/// marker is the shell's only when it is a whole line, and the last of its kind: the shell
/// echoes it after its tool ended, so a marker-like line a tool printed comes before it.
fn side_by_side(reply: &ShellReply, screen_command: &str, layout_command: &str) -> bool {
    let status = |marker: &str| {
        reply
            .output
            .lines()
            .rev()
            .find_map(|l| l.trim().strip_prefix(marker))
            .and_then(|status| status.parse::<i32>().ok())
    };
    let printed: String = reply
        .output
        .lines()
        .filter(|l| !l.starts_with(DUMPED) && !l.starts_with(SHOT))
        .map(|l| format!("{l}\n"))
        .collect();
    let judged = |command: &str, status: Option<i32>| {
        status.is_some_and(|status| {
            let alone = ShellReply {
                output: printed.clone(),
                status,
                duration: reply.duration,
            };
            judge(command, &alone).is_ok()
        })
    };
    judged(screen_command, status(SHOT)) && judged(layout_command, status(DUMPED))
}

#[cfg(test)]
mod tests;
