//! `dwpipe verify-attestation`: every signature checked under the key given, the two
//! statements held to each other (the VSA names the verdict statement by digest, and says
//! PASSED only where the verdict does), the subject and the policy held to what is given,
//! a replay refused unless allowed, and with `--evidence` the audit rebuilt from its folder
//! and both statements made again from it: any difference is named.

use std::path::Path;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::diagnostic::Diagnostic;
use crate::input::{MAX_REPORT_BYTES, read_bounded};
use crate::schema::Difference;

use super::dsse::{Envelope, IN_TOTO, SignatureCheck};
use super::key::PublicKey;
use super::make::{Attested, PASSED, installed, payload, statements};
use super::statement::{
    STATEMENT_V1, Statement, Subject, VERDICT_V1, VSA_V1, VerdictPredicate, Vsa,
};

/// What `verify-attestation` was asked.
pub(crate) struct CheckRequest<'a> {
    /// The `.intoto.jsonl`.
    pub(crate) file: &'a Path,
    /// The public key.
    pub(crate) key: &'a Path,
    /// A HAP that must be a subject.
    pub(crate) subject: Option<&'a Path>,
    /// The lock that must be the policy.
    pub(crate) pack: Option<&'a Path>,
    /// The audit's folder, to rebuild from.
    pub(crate) evidence: Option<&'a Path>,
    /// A replay is accepted (it is never PASSED).
    pub(crate) allow_replay: bool,
}

/// What `verify-attestation` found (its `--json`).
#[derive(Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct AttestationCheck {
    /// The file checked.
    pub(crate) file: String,
    /// Whether nothing below is a problem.
    pub(crate) verified: bool,
    /// The VSA's result: `PASSED` or `FAILED`.
    pub(crate) result: String,
    /// The key's id and algorithm.
    pub(crate) keyid: String,
    /// Ed25519 or ECDSA P-256.
    pub(crate) algorithm: String,
    /// Signatures checked, and how many the key made.
    pub(crate) signatures: usize,
    /// Signatures the key made.
    pub(crate) good_signatures: usize,
    /// The HAPs it is about.
    pub(crate) subjects: Vec<Subject>,
    /// `device` or `replay`.
    pub(crate) source: String,
    /// The lock's SHA-256 it names as its policy.
    pub policy_sha256: String,
    /// Whether the audit was rebuilt from its folder (`--evidence`).
    pub(crate) evidence_checked: bool,
    /// Every problem, in words.
    pub(crate) problems: Vec<String>,
    /// Each field where the statements differ from those made again from the evidence.
    pub(crate) differences: Vec<Difference>,
}

