//! Freezing: canonical JSON, its SHA-256 and `pack.lock.json`; and loading a lock back with
//! its hash checked.
//!
//! The canonical form is the pack's schema value serialized as compact JSON with object keys
//! sorted (serde_json's default map is ordered). Every later artifact names this hash, so an
//! edited lock is refused rather than audited.
//!
//! A lock seals everything it holds (format 2): the hash covers the pack and the warnings
//! recorded when it was frozen, so text slipped into a lock's diagnostics is a tampered lock.
//! A lock without warnings hashes as the pack alone, as format 1 did, so a clean pack keeps its
//! hash across versions. A format-1 lock is still read, hashed the old way; its warnings were
//! never sealed, so they are left out, with a note to freeze the pack again.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::diagnostic::{Diagnostic, chain, has_errors};
use crate::hash::sha256_hex;
use crate::input::{ReadError, read_bounded};

use crate::input::parse_json;

use super::load::{MAX_PACK_BYTES, load_pack};
use super::model::Pack;
use super::schema::PackDoc;
use super::validate::validate;

const LOCK_FIX: &str = "use the pack.lock.json that `dwpipe freeze` wrote";

/// `pack.lock.json`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct PackLock {
    /// Lock format version.
    pub format_version: u32,
    /// SHA-256 (hex) of the canonical JSON of `pack` and `diagnostics` (see `seal`).
    pub sha256: String,
    /// The pack, normalized.
    pub pack: serde_json::Value,
    /// Warnings recorded when the pack was frozen (sealed with it since format 2), without
    /// their positions in the pack file, so neither where it was frozen from nor how it is
    /// laid out changes its hash.
    #[serde(default)]
    pub diagnostics: Vec<Diagnostic>,
}

impl PackLock {
    /// The lock as `pack.lock.json` holds it (pretty JSON, a final newline): what `freeze`
    /// writes and an audit keeps a copy of.
    pub(crate) fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a lock always serializes") + "\n"
    }
}

/// The hash of a lock of format `format`: the pack alone (format 1, or no warnings), else the
/// pack and its warnings together.
pub(crate) fn seal(format: u32, pack: &serde_json::Value, diagnostics: &[Diagnostic]) -> String {
    if format < 2 || diagnostics.is_empty() {
        return sha256_hex(canonical_json(pack).as_bytes());
    }
    let sealed = serde_json::json!({ "diagnostics": diagnostics, "pack": pack });
    sha256_hex(canonical_json(&sealed).as_bytes())
}

/// A frozen pack: the validated pack and its lock.
#[derive(Clone, Debug)]
pub struct Frozen {
    /// The validated pack.
    pub pack: Pack,
    /// The lock as written to disk.
    pub lock: PackLock,
    /// What freezing or loading found, for the user to read (not part of the lock): the
    /// warnings with their positions, or the note that a format-1 lock should be frozen again.
    pub(crate) found: Vec<Diagnostic>,
}

impl Frozen {
    /// The pack at `path`: a lock (`*.lock.json`) as it is, anything else validated and
    /// frozen now.
    pub(crate) fn open(path: &Path) -> Result<Frozen, Vec<Diagnostic>> {
        let is_lock = path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().ends_with(".lock.json"));
        if is_lock {
            load_lock(path)
        } else {
            freeze_file(path)
        }
    }
}

/// The file name of a lock.
pub const LOCK_FILE: &str = "pack.lock.json";

/// Loads, validates and freezes a pack file, refusing it on any error.
pub fn freeze_file(path: &Path) -> Result<Frozen, Vec<Diagnostic>> {
    let (doc, _syntax) = load_pack(path).map_err(|d| vec![d])?;
    let (pack, diagnostics) = validate(doc, path);
    match pack {
        Some(pack) if !has_errors(&diagnostics) => Ok(freeze(pack, diagnostics)),
        _ => Err(diagnostics),
    }
}

/// The canonical JSON text of a pack value: sorted keys, no insignificant whitespace.
pub fn canonical_json(pack: &serde_json::Value) -> String {
    // Values built by serde_json use ordered maps, so serialization sorts keys.
    serde_json::to_string(pack).expect("a JSON value always serializes")
}

