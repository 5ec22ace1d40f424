//! The file names the documents are kept under: the contract between the writer
//! (`report::publish`) and every reader (`report merge`, the history's import, `dwpipe runs`,
//! the lab page's links), spelled once.

/// A delivery's record, in its run folder.
pub(crate) const DELIVER: &str = "deliver.json";
/// A delivery's page, beside `deliver.json`.
pub(crate) const DELIVER_HTML: &str = "deliver.html";
/// A lab's matrix.
pub(crate) const LAB: &str = "lab.json";
/// A lab's matrix for people.
pub(crate) const LAB_MD: &str = "lab.md";
/// A lab's matrix as a page.
pub(crate) const LAB_HTML: &str = "lab.html";
/// A lab's JUnit XML, one suite per device.
pub(crate) const LAB_JUNIT: &str = "lab-junit.xml";
/// A lab's A/B matrix.
pub(crate) const AB_LAB: &str = "ab-lab.json";
/// A lab's A/B matrix for people.
pub(crate) const AB_LAB_MD: &str = "ab-lab.md";
/// A same-device A/B session's record.
pub(crate) const AB: &str = "ab.json";
/// An A/B session's warm-up runs (kept, never counted), a folder beside `ab.json`.
pub(crate) const WARM_UP: &str = "warm-up";
/// How an audit's attestation is named beside it: `audit-1.json` → `audit-1.intoto.jsonl`.
pub(crate) const ATTESTATION_SUFFIX: &str = ".intoto.jsonl";
/// An A/B session's page.
pub(crate) const AB_HTML: &str = "ab.html";
/// A lab's A/B matrix as a page.
pub(crate) const AB_LAB_HTML: &str = "ab-lab.html";
/// A lab's A/B sessions as JUnit, one suite per device.
pub(crate) const AB_LAB_JUNIT: &str = "ab-lab-junit.xml";
/// A comparison.
pub(crate) const COMPARISON: &str = "compare.json";
/// A comparison for people.
pub(crate) const COMPARISON_MD: &str = "compare.md";
/// A comparison as a page.
pub(crate) const COMPARISON_HTML: &str = "compare.html";
/// A comparison's JUnit XML.
pub(crate) const COMPARISON_JUNIT: &str = "compare-junit.xml";
/// An audit's JUnit XML.
pub(crate) const AUDIT_JUNIT: &str = "junit.xml";
/// An audit's page.
pub(crate) const AUDIT_HTML: &str = "report.html";
/// A lab device's audit, in its folder (the first and only one there).
pub(crate) const DEVICE_AUDIT: &str = "audit-1.json";

/// Whether a file name is an audit report's (`audit-<n>.json`).
pub(crate) fn is_audit(name: &str) -> bool {
    name.strip_prefix("audit-")
        .and_then(|rest| rest.strip_suffix(".json"))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}
