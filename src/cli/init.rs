//! `dwpipe init [DIR]`: a commented example pack that freezes cleanly, and a commented
//! `dwpipe.yaml`.

use std::path::Path;

use crate::agent::permissions;
use crate::diagnostic::Diagnostic;
use crate::exit_code;
use crate::input::read_text;
use crate::output::write_atomic;
use crate::template::{INIT_APPANALYZER, INIT_CONFIG, INIT_PACK};

use super::args::Preset;
use super::error::Error;
use super::print;
use super::{Edge, Run};

impl Run for super::args::InitArgs {
    fn execute(self, _: &Edge) -> Result<i32, Error> {
        let pack = match self.preset {
            Preset::Example => INIT_PACK,
            Preset::Appanalyzer => INIT_APPANALYZER,
        };
        run(&self.dir, self.force, pack)
    }
}

/// Writes `DIR/pack.yaml` (`pack`) and `DIR/dwpipe.yaml`, refusing to overwrite either unless
/// `force`.
fn run(dir: &Path, force: bool, pack: &str) -> Result<i32, Error> {
    let files = [("pack.yaml", pack), ("dwpipe.yaml", INIT_CONFIG)];
    for (name, _) in files {
        let path = dir.join(name);
        if path.exists() && !force {
            return Err(Diagnostic::error(
                "E_INIT_EXISTS",
                format!("`{}` already exists", path.display()),
            )
            .fix("pass --force to overwrite it, or choose another folder")
            .into());
        }
    }
    // DevEco Code's permissions for a non-interactive Goal run, merged into its project file.
    let permissions = dir.join(permissions::FILE);
    let existing = match permissions.exists() {
        true => Some(
            read_text(&permissions, 1024 * 1024, "DevEco Code's config").map_err(|e| {
                Error::from(e.diagnostic(
                    "E_INIT_DEVECO_CONFIG",
                    "fix or remove the file, then run init again",
                ))
            })?,
        ),
        false => None,
    };
    let (merged, dropped) = permissions::merge(existing.as_deref()).map_err(|why| {
        Error::from(
            Diagnostic::error(
                "E_INIT_DEVECO_CONFIG",
                format!("`{}`: {why}", permissions.display()),
            )
            .fix("fix the file (or remove it), then run init again"),
        )
    })?;
    for (name, text) in files {
        write_atomic(&dir.join(name), text.as_bytes())?;
    }
    write_atomic(&permissions, merged.as_bytes())?;
    if dropped {
        print::note(&format!(
            "merged the permissions into {}; its comments could not be kept",
            permissions.display()
        ));
    }
    let pack = dir.join("pack.yaml");
    // The same next steps the README gives: the criteria and the project, a device, the
    // tools, then the delivery.
    let config = dir.join("dwpipe.yaml");
    print::out(&format!(
        "wrote {}, {} and {}\nnext:\n  1. edit {} (the criteria) and {} (workspace, agent, verify commands)\n  2. dwpipe devices                 # pick a device: set `device: {{ serial: … }}` in {}\n  3. dwpipe doctor --config {}    # every tool and the device, ok or missing\n  4. dwpipe deliver --config {} --pack {}",
        pack.display(),
        config.display(),
        permissions.display(),
        pack.display(),
        config.display(),
        config.display(),
        config.display(),
        config.display(),
        pack.display(),
    ));
    Ok(exit_code::OK)
}
