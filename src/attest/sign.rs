//! `dwpipe attest`: an audit that holds up against its evidence, signed as two in-toto
//! statements in DSSE envelopes, one per line. Refused before anything is written: a key
//! others can read, an audit `verify-evidence` does not verify, a replay not asked for, a
//! HAP that is not the one the audit installed.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::device::Source;
use crate::diagnostic::Diagnostic;

use super::dsse::{Envelope, IN_TOTO};
use super::key::SigningKey;
use super::make::{Attested, installed, named_by, payload, statements};
use crate::schema::attestation::Subject;

/// What `attest` was asked.
pub(crate) struct AttestRequest<'a> {
    /// The audit report.
    pub(crate) report: &'a Path,
    /// The HAPs the statements are about (none: the HAPs the audit recorded installing).
    pub(crate) subjects: &'a [PathBuf],
    /// The lock the audit is held to (else the one it names).
    pub(crate) pack: Option<&'a Path>,
    /// Where to write (else beside the report, `<report>.intoto.jsonl`).
    pub(crate) out: Option<&'a Path>,
    /// A replay may be attested (never as PASSED).
    pub(crate) allow_replay: bool,
}

/// What `attest` wrote (its `--json`).
#[derive(Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct AttestOutcome {
    /// The file written.
    pub(crate) file: String,
    /// `PASSED` or `FAILED`.
    pub(crate) result: String,
    /// Why not PASSED.
    pub(crate) not_passed: Vec<String>,
    /// The audit attested.
    pub(crate) audit: String,
    /// Whether it was a replay.
    pub(crate) replay: bool,
    /// The key's id (securesystemslib's) and algorithm.
    pub(crate) keyid: String,
    /// Ed25519 or ECDSA P-256.
    pub(crate) algorithm: String,
    /// The HAPs, by name and SHA-256.
    pub(crate) subjects: Vec<Subject>,
    /// `installed` or `user`.
    pub(crate) subject_named_by: String,
    /// Whether the audit was held to a lock given (`--pack`).
    pub(crate) anchored: bool,
}

/// Why nothing was attested.
#[derive(Debug, thiserror::Error)]
pub(crate) enum AttestError {
    /// The key, the audit or a subject is refused: each with its code and fix.
    #[error("nothing attested ({} refusal(s))", .0.len())]
    Refused(Vec<Diagnostic>),
    /// The attestation could not be written.
    #[error(transparent)]
    Write(#[from] crate::output::WriteError),
}

impl From<Vec<Diagnostic>> for AttestError {
    fn from(found: Vec<Diagnostic>) -> AttestError {
        AttestError::Refused(found)
    }
}

impl AttestError {
    /// What went wrong, as findings (a write failure as one).
    pub(crate) fn diagnostics(&self) -> Vec<Diagnostic> {
        match self {
            AttestError::Refused(found) => found.clone(),
            AttestError::Write(e) => vec![
                Diagnostic::error("E_ATTEST_UNWRITABLE", crate::diagnostic::chain(e))
                    .fix("give the audit's folder room, and write access"),
            ],
        }
    }
}

/// What a session signs its audits with: the key, read (and refused) before anything runs,
/// and the HAPs to name where an audit installed none.
pub(crate) struct Signing {
    /// The private key.
    pub(crate) key: SigningKey,
    /// `--subject`: the HAPs, where the audits installed none.
    pub(crate) subjects: Vec<PathBuf>,
}

impl std::fmt::Debug for Signing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Signing")
            .field("subjects", &self.subjects)
            .finish_non_exhaustive()
    }
}

impl Signing {
    /// The key at `key`, read and held to what a signing key must be.
    pub(crate) fn new(key: &Path, subjects: Vec<PathBuf>) -> Result<Signing, Diagnostic> {
        let key = SigningKey::read(key).map_err(|e| e.diagnostic())?;
        Ok(Signing { key, subjects })
    }

    /// The audit at `report`, attested beside it (`<report>.intoto.jsonl`). A session never
    /// attests a replay: that takes `dwpipe attest --allow-replay`, asked for by name.
    pub(crate) fn attest(&self, report: &Path) -> Result<AttestOutcome, AttestError> {
        attest_with(
            &self.key,
            &AttestRequest {
                report,
                subjects: &self.subjects,
                pack: None,
                out: None,
                allow_replay: false,
            },
        )
    }
}

/// Attests the audit as asked, signed with the private key at `key`.
pub(crate) fn attest(
    key: &Path,
    request: &AttestRequest<'_>,
) -> Result<AttestOutcome, AttestError> {
    let key = SigningKey::read(key).map_err(|e| vec![e.diagnostic()])?;
    attest_with(&key, request)
}

