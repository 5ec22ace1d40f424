//! A device with builds of one app to install, for same-device A/B sessions driven through the
//! real hdc process path: a folder with `device.yaml` and `apps.yaml` instead of a transcript.
//!
//! ```yaml
//! format-version: 1
//! bundle: com.example.notes
//! apps:
//!   - { hap: notes-1.0.hap, version-code: 1000000, capture: ../ab-base }
//!   - { hap: notes-1.1.hap, version-code: 1001000, capture: ../ab-slower }
//! ```
//!
//! `install` takes a HAP by its file name (hdc's `install`) or by the version code inside it
//! (`bm install` on a real hdcd, see `phone.rs`) and refuses an older version over a newer one
//! (`install version downgrade`, as the bundle manager does); `uninstall` of an app that is
//! not installed answers `uninstall missing installed bundle`. Every other call is answered
//! by the installed build's capture: the next exchange, from where that build left off, that
//! answers the same operation (wrapping around), so runs numbered alike in the capture and in
//! the session are served their own files.

use std::path::Path;

use serde::Deserialize;

use dwpipe::device::{Capture, DeviceInfo, Operation};

use super::State;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct AppsDoc {
    format_version: u32,
    bundle: String,
    apps: Vec<AppDoc>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct AppDoc {
    hap: String,
    version_code: u64,
    capture: String,
}

/// A build: its HAP's file name, its version, its capture.
pub(crate) struct App {
    pub(crate) hap: String,
    version_code: u64,
    pub(crate) capture: Capture,
}

/// A device with builds to install.
pub(crate) struct Apps {
    pub(crate) info: DeviceInfo,
    bundle: String,
    apps: Vec<App>,
}

/// What the device holds, kept in the state folder between invocations.
impl State {
    fn installed(&self) -> Option<String> {
        std::fs::read_to_string(self.file("installed")).ok()
    }

    fn set_installed(&self, hap: Option<&str>) {
        let _ = match hap {
            Some(hap) => std::fs::write(self.file("installed"), hap),
            None => std::fs::remove_file(self.file("installed")),
        };
    }
}

/// What the bundle manager prints for a successful install and uninstall.
const INSTALLED: &str = "install bundle successfully.\n";
const UNINSTALLED: &str = "uninstall bundle successfully.\n";

impl Apps {
    /// The folder as a device with builds, when it has `apps.yaml`.
    pub(crate) fn load(root: &Path) -> Option<Result<Apps, String>> {
        let loaded = super::fake_device::<AppsDoc>(root, "apps.yaml")?;
        Some(loaded.and_then(|(info, doc)| {
            if doc.format_version != 1 {
                return Err("apps.yaml: format-version 1".to_owned());
            }
            let apps = doc
                .apps
                .into_iter()
                .map(|app| {
                    let capture = Capture::load(&root.join(&app.capture))
                        .map_err(|e| format!("apps.yaml: {}: {e}", app.capture))?;
                    Ok(App {
                        hap: app.hap,
                        version_code: app.version_code,
                        capture,
                    })
                })
                .collect::<Result<_, String>>()?;
            Ok(Apps {
                info,
                bundle: doc.bundle,
                apps,
            })
        }))
    }

    /// The build installed now.
    pub(crate) fn installed_app(&self, state: &State) -> Option<&App> {
        self.named(&state.installed()?)
    }

    /// The build whose HAP has this file name.
    pub(crate) fn named(&self, hap: &str) -> Option<&App> {
        self.apps.iter().find(|a| a.hap == hap)
    }

    /// The build of this version code (what a bundle manager reads inside the HAP).
    pub(crate) fn of_version(&self, version_code: u64) -> Option<&App> {
        self.apps.iter().find(|a| a.version_code == version_code)
    }

    /// `bm install` of `app`: what the bundle manager prints, `Err` when it refused (an older
    /// version over a newer one).
    pub(crate) fn install(&self, state: &State, app: &App) -> Result<String, String> {
        let older = state
            .installed()
            .and_then(|current| self.named(&current))
            .is_some_and(|current| current.version_code > app.version_code);
        if older {
            return Err("error: failed to install bundle.\ncode:9568263\nerror: install version downgrade.\n".to_owned());
        }
        state.set_installed(Some(&app.hap));
        Ok(INSTALLED.to_owned())
    }

    /// `bm uninstall -n BUNDLE`: what the bundle manager prints, `Err` when it refused.
    pub(crate) fn uninstall(&self, state: &State, bundle: &str) -> Result<String, String> {
        if bundle != self.bundle || state.installed().is_none() {
            return Err("error: failed to uninstall bundle.\ncode:9568386\nerror: uninstall missing installed bundle.\n".to_owned());
        }
        state.set_installed(None);
        Ok(UNINSTALLED.to_owned())
    }

    /// The installed build, and the index of the exchange of its capture that answers
    /// `operation` next; why none does, else.
    pub(crate) fn answering(
        &self,
        state: &State,
        operation: &Operation,
    ) -> Result<(&App, usize), String> {
        let hap = state
            .installed()
            .ok_or_else(|| format!("{} is not installed", self.bundle))?;
        let app = self
            .apps
            .iter()
            .find(|a| a.hap == hap)
            .ok_or_else(|| format!("{hap} is not in apps.yaml"))?;
        app.capture
            .next_answering(state.next(&format!("{hap}.next")), operation)
            .map(|i| (app, i))
            .ok_or_else(|| format!("the capture of {hap} never answers `{operation}`"))
    }
}
