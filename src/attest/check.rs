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
use super::held::{held_together, rebuilt};
use super::key::PublicKey;
use crate::schema::attestation::{
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
    let key = PublicKey::read(request.key).map_err(|e| vec![e.diagnostic()])?;
    let bytes = read_bounded(request.file, MAX_REPORT_BYTES, "an attestation").map_err(|e| {
        vec![e.diagnostic(
            "E_ATTESTATION_INVALID",
            "pass the .intoto.jsonl `dwpipe attest` wrote",
        )]
    })?;
    let text = String::from_utf8(bytes)
        .map_err(|_| invalid(format!("`{}` is not UTF-8", request.file.display())))?;
    let mut problems = Vec::new();
    let lines = read_lines(request.file, &text, &key, &mut problems)?;
    let (Some((vsa, vsa_payload)), Some((verdict, verdict_payload))) = (lines.vsa, lines.verdict)
    else {
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
    held_to_request(request, &vsa, &mut problems)?;
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
        file: crate::text::doc_path(request.file),
        verified: problems.is_empty() && differences.is_empty(),
        result: vsa.predicate.verification_result.clone(),
        keyid: key.keyid(),
        algorithm: key.algorithm().name().to_owned(),
        signatures: lines.signatures,
        good_signatures: lines.good,
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

/// A file that is not an attestation dwpipe wrote.
fn invalid(message: String) -> Vec<Diagnostic> {
    vec![
        Diagnostic::error("E_ATTESTATION_INVALID", message)
            .fix("pass the .intoto.jsonl `dwpipe attest` wrote"),
    ]
}

/// The statements an attestation's lines hold (each with its payload), and how its
/// signatures came out.
struct Lines {
    vsa: Option<(Statement<Vsa>, Vec<u8>)>,
    verdict: Option<(Statement<VerdictPredicate>, Vec<u8>)>,
    signatures: usize,
    good: usize,
}

/// Reads every envelope of `text` (the attestation at `file`), checking its signatures under
/// `key`; what does not hold goes into `problems`.
fn read_lines(
    file: &Path,
    text: &str,
    key: &PublicKey,
    problems: &mut Vec<String>,
) -> Result<Lines, Vec<Diagnostic>> {
    let mut lines = Lines {
        vsa: None,
        verdict: None,
        signatures: 0,
        good: 0,
    };
    for (index, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let at = format!("`{}` line {}", file.display(), index + 1);
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
        for (n, outcome) in envelope.check(key).into_iter().enumerate() {
            lines.signatures += 1;
            match outcome {
                SignatureCheck::Good => lines.good += 1,
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
            VSA_V1 if lines.vsa.is_some() => return Err(duplicate("VSA")),
            VSA_V1 => lines.vsa = Some((statement(&payload, &at)?, payload)),
            VERDICT_V1 if lines.verdict.is_some() => return Err(duplicate("verdict")),
            VERDICT_V1 => lines.verdict = Some((statement(&payload, &at)?, payload)),
            other => problems.push(format!(
                "{at}: a statement of `{other}`, which dwpipe does not write"
            )),
        }
    }
    Ok(lines)
}

/// The VSA held to what the request names: the HAP among its subjects, the lock its policy.
fn held_to_request(
    request: &CheckRequest<'_>,
    vsa: &Statement<Vsa>,
    problems: &mut Vec<String>,
) -> Result<(), Vec<Diagnostic>> {
    if let Some(hap) = request.subject {
        let sha256 = crate::input::hash_file(hap, "a HAP")
            .map_err(|e| vec![e.diagnostic("E_ATTESTATION_INVALID", "pass the HAP to check")])?;
        if !vsa
            .subject
            .iter()
            .any(|s| s.digest.get("sha256") == Some(&sha256))
        {
            problems.push(format!(
                "`{}` (sha256 {}) is not a subject of this attestation",
                hap.display(),
                &sha256[..12]
            ));
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
    Ok(())
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
