//! `dwpipe verify-evidence AUDIT.json [--pack LOCK]`: rebuild an audit from its folder,
//! offline, and name every field where the report says otherwise; `COMPARE.json`: both audits
//! so, and the comparison recomputed from them.

use std::path::Path;

use crate::compare::{Given, read_audit, remade};
use crate::diagnostic::Diagnostic;
use crate::exit_code;
use crate::input::{MAX_REPORT_BYTES, read_bounded};
use crate::recheck::Cause;
use crate::schema::{Comparison, Verification, Verified};

use super::error::Error;
use super::print;
use super::shared::Json;
use super::{Edge, Run};
use std::path::PathBuf;

impl Run for VerifyEvidenceArgs {
    fn json(&self) -> bool {
        self.output.json
    }

    fn execute(self, _: &Edge) -> Result<i32, Error> {
        let checked = check(&self.report, self.lock.as_deref())?;
        if self.output.json {
            print::json(&checked);
        } else {
            show(&checked);
        }
        Ok(exit_code::of_differences(checked.found()))
    }
}

/// The report at `report_path` (an audit, or a `compare.json`), checked.
fn check(report_path: &Path, pack: Option<&Path>) -> Result<Verification, Error> {
    match read_comparison(report_path) {
        Some(comparison) => verify_comparison(report_path, &comparison, pack),
        None => verify_audit(report_path, pack),
    }
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
) -> Result<Verification, Error> {
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
    let mut audits = Vec::new();
    for side in [&recorded.baseline, &recorded.candidate] {
        audits.push(verify_audit(&out.join(&side.report), None)?);
    }
    // The audits' differences are named above: the comparison is made of them as they are.
    let (recomputed, frozen) = remade(path, recorded, pack, Given::Verified)?;
    let as_value = |c: &Comparison| serde_json::to_value(c).unwrap_or_default();
    let differences = crate::recheck::tampered(&as_value(recorded), &as_value(&recomputed));
    let mut checked = Verification {
        report: crate::text::doc_path(path),
        kind: Verified::Comparison,
        verified: false,
        lock: crate::text::doc_path(&out.join(&recorded.lock)),
        lock_sha256: frozen.lock.sha256.clone(),
        anchored: pack.is_some(),
        bound: Some(bound),
        files: 0,
        measurements: 0,
        criteria: recomputed.criteria.len(),
        differences,
        diagnostics: frozen.found.clone(),
        audits,
        forms: Vec::new(),
    };
    checked.verified = checked.found() == 0;
    Ok(checked)
}

/// Rebuilds one audit report: what differs.
fn verify_audit(report_path: &Path, pack: Option<&Path>) -> Result<Verification, Error> {
    let report = read_audit(report_path, "E_EVIDENCE_INVALID")?;
    Ok(crate::recheck::verify_audit(report_path, &report, pack)?)
}

/// What was found, as the terminal says it: an audit's (or each audit's, then the
/// comparison's) warnings, every difference, and a line of counts.
fn show(checked: &Verification) {
    for audit in &checked.audits {
        show(audit);
    }
    let sha = &checked.lock_sha256;
    if checked.bound == Some(false) {
        print::out(&format!(
            "UNBOUND  `{}` names its lock and both reports by path only: a lock or a report swapped under it cannot be told",
            checked.report
        ));
    }
    print::diagnostics(&checked.diagnostics);
    if !checked.anchored {
        let what = if checked.kind == Verified::Audit {
            "held to the lock the report names itself"
        } else {
            "the comparison is held to the lock it names itself"
        };
        print::out(&format!(
            "UNANCHORED  {what}, `{}` (sha256 {sha}); pass --pack with the lock you trust",
            checked.lock
        ));
    }
    for form in checked.forms.iter().filter(|f| f.note.is_some()) {
        let state = if form.checked {
            "CHECKED IN PART"
        } else {
            "NOT CHECKED"
        };
        print::out(&format!(
            "{state}  {}: {}",
            form.file,
            form.note.as_deref().unwrap_or_default()
        ));
    }
    for difference in &checked.differences {
        let label = match difference.cause {
            Cause::Tampered => "DIFFERENT",
            Cause::ExtractorChanged => "EXTRACTOR CHANGED",
        };
        print::out(&format!("{label}  {difference}"));
    }
    let n = checked.differences.len();
    if checked.kind == Verified::Comparison {
        // What the audits under it hold counts: a comparison of a doctored audit is not sound.
        let nested = checked.found() - n;
        print::out(&format!(
            "{}  {}: {} recomputed from the two audits against lock {}: {} difference(s){}",
            verified_word(checked),
            checked.report,
            crate::text::counted(checked.criteria, "criterion", "criteria"),
            &sha[..12.min(sha.len())],
            checked.found(),
            if nested > 0 {
                format!(" ({nested} in the audits it compares, {n} in the comparison)")
            } else {
                String::new()
            }
        ));
        return;
    }
    let changed = checked
        .differences
        .iter()
        .filter(|d| d.cause == Cause::ExtractorChanged)
        .count();
    let forms = checked.forms.iter().filter(|f| f.checked).count();
    print::out(&format!(
        "{}  {}: {} evidence file(s) re-hashed, {} measurement(s) rebuilt, {forms} published form(s) rendered again, against lock {}: {n} difference(s){}",
        verified_word(checked),
        checked.report,
        checked.files,
        checked.measurements,
        &sha[..12.min(sha.len())],
        if changed > 0 {
            format!(" ({changed} from a changed extractor)")
        } else {
            String::new()
        }
    ));
}

/// The line's first word: what a CI log is searched for.
fn verified_word(checked: &Verification) -> &'static str {
    if checked.found() == 0 {
        "VERIFIED"
    } else {
        "NOT VERIFIED"
    }
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

Since format 5, when the audit held its device is rebuilt too: started, ended, device-time \
(each visit's time on the device), the lease and run-id, from the times.json it kept (a copy \
re-dated in its report alone is a difference). The forms it was published in are rendered again \
and compared byte for byte: audit-<n>.md, and when it is its folder's latest audit junit.xml and \
report.html (whose history section, the trends of the audits before it, is not evidence and is \
said to be unchecked); forms another dwpipe release rendered are said to be unchecked.

Recorded facts, taken as the report says: format-version, dwpipe-version, lock (the path of the \
copy the audit keeps), the workspace (a delivery's fingerprint and commit), inputs.runs (--runs), \
inputs.strict (--strict), and each measurement's extracted-by (the dwpipe version that read it); \
before format 5, started, ended and device-time; before format 4, the source too. A report of an older format is rebuilt as that format worded it. A reading made by \
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
    #[command(flatten)]
    pub(super) output: Json,
}
