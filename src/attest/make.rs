//! The statements of an attestation, made from an audit report `verify-evidence` verified:
//! a pure function of the report, the HAPs named and the time, so `verify-attestation
//! --evidence` makes them again from the folder and holds them to what was signed.

use std::collections::BTreeMap;

use crate::audit::InstalledHap;
use crate::device::Source;
use crate::gate::{CheckResult, Verdict};
use crate::schema::AuditReport;

use crate::schema::attestation::{
    Attestation, AuditRef, CriterionRef, DeviceRef, Resource, STATEMENT_V1, SourceRef, Statement,
    Subject, VERDICT_V1, VERIFIER_ID, VSA_V1, VerdictPredicate, Verifier, Vsa, WorkspaceRef,
};

/// `PASSED`: the one word a release pipeline may take as a pass.
pub(crate) const PASSED: &str = "PASSED";
/// `FAILED`: anything else.
pub(crate) const FAILED: &str = "FAILED";

/// What an attestation is made of.
pub(crate) struct Attested<'a> {
    /// The audit report, as verified.
    pub(crate) report: &'a AuditReport,
    /// Its file name (relative to its folder).
    pub(crate) report_file: String,
    /// The SHA-256 of its bytes.
    pub(crate) report_sha256: String,
    /// The HAPs: file name and SHA-256.
    pub(crate) subjects: Vec<(String, String)>,
    /// When the attestation is made.
    pub(crate) time: String,
}

/// Why an audit is not a release pass, one line each: none when it is.
pub(crate) fn not_passed(report: &AuditReport) -> Vec<String> {
    let mut why = Vec::new();
    if report.verdict == Verdict::Fail {
        why.push(format!(
            "the audit failed: {} criteria failed, {} error(s)",
            report.summary.fail, report.summary.errors
        ));
    }
    if report.summary.unverified > 0 {
        why.push(format!(
            "{} of {} criteria were not measured (unverified)",
            report.summary.unverified, report.summary.criteria
        ));
    }
    if report.not_audited() {
        why.push("the device did not meet a precondition: nothing was measured".to_owned());
    }
    if let Some(lost) = report.lease_lost() {
        why.push(format!(
            "the device's lease was lost while it was measured: {lost}"
        ));
    }
    match &report.source {
        Some(Source::Replay { .. }) => {
            why.push("a replay of a recorded capture: the HAP was not measured".to_owned());
        }
        Some(Source::Device { .. }) => {}
        None => why.push("the report does not say where its readings came from".to_owned()),
    }
    why
}

/// The HAPs the audit recorded installing (a delivery's, an A/B arm's; none for a plain audit).
pub(crate) fn installed(report: &AuditReport) -> Vec<&InstalledHap> {
    report.inputs.iter().flat_map(|i| &i.installed).collect()
}

/// How the subjects were named: `installed` when the audit recorded installing HAPs (each
/// subject is then one of them: the caller has checked), else `user`.
pub(crate) fn named_by(report: &AuditReport) -> &'static str {
    if !installed(report).is_empty() {
        "installed"
    } else {
        "user"
    }
}

