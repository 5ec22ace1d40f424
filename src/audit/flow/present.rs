//! RenderService's own present times around a flow (`perf.frames` via hidumper): the surface
//! to read (the app's window, found by its pid in the window manager's table, else
//! `UniRender`), the screen's refresh rate, and the records after the launch and after the
//! last step.

use crate::device::Device;
use crate::diagnostic::chain;
use crate::shell::ShellValue;

use super::super::evidence::{FPS_BEFORE, FPS_SURFACE, SCREEN, StepFailure, step_error};
use super::super::keep::keep_file;
use super::runner::Runner;

/// The render layer every ArkUI window is composed in: read when the app's window has no
/// records of its own (OpenHarmony 5.1 and later keep per-surface records only for
/// self-drawing surfaces).
const UNIRENDER: &str = "UniRender";

impl<D: Device> Runner<'_, '_, D> {
    /// Keeps a reply as evidence under `name`.
    fn save(&mut self, name: &str, text: &str) -> Result<(), StepFailure> {
        keep_file(self.dir, self.files, name, text.as_bytes()).map_err(|e| step_error(chain(&e)))
    }

    /// The surface to read present times for: the app's foreground window, found by its pid
    /// in the window manager's table, when RenderService keeps records for it; else
    /// `UniRender`. Then the screen's refresh rate, and the records as they stand.
    pub(super) async fn present_times_before(&mut self) -> Result<(), StepFailure> {
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
    pub(super) async fn present_times(&mut self, name: &str) -> Result<(), StepFailure> {
        let dump = self
            .shell("hidumper -s RenderService -a '{surface} fps'")
            .await?;
        self.save(name, &dump)
    }
}