/// Checks the attestation as asked. A file that is not an attestation is an error; what
/// does not hold is a problem in the outcome.
pub(crate) fn check(request: &CheckRequest<'_>) -> Result<AttestationCheck, Vec<Diagnostic>> {
    let one = |d: Diagnostic| vec![d];
    let key = PublicKey::read(request.key).map_err(|e| one(e.diagnostic()))?;
    let invalid = |message: String| {
        vec![
            Diagnostic::error("E_ATTESTATION_INVALID", message)
                .fix("pass the .intoto.jsonl `dwpipe attest` wrote"),
        ]
    };
    let bytes = read_bounded(request.file, MAX_REPORT_BYTES, "an attestation").map_err(|e| {
        one(e.diagnostic(
            "E_ATTESTATION_INVALID",
            "pass the .intoto.jsonl `dwpipe attest` wrote",
        ))
    })?;
    let text = String::from_utf8(bytes)
        .map_err(|_| invalid(format!("`{}` is not UTF-8", request.file.display())))?;
    let mut problems = Vec::new();
    let (mut signatures, mut good) = (0, 0);
    let mut vsa: Option<(Statement<Vsa>, Vec<u8>)> = None;
    let mut verdict: Option<(Statement<VerdictPredicate>, Vec<u8>)> = None;
    for (index, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let at = format!("`{}` line {}", request.file.display(), index + 1);
        let envelope: Envelope = serde_json::from_str(line)
            .map_err(|e| invalid(format!("{at} is not a DSSE envelope: {e}")))?;
        if envelope.payload_type != IN_TOTO {
            problems.push(format!(
                "{at}: payload type `{}`, not `{IN_TOTO}`",
                envelope.payload_type
            ));
        }
        if envelope.signatures.is_empty() {
            problems.push(format!("{at} is not signed"));
        }
        for (n, outcome) in envelope.check(&key).into_iter().enumerate() {
            signatures += 1;
            match outcome {
                SignatureCheck::Good => good += 1,
                SignatureCheck::Garbled => {
                    problems.push(format!("{at}: signature {} is not Base64", n + 1));
                }
                SignatureCheck::Bad => problems.push(format!(
                    "{at}: signature {} was not made by this key over this payload (another key, or the payload was changed)",
                    n + 1
                )),
            }
        }
        let payload = envelope
            .payload_bytes()
            .ok_or_else(|| invalid(format!("{at}: its payload is not Base64")))?;
        let kind: Statement<serde_json::Value> = parse(&payload).map_err(|e| {
            invalid(format!(
                "{at}: its payload is not an in-toto statement: {e}"
            ))
        })?;
        if kind.kind != STATEMENT_V1 {
            problems.push(format!(
                "{at}: `_type` is `{}`, not `{STATEMENT_V1}`",
                kind.kind
            ));
        }
        let duplicate = |what: &str| invalid(format!("{at} is a second {what} statement"));
        match kind.predicate_type.as_str() {
            VSA_V1 if vsa.is_some() => return Err(duplicate("VSA")),
            VSA_V1 => vsa = Some((statement(&payload, &at)?, payload)),
            VERDICT_V1 if verdict.is_some() => return Err(duplicate("verdict")),
            VERDICT_V1 => verdict = Some((statement(&payload, &at)?, payload)),
            other => problems.push(format!(
                "{at}: a statement of `{other}`, which dwpipe does not write"
            )),
        }
    }
    let (Some((vsa, vsa_payload)), Some((verdict, verdict_payload))) = (vsa, verdict) else {
        return Err(invalid(format!(
            "`{}` does not hold both a VSA ({VSA_V1}) and dwpipe's verdict ({VERDICT_V1})",
            request.file.display()
        )));
    };
    held_together(&vsa, &verdict, &verdict_payload, &mut problems);
    let replay = verdict.predicate.source.kind != "device";
    if replay && !request.allow_replay {
        problems.push(format!(
            "a replay of the capture `{}`: never a release pass (pass --allow-replay to check it all the same)",
            verdict.predicate.source.capture.as_deref().unwrap_or("?")
        ));
    }
    if let Some(hap) = request.subject {
        match crate::input::hash_file(hap, "a HAP") {
            Ok(sha256)
                if vsa
                    .subject
                    .iter()
                    .any(|s| s.digest.get("sha256") == Some(&sha256)) => {}
            Ok(sha256) => problems.push(format!(
                "`{}` (sha256 {}) is not a subject of this attestation",
                hap.display(),
                &sha256[..12]
            )),
            Err(e) => {
                return Err(one(
                    e.diagnostic("E_ATTESTATION_INVALID", "pass the HAP to check")
                ));
            }
        }
    }
    if let Some(lock) = request.pack {
        let frozen = crate::pack::load_lock(lock)?;
        if vsa.predicate.policy.digest.get("sha256") != Some(&frozen.lock.sha256) {
            problems.push(format!(
                "its policy is a lock of sha256 {}, not `{}` (sha256 {})",
                vsa.predicate
                    .policy
                    .digest
                    .get("sha256")
                    .map_or("?", String::as_str),
                lock.display(),
                frozen.lock.sha256
            ));
        }
    }
    let mut differences = Vec::new();
    if let Some(folder) = request.evidence {
        let signed = [vsa_payload.as_slice(), verdict_payload.as_slice()];
        rebuilt(
            folder,
            request.pack,
            signed,
            (&vsa, &verdict),
            &mut problems,
            &mut differences,
        )?;
    }
    Ok(AttestationCheck {
        file: request.file.display().to_string(),
        verified: problems.is_empty() && differences.is_empty(),
        result: vsa.predicate.verification_result.clone(),
        keyid: key.keyid(),
        algorithm: key.algorithm().name().to_owned(),
        signatures,
        good_signatures: good,
        subjects: vsa.subject,
        source: verdict.predicate.source.kind.clone(),
        policy_sha256: vsa
            .predicate
            .policy
            .digest
            .get("sha256")
            .cloned()
            .unwrap_or_default(),
        evidence_checked: request.evidence.is_some(),
        problems,
        differences,
    })
}

fn parse<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, serde_json::Error> {
    serde_json::from_slice(bytes)
}

fn statement<P: DeserializeOwned>(
    payload: &[u8],
    at: &str,
) -> Result<Statement<P>, Vec<Diagnostic>> {
    parse(payload).map_err(|e| {
        vec![
            Diagnostic::error(
                "E_ATTESTATION_INVALID",
                format!("{at}: its statement does not read as dwpipe writes it: {e}"),
            )
            .fix("pass the .intoto.jsonl `dwpipe attest` wrote"),
        ]
    })
}

/// The VSA and the verdict statement agree: the same subjects and lock, the verdict named
/// by its digest, and PASSED only where the verdict's own content is a release pass.
fn held_together(
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
fn rebuilt(
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