/// The two statements.
pub(crate) fn statements(attested: &Attested<'_>) -> Attestation {
    let report = attested.report;
    let subject: Vec<Subject> = attested
        .subjects
        .iter()
        .map(|(name, sha256)| Subject {
            name: name.clone(),
            digest: BTreeMap::from([("sha256".to_owned(), sha256.clone())]),
        })
        .collect();
    let why = not_passed(report);
    let release = if why.is_empty() { PASSED } else { FAILED };
    let audit = Resource::sha256(&attested.report_file, &attested.report_sha256);
    let verdict = Statement {
        kind: STATEMENT_V1.to_owned(),
        subject: subject.clone(),
        predicate_type: VERDICT_V1.to_owned(),
        predicate: VerdictPredicate {
            release: release.to_owned(),
            not_passed: why,
            verdict: report.verdict.as_str().to_owned(),
            audit: AuditRef {
                report: audit.clone(),
                pack_sha256: report.pack_sha256.clone(),
                dwpipe_version: report.dwpipe_version.clone(),
                run_id: report.run_id.clone(),
                started: report.started.clone(),
                ended: report.ended.clone(),
                criteria: report.summary.criteria,
                pass: report.summary.pass,
                fail: report.summary.fail,
                unverified: report.summary.unverified,
            },
            source: source(report.source.as_ref()),
            device: report.device.as_ref().map(|d| DeviceRef {
                serial: d.serial.clone(),
                model: d.model.clone(),
                software_version: d.software_version.clone(),
                api_level: d.api_level,
            }),
            device_state: report
                .device_state
                .as_ref()
                .and_then(|s| serde_json::to_value(s).ok()),
            workspace: report.workspace.as_ref().map(|w| WorkspaceRef {
                fingerprint: w.fingerprint.clone(),
                commit: w.commit.clone(),
            }),
            subject_named_by: named_by(report).to_owned(),
            criteria: criteria(report),
        },
    };
    let mut inputs = vec![
        audit,
        Resource::sha256(VERDICT_V1, crate::hash::sha256_hex(&payload(&verdict))),
    ];
    match &report.source {
        Some(Source::Replay {
            capture,
            transcript_sha256,
            ..
        }) => inputs.push(Resource::sha256(
            format!("capture:{}/transcript.yaml", folder_name(capture)),
            transcript_sha256,
        )),
        _ => inputs.extend(
            report
                .inputs
                .as_ref()
                .map(|i| Resource::sha256(&i.device.path, &i.device.sha256)),
        ),
    }
    let vsa = Statement {
        kind: STATEMENT_V1.to_owned(),
        subject,
        predicate_type: VSA_V1.to_owned(),
        predicate: Vsa {
            verifier: Verifier {
                id: VERIFIER_ID.to_owned(),
                version: BTreeMap::from([(
                    "dwpipe".to_owned(),
                    env!("CARGO_PKG_VERSION").to_owned(),
                )]),
            },
            time_verified: attested.time.clone(),
            resource_uri: attested
                .subjects
                .first()
                .map(|(name, _)| format!("file:{name}"))
                .unwrap_or_default(),
            policy: Resource::sha256(
                report
                    .lock
                    .clone()
                    .unwrap_or_else(|| "pack.lock.json".to_owned()),
                &report.pack_sha256,
            ),
            input_attestations: inputs,
            verification_result: release.to_owned(),
            verified_levels: Vec::new(),
        },
    };
    Attestation { vsa, verdict }
}

/// A statement's bytes as signed: serde_json's compact form, keys sorted.
pub(crate) fn payload<P: serde::Serialize>(statement: &Statement<P>) -> Vec<u8> {
    serde_json::to_vec(statement).unwrap_or_default()
}

fn source(source: Option<&Source>) -> SourceRef {
    match source {
        Some(Source::Replay {
            capture,
            transcript_sha256,
            ..
        }) => SourceRef {
            kind: "replay".to_owned(),
            capture: Some(folder_name(capture)),
            transcript_sha256: Some(transcript_sha256.clone()),
        },
        _ => SourceRef {
            kind: "device".to_owned(),
            capture: None,
            transcript_sha256: None,
        },
    }
}

/// A capture folder's own name: the host's path stays on the host.
fn folder_name(path: &str) -> String {
    std::path::Path::new(path)
        .file_name()
        .map_or_else(|| path.to_owned(), |n| n.to_string_lossy().into_owned())
}

fn criteria(report: &AuditReport) -> Vec<CriterionRef> {
    report
        .checks
        .iter()
        .map(|check| {
            let c = &check.check;
            let mut evidence: Vec<Resource> = Vec::new();
            for file in check
                .measurements
                .iter()
                .flat_map(|m| &m.runs)
                .flat_map(|r| &r.files)
            {
                let resource = Resource::sha256(&file.path, &file.sha256);
                if !evidence.contains(&resource) {
                    evidence.push(resource);
                }
            }
            CriterionRef {
                id: c.criterion_id.clone(),
                dimension: c.dimension.as_str().to_owned(),
                level: c.weight.as_str().to_owned(),
                result: c.result.as_str().to_owned(),
                why: (c.result != CheckResult::Pass)
                    .then(|| c.reason.clone().unwrap_or_else(|| c.evidence.clone())),
                measured: c.actual.clone(),
                threshold: c.expected.clone(),
                runs: check
                    .measurements
                    .iter()
                    .map(|m| m.runs.len())
                    .max()
                    .unwrap_or(0),
                evidence,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests;
