//! `dwpipe init [DIR]`: a commented example pack that freezes cleanly, and a commented
//! `dwpipe.yaml`.

use std::path::Path;

use crate::diagnostic::Diagnostic;
use crate::exit_code;
use crate::output::write_atomic;
use crate::template::{INIT_CONFIG, INIT_PACK};

use super::error::Error;
use super::print;

/// Writes `DIR/pack.yaml` and `DIR/dwpipe.yaml`, refusing to overwrite either unless `force`.
pub(super) fn run(dir: &Path, force: bool) -> Result<i32, Error> {
    let files = [("pack.yaml", INIT_PACK), ("dwpipe.yaml", INIT_CONFIG)];
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
    for (name, text) in files {
        write_atomic(&dir.join(name), text.as_bytes())?;
    }
    let pack = dir.join("pack.yaml");
    print::out(&format!(
        "wrote {} and {}; next: dwpipe freeze {} --out {}",
        pack.display(),
        dir.join("dwpipe.yaml").display(),
        pack.display(),
        dir.display()
    ));
    Ok(exit_code::OK)
}
