//! What `verify-evidence --json` prints: the report checked, the lock it was held to, what
//! was rebuilt, and every field that differs with its cause; a comparison's with both audits
//! it names, each checked.

use serde::{Deserialize, Serialize};

use crate::diagnostic::Diagnostic;
use crate::words::words;

use super::Difference;

words! {
    /// What kind of document was checked.
    pub enum Verified {
        /// An audit report, rebuilt from its folder.
        Audit = "audit",
        /// A comparison, recomputed from the two audits it names.
        Comparison = "comparison",
    }
}

/// What `verify-evidence` found.
#[derive(schemars::JsonSchema, Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Verification {
    /// The report checked, as given.
    pub report: String,
    /// An audit or a comparison.
    pub kind: Verified,
    /// Whether nothing differs, in it or in the audits it names.
    pub verified: bool,
    /// The lock it was held to.
    pub lock: String,
    /// That lock's SHA-256.
    pub lock_sha256: String,
    /// Whether that lock was given (`--pack`), not taken from the report itself.
    pub anchored: bool,
    /// A comparison: whether it binds the lock and the reports it compared by their hashes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bound: Option<bool>,
    /// Evidence files re-hashed (an audit).
    pub files: usize,
    /// Measurements rebuilt (an audit).
    pub measurements: usize,
    /// Criteria recomputed (a comparison).
    pub criteria: usize,
    /// Each field that differs, with why.
    pub differences: Vec<Difference>,
    /// What reading the lock said (a comparison's).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub diagnostics: Vec<Diagnostic>,
    /// The audits a comparison names, each checked.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub audits: Vec<Verification>,
    /// The forms the audit was published in (`audit-<n>.md`, `junit.xml`, `report.html`),
    /// each rendered again and compared, or why not (optional).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub forms: Vec<FormCheck>,
}

/// One form, and how far it was checked.
#[derive(schemars::JsonSchema, Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub struct FormCheck {
    /// The file, as named beside the report.
    pub file: String,
    /// Whether it was rendered again and compared.
    pub checked: bool,
    /// What was left unchecked, and why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl Verification {
    /// Every difference, in it and in the audits it names.
    pub(crate) fn found(&self) -> usize {
        self.differences.len() + self.audits.iter().map(Verification::found).sum::<usize>()
    }
}