/// Attests the audit as asked, with `key`.
fn attest_with(
    key: &SigningKey,
    request: &AttestRequest<'_>,
) -> Result<AttestOutcome, AttestError> {
    let one = |d: Diagnostic| vec![d];
    let (report, report_sha256) =
        crate::compare::read_audit_hashed(request.report, "E_ATTEST_INVALID").map_err(one)?;
    let verification = crate::recheck::verify_audit(request.report, &report, request.pack)?;
    if !verification.verified {
        let first = verification
            .differences
            .first()
            .map(ToString::to_string)
            .unwrap_or_default();
        return Err(AttestError::Refused(one(
            Diagnostic::error(
                "E_ATTEST_UNVERIFIED",
                format!(
                    "`{}` does not hold up against its evidence ({} difference(s); the first: {first}): only what was measured is attested",
                    request.report.display(),
                    verification.differences.len()
                ),
            )
            .fix(format!(
                "run `dwpipe verify-evidence {}` to see each, and attest an audit that verifies",
                request.report.display()
            )),
        )));
    }
    let replay = matches!(report.source, Some(Source::Replay { .. }));
    if replay && !request.allow_replay {
        return Err(AttestError::Refused(one(
            Diagnostic::error(
                "E_ATTEST_REPLAY",
                format!(
                    "`{}` is a replay of a recorded capture: the HAP was not measured, and a replay is never a release pass",
                    request.report.display()
                ),
            )
            .fix("attest an audit of a live device; `dwpipe attest --allow-replay` writes one that says replay (its result is FAILED)"),
        )));
    }
    let subjects = subjects(request.subjects, &report)?;
    let report_file = request
        .report
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let attestation = statements(&Attested {
        report: &report,
        report_file,
        report_sha256,
        subjects: subjects.clone(),
        time: crate::time::now(),
    });
    let sign =
        |bytes: Vec<u8>| Envelope::sign(IN_TOTO, &bytes, key).map_err(|e| one(e.diagnostic()));
    let lines = [
        sign(payload(&attestation.vsa))?,
        sign(payload(&attestation.verdict))?,
    ];
    let mut jsonl = Vec::new();
    for envelope in &lines {
        jsonl.extend(serde_json::to_vec(envelope).unwrap_or_default());
        jsonl.push(b'\n');
    }
    let out = request
        .out
        .map_or_else(|| beside(request.report), Path::to_owned);
    crate::output::write_atomic(&out, &jsonl)?;
    let public = key.public();
    Ok(AttestOutcome {
        file: crate::text::doc_path(&out),
        result: attestation.vsa.predicate.verification_result.clone(),
        not_passed: attestation.verdict.predicate.not_passed.clone(),
        audit: crate::text::doc_path(request.report),
        replay,
        keyid: public.keyid(),
        algorithm: public.algorithm().name().to_owned(),
        subjects: attestation.vsa.subject,
        subject_named_by: named_by(&report).to_owned(),
        anchored: request.pack.is_some(),
    })
}

/// `audit-1.json` → `audit-1.intoto.jsonl`, beside it.
fn beside(report: &Path) -> PathBuf {
    let stem = report
        .file_stem()
        .map_or_else(|| "audit".into(), |s| s.to_string_lossy().into_owned());
    report.with_file_name(format!(
        "{stem}{}",
        crate::schema::files::ATTESTATION_SUFFIX
    ))
}

/// Each HAP by its file name and SHA-256; where the audit recorded what it installed, each
/// must be one of those, and none named means those.
fn subjects(
    paths: &[PathBuf],
    report: &crate::schema::AuditReport,
) -> Result<Vec<(String, String)>, Vec<Diagnostic>> {
    let installed = installed(report);
    if paths.is_empty() {
        if installed.is_empty() {
            return Err(vec![
                Diagnostic::error(
                    "E_ATTEST_SUBJECT",
                    "no HAP is named, and the audit installed none: an attestation is about a HAP",
                )
                .fix("name the HAP the audit measured: --subject entry-default-signed.hap"),
            ]);
        }
        return Ok(installed
            .iter()
            .map(|h| {
                let name = Path::new(&h.path)
                    .file_name()
                    .map_or_else(|| h.path.clone(), |n| n.to_string_lossy().into_owned());
                (name, h.sha256.clone())
            })
            .collect());
    }
    let mut found = Vec::new();
    let mut refused = Vec::new();
    for path in paths {
        let sha256 = match crate::input::hash_file(path, "a HAP") {
            Ok(sha256) => sha256,
            Err(e) => {
                refused.push(e.diagnostic("E_ATTEST_SUBJECT", "pass the HAP the audit measured"));
                continue;
            }
        };
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if !installed.is_empty() && !installed.iter().any(|h| h.sha256 == sha256) {
            let recorded: Vec<String> = installed
                .iter()
                .map(|h| format!("{} ({})", h.path, &h.sha256[..12.min(h.sha256.len())]))
                .collect();
            refused.push(
                Diagnostic::error(
                    "E_ATTEST_SUBJECT",
                    format!(
                        "`{}` (sha256 {}) is not a HAP this audit installed: it recorded {}",
                        path.display(),
                        &sha256[..12],
                        recorded.join(", ")
                    ),
                )
                .fix("name the HAP the delivery or A/B installed before this audit"),
            );
            continue;
        }
        found.push((name, sha256));
    }
    if refused.is_empty() {
        Ok(found)
    } else {
        Err(refused)
    }
}
