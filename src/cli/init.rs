//! `dwpipe init [DIR]`: a commented example pack that freezes cleanly.

use std::path::Path;

use crate::diagnostic::Diagnostic;
use crate::error::Error;
use crate::exit_code;
use crate::output::write_atomic;

use super::print;

/// The example pack, the same file as `examples/notes/pack.yaml`.
pub(crate) const EXAMPLE_PACK: &str = include_str!("../../examples/notes/pack.yaml");

/// Writes `DIR/pack.yaml`, refusing to overwrite unless `force`.
pub(super) fn run(dir: &Path, force: bool) -> Result<i32, Error> {
    let path = dir.join("pack.yaml");
    if path.exists() && !force {
        return Err(Diagnostic::error(
            "E_INIT_EXISTS",
            format!("`{}` already exists", path.display()),
        )
        .fix("pass --force to overwrite it, or choose another folder")
        .into());
    }
    write_atomic(&path, EXAMPLE_PACK.as_bytes())?;
    print::out(&format!(
        "wrote {}; next: dwpipe freeze {} --out {}",
        path.display(),
        path.display(),
        dir.display()
    ));
    Ok(exit_code::OK)
}
