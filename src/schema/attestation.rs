//! What an attestation states: two in-toto Statements v1 about the same HAPs. The first is
//! SLSA's Verification Summary (VSA), the verdict a policy engine reads; the second is
//! dwpipe's own predicate, every criterion with its reading, threshold and evidence, which
//! the first names among its inputs by digest. Field names are camelCase, as in-toto's
//! predicates spell them; `docs/schema/dwpipe-verdict-v1.schema.json` is the second's schema.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// in-toto's Statement v1.
pub(crate) const STATEMENT_V1: &str = "https://in-toto.io/Statement/v1";
/// SLSA's Verification Summary Attestation v1.
pub(crate) const VSA_V1: &str = "https://slsa.dev/verification_summary/v1";
/// dwpipe's verdict predicate, version 1.
pub(crate) const VERDICT_V1: &str = "https://dwpipe.dev/verdict/v1";
/// The verifier's id in every VSA dwpipe writes.
pub(crate) const VERIFIER_ID: &str = "https://dwpipe.dev/verifier/v1";

/// A statement: what it is about and what it says.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Statement<P> {
    /// Always [`STATEMENT_V1`].
    #[serde(rename = "_type")]
    pub(crate) kind: String,
    /// The HAPs, by SHA-256.
    pub(crate) subject: Vec<Subject>,
    /// What the predicate is.
    #[serde(rename = "predicateType")]
    pub(crate) predicate_type: String,
    /// What is said of them.
    pub(crate) predicate: P,
}

/// An artefact the statement is about.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Subject {
    /// Its file name (never a host path).
    pub(crate) name: String,
    /// `sha256` → hex.
    pub(crate) digest: BTreeMap<String, String>,
}

/// A file named with its digest (in-toto's ResourceDescriptor, the fields dwpipe uses).
#[derive(schemars::JsonSchema, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Resource {
    /// Where it is, relative to the audit's folder (or a name).
    pub(crate) uri: String,
    /// `sha256` → hex.
    pub(crate) digest: BTreeMap<String, String>,
}

impl Resource {
    /// `uri` with its SHA-256.
    pub(crate) fn sha256(uri: impl Into<String>, sha256: impl Into<String>) -> Resource {
        Resource {
            uri: uri.into(),
            digest: BTreeMap::from([("sha256".to_owned(), sha256.into())]),
        }
    }
}

/// SLSA's VSA v1.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Vsa {
    /// Who verified: dwpipe, and its version.
    pub(crate) verifier: Verifier,
    /// When the attestation was made (UTC, the evidence verified then).
    pub(crate) time_verified: String,
    /// The resource the subjects are (a HAP's name).
    pub(crate) resource_uri: String,
    /// The frozen pack the audit was held to: its lock, by SHA-256.
    pub(crate) policy: Resource,
    /// The audit report, dwpipe's verdict statement (by the SHA-256 of its payload), and the
    /// device's identity or the capture replayed.
    pub(crate) input_attestations: Vec<Resource>,
    /// `PASSED` or `FAILED`.
    pub(crate) verification_result: String,
    /// No SLSA level is verified (a device audit is not a build track).
    pub(crate) verified_levels: Vec<String>,
}

/// The verifier.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Verifier {
    /// [`VERIFIER_ID`].
    pub(crate) id: String,
    /// `dwpipe` → its version.
    pub(crate) version: BTreeMap<String, String>,
}

/// dwpipe's verdict predicate (`https://dwpipe.dev/verdict/v1`).
#[derive(schemars::JsonSchema, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct VerdictPredicate {
    /// `PASSED` only when the audit passed, nothing was left unverified, the audit was
    /// complete and its device was live.
    pub(crate) release: String,
    /// Why not, one line each (empty when PASSED).
    pub(crate) not_passed: Vec<String>,
    /// The audit's own verdict: `pass` or `fail`.
    pub(crate) verdict: String,
    /// The audit report attested, its pack and its dwpipe.
    pub(crate) audit: AuditRef,
    /// Where the readings came from: a live device, or a replay of a capture.
    pub(crate) source: SourceRef,
    /// Who the device said it was.
    pub(crate) device: Option<DeviceRef>,
    /// Its state before and after, as the audit report records it (`device-state`).
    pub(crate) device_state: Option<serde_json::Value>,
    /// The workspace measured, when a delivery knew it.
    pub(crate) workspace: Option<WorkspaceRef>,
    /// How the subjects were named: `installed` (each is a HAP the audit recorded
    /// installing), or `user` (the audit installed nothing; whoever attested named them).
    pub(crate) subject_named_by: String,
    /// Every criterion, in pack order.
    pub(crate) criteria: Vec<CriterionRef>,
}

/// The audit report.
#[derive(schemars::JsonSchema, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AuditRef {
    /// Its file, relative to its folder.
    pub(crate) report: Resource,
    /// The lock's SHA-256 it was held to.
    pub pack_sha256: String,
    /// The dwpipe that measured it.
    pub(crate) dwpipe_version: String,
    /// Its run's name, when it kept one.
    pub(crate) run_id: Option<String>,
    /// When it held its device (UTC).
    pub(crate) started: Option<String>,
    /// When it let go.
    pub(crate) ended: Option<String>,
    /// Counts: criteria, pass, fail, unverified.
    pub(crate) criteria: usize,
    /// Criteria that passed.
    pub(crate) pass: usize,
    /// Criteria that failed.
    pub(crate) fail: usize,
    /// Criteria not measured.
    pub(crate) unverified: usize,
}

/// Live or replay.
#[derive(schemars::JsonSchema, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SourceRef {
    /// `device` or `replay`.
    pub(crate) kind: String,
    /// The capture replayed: its folder's name (never the host's path).
    pub(crate) capture: Option<String>,
    /// Its `transcript.yaml`'s SHA-256.
    pub transcript_sha256: Option<String>,
}

/// The device measured.
#[derive(schemars::JsonSchema, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DeviceRef {
    /// Its connect key.
    pub(crate) serial: String,
    /// Its model.
    pub(crate) model: Option<String>,
    /// Its software version.
    pub(crate) software_version: Option<String>,
    /// Its API level.
    pub(crate) api_level: Option<u32>,
}

/// The workspace measured.
#[derive(schemars::JsonSchema, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct WorkspaceRef {
    /// dwpipe's fingerprint of it.
    pub(crate) fingerprint: String,
    /// HEAD, in a git checkout.
    pub(crate) commit: Option<String>,
}

/// One criterion.
#[derive(schemars::JsonSchema, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CriterionRef {
    /// Its id in the pack.
    pub(crate) id: String,
    /// function, aesthetic, performance or accessibility.
    pub(crate) dimension: String,
    /// must or should.
    pub(crate) level: String,
    /// pass, fail or unverified.
    pub(crate) result: String,
    /// Why, when it did not pass.
    pub(crate) why: Option<String>,
    /// The reading the verdict took (`720 ms`).
    pub(crate) measured: Option<String>,
    /// The threshold (`≤ 800 ms`).
    pub(crate) threshold: Option<String>,
    /// Runs read.
    pub(crate) runs: usize,
    /// The evidence files of every run, by SHA-256 (paths relative to the audit's folder).
    pub(crate) evidence: Vec<Resource>,
}

/// The two statements of one attestation.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Attestation {
    /// The VSA.
    pub(crate) vsa: Statement<Vsa>,
    /// dwpipe's verdict.
    pub(crate) verdict: Statement<VerdictPredicate>,
}
