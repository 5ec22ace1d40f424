//! `dwpipe init [DIR]`: a commented example pack that freezes cleanly, and a commented
//! `dwpipe.yaml`.

use std::path::Path;

use crate::agent::permissions;
use crate::diagnostic::Diagnostic;
use crate::exit_code;
use crate::input::read_text;
use crate::output::write_atomic;
use crate::template::{INIT_APPANALYZER, INIT_CONFIG, INIT_PACK, INIT_STABILITY};

use super::error::Error;
use super::print;
use super::{Edge, Run};
use std::path::PathBuf;

impl Run for InitArgs {
    fn execute(self, _: &Edge) -> Result<i32, Error> {
        let pack = match self.preset {
            Preset::Example => format!("{INIT_PACK}{INIT_STABILITY}"),
            Preset::Appanalyzer => INIT_APPANALYZER.to_owned(),
        };
        run(&self.dir, self.force, &pack)
    }
}

/// Writes `DIR/pack.yaml` (`pack`) and `DIR/dwpipe.yaml`, refusing to overwrite either unless
/// `force`.
fn run(dir: &Path, force: bool, pack: &str) -> Result<i32, Error> {
    let files = [
        (crate::pipeline::DEFAULT_PACK, pack),
        (crate::config::CONFIG_FILE, INIT_CONFIG),
    ];
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
    let pack = dir.join(crate::pipeline::DEFAULT_PACK);
    // The same next steps the README gives: the criteria and the project, a device, the
    // tools, then the delivery.
    let config = dir.join(crate::config::CONFIG_FILE);
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

#[derive(Debug, clap::Args)]
pub(super) struct InitArgs {
    /// Folder to write pack.yaml and dwpipe.yaml into.
    #[arg(default_value = ".")]
    pub(super) dir: PathBuf,
    /// Overwrite existing files.
    #[arg(long)]
    pub(super) force: bool,
    /// Which pack to start from.
    #[arg(long, value_enum, default_value_t = Preset::Example)]
    pub(super) preset: Preset,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum Preset {
    /// The example notes app's pack: one criterion of each kind, commented.
    Example,
    /// Huawei's own bands: AppAnalyzer's health-check rules and DevEco Testing's performance
    /// tasks as should (pass band) and must (fail band) criteria, with DevEco Testing's device
    /// preconditions.
    Appanalyzer,
}
