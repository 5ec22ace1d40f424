//! `dwpipe verify-evidence AUDIT.json [--pack LOCK]`: rebuild an audit from its folder,
//! offline, and name every field where the report says otherwise; `COMPARE.json`: both audits
//! so, and the comparison recomputed from them.

use std::path::Path;

use crate::compare::{from_files, read_audit};
use crate::diagnostic::Diagnostic;
use crate::exit_code;
use crate::input::{MAX_REPORT_BYTES, read_bounded};
use crate::recheck::{Cause, recheck};
use crate::schema::Comparison;

use super::error::Error;
use super::load_lock;
use super::print;
use super::{Edge, Run};
use std::path::PathBuf;

impl Run for VerifyEvidenceArgs {
    fn execute(self, _: &Edge) -> Result<i32, Error> {
        run(&self.report, self.lock.as_deref())
    }
}

/// Exit 0 when the report is exactly its rebuild, 1 on any difference. A `compare.json` is
/// verified too: both audits it compared, then the comparison recomputed from them.
fn run(report_path: &Path, pack: Option<&Path>) -> Result<i32, Error> {
    if let Some(comparison) = read_comparison(report_path) {
        return verify_comparison(report_path, &comparison, pack);
    }
    let differences = verify_audit(report_path, pack)?;
    Ok(exit_code::of_differences(differences))
}

