//! The one writer of reports: each document rendered in every form it is kept in, the files
//! written atomically in an order where the machine-readable one comes last (a `lab.json` on
//! disk always has its siblings), and the paths returned. Renderers are pure; only this file
//! touches the disk for them.

use std::path::{Path, PathBuf};

use crate::audit::Figures;
use crate::output::{PublishError, WriteError, publish_numbered, write_atomic};
use crate::pack::Pack;
use crate::schema::files;
use crate::schema::{AbLabReport, AbRecord, AuditReport, Comparison, DeliverReport, LabReport};

/// The JSON text of a document (pretty, stable field order, a final newline).
pub(crate) fn json<T: serde::Serialize>(document: &T) -> String {
    serde_json::to_string_pretty(document).expect("every document serializes") + "\n"
}

/// Writes each `(name, text)` into `out`, in order; returns their paths.
fn forms(out: &Path, forms: &[(&str, &[u8])]) -> Result<Vec<PathBuf>, WriteError> {
    forms
        .iter()
        .map(|(name, bytes)| {
            let path = out.join(name);
            write_atomic(&path, bytes)?;
            Ok(path)
        })
        .collect()
}

/// `audit-<n>.json` and `audit-<n>.md` in `out`, n the next number free (never overwriting
/// an earlier audit's); returns their paths.
pub(crate) fn audit_numbered(
    report: &AuditReport,
    out: &Path,
) -> Result<Vec<PathBuf>, PublishError> {
    let markdown = super::audit::markdown(report)?;
    let (_, paths) = publish_numbered(
        out,
        "audit",
        &[
            ("json", json(report).as_bytes()),
            ("md", markdown.as_bytes()),
        ],
    )?;
    Ok(paths)
}

/// The files an audit was published to.
#[derive(Clone, Debug)]
pub(crate) struct AuditForms {
    /// `audit-<n>.json`.
    pub(crate) json: PathBuf,
    /// `audit-<n>.md`.
    md: PathBuf,
    /// `junit.xml`.
    junit: PathBuf,
    /// `report.html`.
    html: PathBuf,
}

impl AuditForms {
    /// Every file, the JSON first.
    pub(crate) fn paths(&self) -> Vec<PathBuf> {
        vec![
            self.json.clone(),
            self.md.clone(),
            self.junit.clone(),
            self.html.clone(),
        ]
    }
}

/// Every form of an audit in `out`: `audit-<n>.json` and `audit-<n>.md`, `junit.xml` and
/// `report.html` (drawn from the audit's `figures`).
pub(crate) fn audit(
    report: &AuditReport,
    pack: &Pack,
    figures: &Figures,
    out: &Path,
) -> Result<AuditForms, PublishError> {
    let numbered = audit_numbered(report, out)?;
    let (json, md) = (numbered[0].clone(), numbered[1].clone());
    let forms = AuditForms {
        json,
        md,
        junit: out.join(files::AUDIT_JUNIT),
        html: out.join(files::AUDIT_HTML),
    };
    write_atomic(&forms.junit, super::junit(report).as_bytes())?;
    write_atomic(&forms.html, super::html(report, figures, pack).as_bytes())?;
    Ok(forms)
}

/// An audit's forms written again over the files it was published to: the report amended
/// after it was published (what the history could not record).
pub(crate) fn audit_again(
    report: &AuditReport,
    pack: &Pack,
    figures: &Figures,
    forms: &AuditForms,
) -> Result<(), PublishError> {
    write_atomic(&forms.json, json(report).as_bytes())?;
    write_atomic(&forms.md, super::audit::markdown(report)?.as_bytes())?;
    write_atomic(&forms.junit, super::junit(report).as_bytes())?;
    write_atomic(&forms.html, super::html(report, figures, pack).as_bytes())?;
    Ok(())
}

/// A lab's matrix in `out`: `lab.md`, `lab-junit.xml` (given, one suite per device),
/// `lab.html`, then `lab.json`.
pub(crate) fn lab(
    report: &LabReport,
    junit: &str,
    out: &Path,
) -> Result<Vec<PathBuf>, PublishError> {
    let markdown = super::lab::markdown(report)?;
    let page = super::lab::html(report);
    Ok(forms(
        out,
        &[
            (files::LAB_MD, markdown.as_bytes()),
            (files::LAB_JUNIT, junit.as_bytes()),
            (files::LAB_HTML, page.as_bytes()),
            (files::LAB, json(report).as_bytes()),
        ],
    )?)
}

/// A lab's A/B matrix in `out`: `ab-lab.md`, `ab-lab-junit.xml`, `ab-lab.html`, then
/// `ab-lab.json`.
pub(crate) fn ab_lab(report: &AbLabReport, out: &Path) -> Result<Vec<PathBuf>, PublishError> {
    Ok(forms(
        out,
        &[
            (files::AB_LAB_MD, super::ab_lab::markdown(report).as_bytes()),
            (
                files::AB_LAB_JUNIT,
                super::junit_compare::junit_ab_lab(report).as_bytes(),
            ),
            (
                files::AB_LAB_HTML,
                super::html::ab_lab_html(report).as_bytes(),
            ),
            (files::AB_LAB, json(report).as_bytes()),
        ],
    )?)
}

/// A comparison in `out`: `compare.md`, `compare-junit.xml`, `compare.html`, then
/// `compare.json` (returned first).
pub(crate) fn comparison(
    comparison: &Comparison,
    out: &Path,
) -> Result<Vec<PathBuf>, PublishError> {
    let mut paths = forms(
        out,
        &[
            (
                files::COMPARISON_MD,
                super::compare_markdown(comparison).as_bytes(),
            ),
            (
                files::COMPARISON_JUNIT,
                super::junit_compare(comparison).as_bytes(),
            ),
            (
                files::COMPARISON_HTML,
                super::compare_html(comparison).as_bytes(),
            ),
            (files::COMPARISON, json(comparison).as_bytes()),
        ],
    )?;
    paths.rotate_right(1);
    Ok(paths)
}

/// An A/B session's `ab.html`, then its `ab.json`, in `out`; returns their paths, the JSON
/// first.
pub(crate) fn ab_record(
    record: &AbRecord,
    comparison: &Comparison,
    out: &Path,
) -> Result<Vec<PathBuf>, PublishError> {
    let mut paths = forms(
        out,
        &[
            (
                files::AB_HTML,
                super::html::ab_html(record, comparison).as_bytes(),
            ),
            (files::AB, json(record).as_bytes()),
        ],
    )?;
    paths.rotate_right(1);
    Ok(paths)
}

/// A delivery's `deliver.json` in its run folder.
pub(crate) fn deliver(
    report: &DeliverReport,
    steps: &[crate::report::html::Step],
    run_dir: &Path,
) -> Result<PathBuf, WriteError> {
    // The page first: a deliver.json on disk always has its page beside it.
    write_atomic(
        &run_dir.join(files::DELIVER_HTML),
        crate::report::html::deliver_html(report, steps).as_bytes(),
    )?;
    let path = run_dir.join(files::DELIVER);
    write_atomic(&path, json(report).as_bytes())?;
    Ok(path)
}