/// Freezes a validated pack: canonical JSON → SHA-256 → lock, with the warnings recorded and
/// sealed (without their positions in the pack file).
pub fn freeze(pack: Pack, warnings: Vec<Diagnostic>) -> Frozen {
    let recorded: Vec<Diagnostic> = warnings
        .iter()
        .cloned()
        .map(|mut d| {
            d.location = None;
            d
        })
        .collect();
    let value = serde_json::to_value(&pack.doc).expect("the pack schema always serializes");
    let sha256 = seal(crate::format::LOCK, &value, &recorded);
    Frozen {
        pack,
        lock: PackLock {
            format_version: crate::format::LOCK,
            sha256,
            pack: value,
            diagnostics: recorded,
        },
        found: warnings,
    }
}

/// Loads `pack.lock.json`: refuses a lock whose pack does not hash to its `sha256`
/// (`E_LOCK_TAMPERED`) and re-validates the pack inside.
pub fn load_lock(path: &Path) -> Result<Frozen, Vec<Diagnostic>> {
    let one = |d: Diagnostic| vec![d];
    // A lock is a pack plus a little; the same bound keeps a hostile file out of memory.
    let bytes = read_bounded(path, 2 * MAX_PACK_BYTES, "a lock").map_err(|e| {
        let code = match e {
            ReadError::Io { .. } => "E_LOCK_UNREADABLE",
            ReadError::TooLarge { .. } => "E_LOCK_TOO_LARGE",
            ReadError::NotAFile { .. } => "E_LOCK_NOT_A_FILE",
        };
        one(Diagnostic::error(code, chain(&e)).fix(LOCK_FIX))
    })?;
    let text = std::str::from_utf8(&bytes).map_err(|_| {
        one(Diagnostic::error(
            "E_LOCK_INVALID",
            format!("`{}` is not UTF-8", path.display()),
        )
        .fix(LOCK_FIX))
    })?;
    let mut lock: PackLock =
        parse_json(path, text).map_err(|d| one(d.recode("E_LOCK_INVALID", LOCK_FIX)))?;
    if !(1..=crate::format::LOCK).contains(&lock.format_version) {
        return Err(one(Diagnostic::error(
            "E_LOCK_UNSUPPORTED",
            format!(
                "lock format-version {} is not supported",
                lock.format_version
            ),
        )
        .fix("freeze the pack again with this dwpipe")));
    }
    let actual = seal(lock.format_version, &lock.pack, &lock.diagnostics);
    if actual != lock.sha256 {
        return Err(one(Diagnostic::error(
            "E_LOCK_TAMPERED",
            format!(
                "`{}` says sha256 {} but what it holds hashes to {actual}",
                path.display(),
                lock.sha256
            ),
        )
        .fix(
            "never edit a lock: change the pack and run `dwpipe freeze` again",
        )));
    }
    let doc: PackDoc = serde_json::from_value(lock.pack.clone()).map_err(|e| {
        one(Diagnostic::error(
            "E_LOCK_INVALID",
            format!("the locked pack does not fit the schema: {e}"),
        )
        .fix("freeze the pack again with this dwpipe"))
    })?;
    let mut found = Vec::new();
    if lock.format_version < crate::format::LOCK {
        let message = if lock.diagnostics.is_empty() {
            format!(
                "`{}` is a format-1 lock; freezing the pack again gives a format-2 lock with the same hash",
                path.display()
            )
        } else {
            format!(
                "`{}` is a format-1 lock: its warnings were never sealed and are left out",
                path.display()
            )
        };
        found.push(
            Diagnostic::warning("W_LOCK_FORMAT_1", message)
                .fix("freeze the pack again with this dwpipe"),
        );
        lock.diagnostics.clear();
    }
    let (pack, diagnostics) = validate(doc, path);
    match pack {
        Some(pack) => Ok(Frozen { pack, lock, found }),
        None => Err(diagnostics
            .into_iter()
            .filter(Diagnostic::is_error)
            .collect()),
    }
}
