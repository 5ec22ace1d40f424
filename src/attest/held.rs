//! What holds an attestation's two statements together and to their evidence: the VSA names
//! the verdict statement by digest and says PASSED only where the verdict does, and with
//! `--evidence` the audit is rebuilt from its folder and both statements made again from it.

use std::path::Path;

use crate::diagnostic::Diagnostic;
use crate::schema::Difference;

use super::make::{Attested, PASSED, installed, payload, statements};
use crate::schema::attestation::{Statement, VERDICT_V1, VerdictPredicate, Vsa};

/// The VSA and the verdict statement agree: the same subjects and lock, the verdict named
/// by its digest, and PASSED only where the verdict's own content is a release pass.
pub(super) fn held_together(
    vsa: &Statement<Vsa>,
    verdict: &Statement<VerdictPredicate>,
    verdict_payload: &[u8],
    problems: &mut Vec<String>,
) {
    if vsa.subject.is_empty() {
        problems
            .push("it is about no HAP: an in-toto statement names at least one subject".to_owned());
    }
    if vsa.subject != verdict.subject {
        problems.push("the VSA and the verdict statement are about different subjects".to_owned());
    }
    let digest = crate::hash::sha256_hex(verdict_payload);
    if !vsa
        .predicate
        .input_attestations
        .iter()
        .any(|r| r.uri == VERDICT_V1 && r.digest.get("sha256") == Some(&digest))
    {
        problems.push(format!(
            "the VSA does not name this verdict statement (sha256 {}) among its inputs",
            &digest[..12]
        ));
    }
    let policy = vsa.predicate.policy.digest.get("sha256");
    if policy != Some(&verdict.predicate.audit.pack_sha256) {
        problems.push(
            "the VSA's policy is not the lock the verdict statement's audit was held to".to_owned(),
        );
    }
    let p = &verdict.predicate;
    let passes = p.verdict == "pass"
        && p.audit.unverified == 0
        && p.audit.fail == 0
        && p.source.kind == "device"
        && p.not_passed.is_empty()
        && p.criteria
            .iter()
            .all(|c| c.result == "pass" || c.level != "must");
    if vsa.predicate.verification_result == PASSED && !passes {
        problems.push(format!(
            "the VSA says PASSED, but its verdict statement says {} ({} failed, {} unverified, source {})",
            p.verdict, p.audit.fail, p.audit.unverified, p.source.kind
        ));
    }
    if vsa.predicate.verification_result != p.release {
        problems.push(format!(
            "the VSA says {}, its verdict statement {}",
            vsa.predicate.verification_result, p.release
        ));
    }
}

/// The audit named by the VSA, read from `folder`, verified, and both statements made again
/// from it.
pub(super) fn rebuilt(
    folder: &Path,
    pack: Option<&Path>,
    signed: [&[u8]; 2],
    (vsa, verdict): (&Statement<Vsa>, &Statement<VerdictPredicate>),
    problems: &mut Vec<String>,
    differences: &mut Vec<Difference>,
) -> Result<(), Vec<Diagnostic>> {
    let audit = &verdict.predicate.audit.report;
    // The name is the statement's: only a plain file name inside the folder is read.
    if audit.uri.contains(['/', '\\']) || audit.uri.starts_with('.') || audit.uri.is_empty() {
        problems.push(format!(
            "its audit report `{}` is not a file name in the audit's folder",
            audit.uri
        ));
        return Ok(());
    }
    let path = folder.join(&audit.uri);
    let (report, sha256) =
        crate::compare::read_audit_hashed(&path, "E_ATTESTATION_INVALID").map_err(|d| vec![d])?;
    if audit.digest.get("sha256") != Some(&sha256) {
        problems.push(format!(
            "`{}` is not the report attested (sha256 {}, the statement names {})",
            path.display(),
            &sha256[..12],
            audit.digest.get("sha256").map_or("?", String::as_str)
        ));
    }
    let verification = crate::recheck::verify_audit(&path, &report, pack)?;
    for difference in &verification.differences {
        problems.push(format!(
            "the audit does not hold up against its evidence: {difference}"
        ));
    }
    let installed: Vec<&str> = installed(&report)
        .into_iter()
        .map(|h| h.sha256.as_str())
        .collect();
    let subjects: Vec<(String, String)> = verdict
        .subject
        .iter()
        .map(|s| {
            (
                s.name.clone(),
                s.digest.get("sha256").cloned().unwrap_or_default(),
            )
        })
        .collect();
    for (name, sha256) in &subjects {
        if !installed.is_empty() && !installed.contains(&sha256.as_str()) {
            problems.push(format!(
                "the subject `{name}` is not a HAP the audit installed"
            ));
        }
    }
    let mut again = statements(&Attested {
        report: &report,
        report_file: audit.uri.clone(),
        report_sha256: sha256,
        subjects,
        time: vsa.predicate.time_verified.clone(),
    });
    // Which dwpipe signed is a recorded fact: a newer one checking it is not a difference.
    again.vsa.predicate.verifier = vsa.predicate.verifier.clone();
    let value = |bytes: &[u8]| serde_json::from_slice(bytes).unwrap_or_default();
    let made = [payload(&again.vsa), payload(&again.verdict)];
    for (signed, made) in signed.iter().zip(&made) {
        differences.extend(crate::recheck::tampered(&value(signed), &value(made)));
    }
    Ok(())
}
