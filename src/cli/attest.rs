//! `dwpipe attest` and `dwpipe verify-attestation`: an audit signed as in-toto statements a
//! release pipeline can check, and the check.

use std::path::PathBuf;

use crate::attest::{AttestOutcome, AttestRequest, AttestationCheck, CheckRequest};
use crate::exit_code;

use super::error::Error;
use super::print;
use super::shared::Json;
use super::{Edge, Run};

#[derive(Debug, clap::Args)]
#[command(after_help = "\
Writes one DSSE envelope per line (payloadType application/vnd.in-toto+json), each an in-toto \
Statement v1 about the HAPs by SHA-256: line 1 SLSA's Verification Summary \
(https://slsa.dev/verification_summary/v1: verifier, timeVerified, resourceUri, policy = the \
audit's pack.lock.json by SHA-256, inputAttestations = the audit report, line 2 and the device's \
identity or the capture, verificationResult PASSED or FAILED); line 2 dwpipe's verdict \
(https://dwpipe.dev/verdict/v1: every criterion with its result, reading, threshold, runs and \
evidence digests, the device and its state, live or replay, the workspace). Its fields: \
docs/schema/dwpipe-verdict-v1.schema.json.

PASSED only when the audit passed, no criterion is unverified, the audit is complete (its device \
met the preconditions and its lease held) and its device was live. Before anything is signed the \
audit is rebuilt from its folder as `verify-evidence` does: an audit that does not verify is not \
attested. A replay is refused unless --allow-replay; the statements then say replay and which \
capture, and the result is FAILED. Where the audit recorded the HAPs it installed (a delivery, \
A/B), each --subject must be one of them; where it did not, the statements say the subjects were \
named by the user.

Keys: PEM, PKCS#8 private (`openssl genpkey -algorithm ed25519 -out key.pem`, or ECDSA P-256: \
`openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out key.pem`), readable by its \
owner alone. The public half (`openssl pkey -in key.pem -pubout -out key.pub.pem`) is what \
`dwpipe verify-attestation`, in-toto's securesystemslib and cosign check it with. Nothing is \
sent anywhere.

Exit 0 when the attestation says PASSED, 1 when it says FAILED (the file is written either way), \
2 when nothing could be attested (a key, an audit, a subject refused).")]
pub(super) struct AttestArgs {
    /// The audit report (audit-<n>.json written by `dwpipe audit` or a delivery).
    pub(super) report: PathBuf,
    /// The private key (PKCS#8 PEM: Ed25519 or ECDSA P-256), readable by its owner only.
    #[arg(long, value_name = "PRIVATE.pem")]
    pub(super) key: PathBuf,
    /// A HAP the attestation is about (repeat for each module's HAP; default: the HAPs the
    /// audit recorded installing, as a delivery's and an A/B arm's do).
    #[arg(long = "subject", value_name = "HAP")]
    pub(super) subjects: Vec<PathBuf>,
    /// Where to write (default: beside the report, `audit-<n>.intoto.jsonl`).
    #[arg(long, value_name = "FILE.intoto.jsonl")]
    pub(super) out: Option<PathBuf>,
    /// Hold the audit to this lock (default: the copy the audit kept, unanchored).
    #[arg(long = "pack", value_name = "LOCK")]
    pub(super) lock: Option<PathBuf>,
    /// Attest a replay of a capture (it says replay and is never PASSED).
    #[arg(long)]
    pub(super) allow_replay: bool,
    #[command(flatten)]
    pub(super) output: Json,
}

impl Run for AttestArgs {
    fn json(&self) -> bool {
        self.output.json
    }

    fn execute(self, _: &Edge) -> Result<i32, Error> {
        let outcome = crate::attest::attest(
            &self.key,
            &AttestRequest {
                report: &self.report,
                subjects: &self.subjects,
                pack: self.lock.as_deref(),
                out: self.out.as_deref(),
                allow_replay: self.allow_replay,
            },
        )?;
        if self.output.json {
            print::json(&outcome);
        } else {
            show_attested(&outcome);
        }
        Ok(if outcome.result == "PASSED" {
            exit_code::OK
        } else {
            exit_code::VERDICT_FAILED
        })
    }
}

