//! `dwpipe freeze PACK`: validate, then write `pack.lock.json` and `spec.md`.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::diagnostic::{Diagnostic, has_errors};
use crate::error::Error;
use crate::exit_code;
use crate::output::write_atomic;
use crate::pack::{Frozen, freeze, load_pack, validate};
use crate::report::SpecView;
use crate::template::render;

use super::print;

/// `--json` output of freeze.
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
    let (lock_path, spec_path) = write_lock(&frozen, out)?;
    let warnings = &frozen.lock.diagnostics;
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

/// Writes `pack.lock.json` and `spec.md` into `out`; returns their paths.
pub(crate) fn write_lock(frozen: &Frozen, out: &Path) -> Result<(PathBuf, PathBuf), Error> {
    let lock_path = out.join("pack.lock.json");
    let spec_path = out.join("spec.md");
    let spec = render("spec.md", &SpecView::new(frozen))?;
    let lock_json =
        serde_json::to_string_pretty(&frozen.lock).expect("a lock always serializes") + "\n";
    write_atomic(&spec_path, spec.as_bytes())?;
    // The lock goes last: a lock on disk always has its spec beside it.
    write_atomic(&lock_path, lock_json.as_bytes())?;
    Ok((lock_path, spec_path))
}

/// Loads, validates and freezes a pack file, refusing it on any error.
pub(crate) fn freeze_file(pack_path: &Path) -> Result<Frozen, Error> {
    let (doc, _syntax) = load_pack(pack_path)?;
    let (pack, diagnostics) = validate(doc, pack_path);
    match pack {
        Some(pack) if !has_errors(&diagnostics) => Ok(freeze(pack, diagnostics)),
        _ => Err(Error::Invalid(diagnostics)),
    }
}
