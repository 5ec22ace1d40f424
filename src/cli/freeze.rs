//! `dwpipe freeze PACK`: validate, then write `pack.lock.json` and `spec.md`.

use std::path::Path;

use crate::diagnostic::Diagnostic;
use crate::exit_code;
use crate::pack::{LOCK_FILE, freeze_file};

use super::error::Error;
use super::print;
use super::shared::Json;
use super::{Edge, Run};
use std::path::PathBuf;

impl Run for FreezeArgs {
    fn json(&self) -> bool {
        self.output.json
    }

    fn execute(self, _: &Edge) -> Result<i32, Error> {
        run(&self.pack, &self.out, self.force, self.output.json)
    }
}

/// Validates and freezes a pack; returns `Ok(exit code)`.
fn run(pack_path: &Path, out: &Path, force: bool, json: bool) -> Result<i32, Error> {
    let frozen = freeze_file(pack_path)?;
    if !force {
        refuse_orphaning(&out.join(LOCK_FILE), &frozen.lock.sha256, out)?;
    }
    let (lock_path, spec_path) = frozen.write(out)?;
    let warnings = &frozen.found;
    if json {
        print::json(&crate::schema::FreezeOutput {
            format_version: crate::format::FREEZE,
            sha256: &frozen.lock.sha256,
            criteria: frozen.pack.criteria.len(),
            lock: crate::text::doc_path(&lock_path),
            spec: crate::text::doc_path(&spec_path),
            diagnostics: warnings,
        });
    } else {
        print::diagnostics(warnings);
        print::out(&format!(
            "frozen {} of {} → {} (sha256 {}), {}{}",
            crate::text::counted(frozen.pack.criteria.len(), "criterion", "criteria"),
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

/// How deep under `--out` audits are looked for (`<out>/lab/<device>/audit-1.json` is 3).
const AUDIT_DEPTH: usize = 4;

/// Refuses to replace the lock at `lock` by one of another pack (`sha256`) when audits under
/// `out` were made against it: they name it by path and would stop verifying. Re-freezing the
/// same pack, or one nobody audited yet, is never refused.
fn refuse_orphaning(lock: &Path, sha256: &str, out: &Path) -> Result<(), Error> {
    let Ok(old) = crate::pack::load_lock(lock) else {
        return Ok(());
    };
    let old = old.lock.sha256;
    if old == sha256 {
        return Ok(());
    }
    let Ok(lock) = std::fs::canonicalize(lock) else {
        return Ok(());
    };
    let audits: Vec<_> = walkdir::WalkDir::new(out)
        .max_depth(AUDIT_DEPTH)
        .into_iter()
        .filter_entry(|e| e.file_name() != ".dwpipe")
        .flatten()
        .filter(|e| {
            let name = e.file_name().to_string_lossy();
            name.starts_with("audit-") && name.ends_with(".json")
        })
        .filter(|e| made_against(e.path(), &lock, &old))
        .map(|e| e.path().to_owned())
        .collect();
    let Some(first) = audits.first() else {
        return Ok(());
    };
    Err(Diagnostic::error(
        "E_FREEZE_REPLACES_AUDITED",
        format!(
            "`{}` is the lock (pack {}) of {} audit(s) under `{}`, `{}` the first: freezing another pack over it would leave them unverifiable",
            lock.display(),
            &old[..12],
            audits.len(),
            out.display(),
            first.display()
        ),
    )
    .fix("freeze into another --out folder, or pass --force to replace it anyway")
    .into())
}

/// Whether the audit report at `path` names the lock `lock` and was made against pack `sha`
/// (read for those two keys only: every other value is skipped as it is parsed).
fn made_against(path: &Path, lock: &Path, sha: &str) -> bool {
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "kebab-case")]
    struct Made {
        lock: Option<String>,
        pack_sha256: Option<String>,
    }
    let Ok(bytes) = crate::input::read_bounded(path, crate::input::MAX_REPORT_BYTES, "an audit")
    else {
        return false;
    };
    let Ok(report) = serde_json::from_slice::<Made>(&bytes) else {
        return false;
    };
    let named = report
        .lock
        .map(|l| crate::output::dir_or_dot(path.parent()).join(l))
        .and_then(|l| std::fs::canonicalize(l).ok());
    named.as_deref() == Some(lock) && report.pack_sha256.as_deref() == Some(sha)
}

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Errors exit 2 and write nothing; warnings are printed and recorded in the lock."
)]
pub(super) struct FreezeArgs {
    /// The acceptance pack (YAML or JSON).
    pub(super) pack: PathBuf,
    /// Folder for pack.lock.json and spec.md.
    #[arg(long, default_value = ".")]
    pub(super) out: PathBuf,
    /// Replace a lock of another pack even though audits under --out were made against it
    /// (they stop verifying).
    #[arg(long)]
    pub(super) force: bool,
    #[command(flatten)]
    pub(super) output: Json,
}
