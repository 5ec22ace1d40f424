//! `dwpipe freeze PACK`: validate, then write `pack.lock.json` and `spec.md`.

use std::path::Path;

use serde::Serialize;

use crate::diagnostic::Diagnostic;
use crate::exit_code;
use crate::pack::freeze_file;

use super::error::Error;
use super::print;

/// `--json` output of freeze: what the command did (the lock itself is the document kept).
#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct FreezeOutput<'a> {
    format_version: u32,
    sha256: &'a str,
    criteria: usize,
    lock: String,
    spec: String,
    diagnostics: &'a [Diagnostic],
}

/// Validates and freezes a pack; returns `Ok(exit code)`.
pub(super) fn run(pack_path: &Path, out: &Path, json: bool) -> Result<i32, Error> {
    let frozen = freeze_file(pack_path)?;
    let (lock_path, spec_path) = frozen.write(out)?;
    let warnings = &frozen.found;
    if json {
        print::json(&FreezeOutput {
            format_version: crate::format::FREEZE,
            sha256: &frozen.lock.sha256,
            criteria: frozen.pack.criteria.len(),
            lock: lock_path.display().to_string(),
            spec: spec_path.display().to_string(),
            diagnostics: warnings,
        });
    } else {
        print::diagnostics(warnings);
        print::out(&format!(
            "frozen {} criteria of {} → {} (sha256 {}), {}{}",
            frozen.pack.criteria.len(),
            frozen.pack.doc.app.bundle.value,
            lock_path.display(),
            frozen.lock.sha256,
            spec_path.display(),
            match warnings.len() {
                0 => String::new(),
                n => format!("; {n} warning(s) recorded in the lock"),
            }
        ));
    }
    Ok(exit_code::OK)
}