/// A `compare.json`, if that is what the file is.
fn read_comparison(path: &Path) -> Option<Comparison> {
    let bytes = read_bounded(path, MAX_REPORT_BYTES, "a report").ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Verifies both audits a comparison names (each the bytes compared, held to the lock it
/// recorded), then recomputes the comparison from them by the lock it was judged by — or by
/// `pack`, which must be that lock — and names every field that differs.
fn verify_comparison(
    path: &Path,
    recorded: &Comparison,
    pack: Option<&Path>,
) -> Result<i32, Error> {
    if recorded.format_version > crate::format::COMPARE {
        return Err(Diagnostic::error(
            "E_EVIDENCE_INVALID",
            format!(
                "`{}` is a comparison of format-version {}, written by dwpipe {}; this dwpipe reads 1 to {}",
                path.display(),
                recorded.format_version,
                recorded.dwpipe_version,
                crate::format::COMPARE
            ),
        )
        .fix(format!("verify it with dwpipe {} or newer", recorded.dwpipe_version))
        .into());
    }
    let out = crate::output::dir_or_dot(path.parent());
    let bound = recorded.lock_sha256.is_some();
    if !bound {
        print::out(&format!(
            "UNBOUND  `{}` (comparison format {}) names its lock and both reports by path only: \
             a lock or a report swapped under it cannot be told",
            path.display(),
            recorded.format_version
        ));
    }
    let mut found = 0;
    for side in [&recorded.baseline, &recorded.candidate] {
        found += verify_audit(&out.join(&side.report), None)?;
    }
    let lock = match pack {
        Some(trusted) => crate::output::relative_to(trusted, out),
        None => recorded.lock.clone(),
    };
    let (baseline, candidate) = (&recorded.baseline.report, &recorded.candidate.report);
    let (mut recomputed, frozen) = from_files(
        out,
        (&out.join(baseline), baseline),
        (&out.join(candidate), candidate),
        Some(&lock),
    )?;
    print::diagnostics(&frozen.found);
    if pack.is_none() {
        print::out(&format!(
            "UNANCHORED  the comparison is held to the lock it names itself, `{}` (sha256 {}); pass --pack with the lock you trust",
            out.join(&recorded.lock).display(),
            frozen.lock.sha256
        ));
    }
    // Recorded facts, not readings: which dwpipe wrote it, the lock's path (its hash binds it).
    recomputed
        .dwpipe_version
        .clone_from(&recorded.dwpipe_version);
    recomputed.lock.clone_from(&recorded.lock);
    if !bound {
        recomputed.format_version = recorded.format_version;
        recomputed.lock_sha256 = None;
        recomputed.baseline.report_sha256 = None;
        recomputed.candidate.report_sha256 = None;
    }
    let as_value = |c: &Comparison| serde_json::to_value(c).unwrap_or_default();
    let differences = crate::recheck::tampered(&as_value(recorded), &as_value(&recomputed));
    for d in &differences {
        print::out(&format!("DIFFERENT  {d}"));
    }
    print::out(&format!(
        "{}: {} criteria recomputed from the two audits against lock {}: {} difference(s)",
        path.display(),
        recomputed.criteria.len(),
        &frozen.lock.sha256[..12],
        differences.len()
    ));
    Ok(exit_code::of_differences(found + differences.len()))
}

/// Rebuilds one audit report and prints what differs; the number of differences.
fn verify_audit(report_path: &Path, pack: Option<&Path>) -> Result<usize, Error> {
    let invalid = |message: String| {
        Error::from(
            Diagnostic::error("E_EVIDENCE_INVALID", message)
                .fix("pass an audit-<n>.json written by `dwpipe audit`"),
        )
    };
    let report = read_audit(report_path, "E_EVIDENCE_INVALID")?;
    let frozen = match pack {
        Some(lock) => load_lock(lock)?,
        None => {
            let named = report.lock.as_deref().ok_or_else(|| {
                invalid(format!(
                    "`{}` names no lock; pass the lock it was audited against with --pack",
                    report_path.display()
                ))
            })?;
            let lock = crate::output::dir_or_dot(report_path.parent()).join(named);
            let frozen = load_lock(&lock)?;
            print::out(&format!(
                "UNANCHORED  held to the lock the report names itself, `{}` (sha256 {}); pass --pack with the lock you trust",
                lock.display(),
                frozen.lock.sha256
            ));
            frozen
        }
    };
    let found = recheck(report_path, &report, &frozen)?;
    for difference in &found.differences {
        let label = match difference.cause {
            Cause::Tampered => "DIFFERENT",
            Cause::ExtractorChanged => "EXTRACTOR CHANGED",
        };
        print::out(&format!("{label}  {difference}"));
    }
    let changed = found
        .differences
        .iter()
        .filter(|d| d.cause == Cause::ExtractorChanged)
        .count();
    print::out(&format!(
        "{}: {} evidence file(s) re-hashed, {} measurement(s) rebuilt against lock {}: {} difference(s){}",
        report_path.display(),
        found.files,
        found.measurements,
        &frozen.lock.sha256[..12],
        found.differences.len(),
        if changed > 0 {
            format!(" ({changed} from a changed extractor)")
        } else {
            String::new()
        }
    ));
    Ok(found.differences.len())
}

#[derive(Debug, clap::Args)]
#[command(after_help = "\
Rebuilds the whole report from the lock and the audit's folder alone, then compares it field by \
field with what the report says; any difference is named by its path and exits 1.

Recomputed from the lock and the evidence: pack-sha256; device (from the kept device.yaml); \
inputs (device.yaml, the playbooks, an outside auditor's report, the copy of the lock and \
source.json, re-hashed); the source (from the kept source.json: the device, or the capture \
replayed); every criterion's check (statement, result, actual, assertion verdict, reason, \
evidence text); every measurement (probe, extractor, aggregate, unit, resolution, each run's \
reading from its session's files, which are re-hashed, and the aggregate); the diagnostics; the \
summary; the verdict.

Recorded facts, taken as the report says: format-version, dwpipe-version, lock (the path of the \
copy the audit keeps), started and ended, device-time (each visit's time on the device), the \
workspace (a delivery's fingerprint and commit), inputs.runs (--runs), inputs.strict (--strict), \
and each measurement's extracted-by (the dwpipe version that read it); before format 4, the \
source too. A report of an older format is rebuilt as that format worded it. A reading made by \
an older revision of its extractor is taken as recorded, so everything built on it is still \
checked, and the difference from this dwpipe's reading is reported as EXTRACTOR CHANGED, apart \
from tampering.

Evidence is read only from inside the report's folder: a symlink or a path that leaves it is \
refused. Without --pack the check is unanchored: the report is held to the lock it names itself, \
whose hash is printed; pass --pack with the lock you trust.

A comparison (compare.json) is verified through both audits it names and recomputed from them. \
It is bound to what it compared (since its format 2): the SHA-256 of the lock it was judged by \
(with --pack, that lock must be the one given) and of each audit report's bytes; each audit is \
held to the lock it recorded, so a baseline measured under last release's pack still verifies. \
A format-1 comparison has neither binding, and says so (UNBOUND).

Exit 0 when the report is exactly its rebuild, 1 on any difference, 2 when the report or the lock \
cannot be read.")]
pub(super) struct VerifyEvidenceArgs {
    /// The audit report (audit-<n>.json written by `dwpipe audit`), or a comparison (compare.json).
    pub(super) report: PathBuf,
    /// The lock to hold the report to (default: the lock the report names, unanchored).
    #[arg(long = "pack", value_name = "LOCK")]
    pub(super) lock: Option<PathBuf>,
}