fn show_attested(outcome: &AttestOutcome) {
    for subject in &outcome.subjects {
        print::out(&format!(
            "subject  {} (sha256 {}), named by {}",
            subject.name,
            subject.digest.get("sha256").map_or("", String::as_str),
            if outcome.subject_named_by == "installed" {
                "the audit's install"
            } else {
                "you: the audit installed nothing"
            }
        ));
    }
    for why in &outcome.not_passed {
        print::out(&format!("not passed  {why}"));
    }
    print::out_line(
        &print::Line::default()
            .verdict(outcome.result.clone())
            .plain(format!(
                "  {} attested{}, signed with {} key {} → {}",
                outcome.audit,
                if outcome.replay { " (a replay)" } else { "" },
                outcome.algorithm,
                &outcome.keyid[..12.min(outcome.keyid.len())],
                outcome.file
            )),
    );
}

#[derive(Debug, clap::Args)]
#[command(after_help = "\
Checks, offline: every signature of every envelope under the public key; that line 1 (the VSA) \
and line 2 (dwpipe's verdict) are about the same HAPs and the same lock, that the VSA names the \
verdict statement by its digest, and that it says PASSED only where the verdict statement's own \
content is a release pass (its audit passed, nothing unverified, a live device). A replay is \
refused unless --allow-replay.

--subject: the HAP's SHA-256 must be a subject. --pack: the lock's SHA-256 must be the policy. \
--evidence: the audit's folder; the report the statements name is read there (by its digest), \
rebuilt from its evidence as `verify-evidence` does (with --pack, against that lock), and both \
statements are made again from it and compared field by field (timeVerified and the verifier's \
version are taken as signed).

Exit 0 when everything holds (whatever the result: check `result` for PASSED), 1 on any problem \
or difference, each named, 2 when the file or the key cannot be read.")]
pub(super) struct VerifyAttestationArgs {
    /// The attestation (`.intoto.jsonl` written by `dwpipe attest`).
    pub(super) file: PathBuf,
    /// The public key (PEM SubjectPublicKeyInfo: Ed25519 or ECDSA P-256).
    #[arg(long, value_name = "PUBLIC.pem")]
    pub(super) key: PathBuf,
    /// A HAP that must be what it is about.
    #[arg(long, value_name = "HAP")]
    pub(super) subject: Option<PathBuf>,
    /// The lock it must have been held to.
    #[arg(long = "pack", value_name = "LOCK")]
    pub(super) lock: Option<PathBuf>,
    /// The audit's folder: rebuild the verdict from its evidence and hold it to the statements.
    #[arg(long, value_name = "AUDIT_DIR")]
    pub(super) evidence: Option<PathBuf>,
    /// Accept an attestation of a replay (never a release pass).
    #[arg(long)]
    pub(super) allow_replay: bool,
    /// Exit 1 unless the attestation says PASSED (a release gate in one command).
    #[arg(long)]
    pub(super) require_passed: bool,
    #[command(flatten)]
    pub(super) output: Json,
}

impl Run for VerifyAttestationArgs {
    fn json(&self) -> bool {
        self.output.json
    }

    fn execute(self, _: &Edge) -> Result<i32, Error> {
        let mut checked = crate::attest::check(&CheckRequest {
            file: &self.file,
            key: &self.key,
            subject: self.subject.as_deref(),
            pack: self.lock.as_deref(),
            evidence: self.evidence.as_deref(),
            allow_replay: self.allow_replay,
        })?;
        if self.require_passed && checked.result != "PASSED" {
            checked.problems.push(format!(
                "it says {}, and --require-passed asks for PASSED",
                checked.result
            ));
            checked.verified = false;
        }
        if self.output.json {
            print::json(&checked);
        } else {
            show_checked(&checked);
        }
        Ok(if checked.verified {
            exit_code::OK
        } else {
            exit_code::VERDICT_FAILED
        })
    }
}

fn show_checked(checked: &AttestationCheck) {
    for problem in &checked.problems {
        print::out(&format!("REFUSED  {problem}"));
    }
    for difference in &checked.differences {
        print::out(&format!("DIFFERENT  {difference}"));
    }
    let subjects: Vec<&str> = checked.subjects.iter().map(|s| s.name.as_str()).collect();
    let found = checked.problems.len() + checked.differences.len();
    let word = if checked.verified {
        "VERIFIED"
    } else {
        "NOT VERIFIED"
    };
    print::out(&format!(
        "{word}  {}: {} of {} signature(s) by {} key {}; says {} of {} ({}); policy lock {}{}; {found} problem(s)",
        checked.file,
        checked.good_signatures,
        checked.signatures,
        checked.algorithm,
        &checked.keyid[..12.min(checked.keyid.len())],
        checked.result,
        subjects.join(", "),
        checked.source,
        &checked.policy_sha256[..12.min(checked.policy_sha256.len())],
        if checked.evidence_checked {
            ", rebuilt from its evidence"
        } else {
            ""
        },
    ));
}
