//! Keys and envelopes for the attestation tests: PEM keys made as openssl makes them (with
//! ring, so no tool is needed), the statements of an attestation decoded, and statements
//! signed by hand, as a forger holding the key could.

use std::fs;
use std::path::{Path, PathBuf};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use ring::rand::SystemRandom;
use ring::signature::{self, EcdsaKeyPair, Ed25519KeyPair, KeyPair};
use serde_json::Value;

/// A PKCS#8 PEM private key (mode 600) and its public PEM, written in `dir` as `name.pem` and
/// `name.pub.pem`: Ed25519 or ECDSA P-256, made as openssl's and cosign's are.
pub(crate) fn key(dir: &Path, name: &str, ecdsa: bool) -> (PathBuf, PathBuf) {
    let rng = SystemRandom::new();
    let (pkcs8, spki) = if ecdsa {
        let alg = &signature::ECDSA_P256_SHA256_ASN1_SIGNING;
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(alg, &rng).unwrap();
        let pair = EcdsaKeyPair::from_pkcs8(alg, pkcs8.as_ref(), &rng).unwrap();
        let prefix = hex("3059301306072a8648ce3d020106082a8648ce3d030107034200");
        (
            pkcs8.as_ref().to_vec(),
            [prefix, pair.public_key().as_ref().to_vec()].concat(),
        )
    } else {
        let pkcs8 = Ed25519KeyPair::generate_pkcs8(&rng).unwrap();
        let pair = Ed25519KeyPair::from_pkcs8(pkcs8.as_ref()).unwrap();
        let prefix = hex("302a300506032b6570032100");
        (
            pkcs8.as_ref().to_vec(),
            [prefix, pair.public_key().as_ref().to_vec()].concat(),
        )
    };
    let private = dir.join(format!("{name}.pem"));
    let public = dir.join(format!("{name}.pub.pem"));
    fs::write(&private, pem("PRIVATE KEY", &pkcs8)).unwrap();
    set_mode(&private, 0o600);
    fs::write(&public, pem("PUBLIC KEY", &spki)).unwrap();
    (private, public)
}

fn pem(label: &str, der: &[u8]) -> String {
    let body = STANDARD.encode(der);
    let lines: Vec<&str> = body
        .as_bytes()
        .chunks(64)
        .map(|c| std::str::from_utf8(c).unwrap())
        .collect();
    format!(
        "-----BEGIN {label}-----\n{}\n-----END {label}-----\n",
        lines.join("\n")
    )
}

fn hex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
        .collect()
}

pub(crate) fn set_mode(path: &Path, mode: u32) {
    let mut permissions = fs::metadata(path).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, mode);
    fs::set_permissions(path, permissions).unwrap();
}

/// The payloads of an attestation file, as signed.
pub(crate) fn payloads(path: &Path) -> Vec<Vec<u8>> {
    fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| {
            let envelope: Value = serde_json::from_str(line).unwrap();
            STANDARD
                .decode(envelope["payload"].as_str().unwrap())
                .unwrap()
        })
        .collect()
}

/// `statements` signed again with the Ed25519 key at `private` (what a forger holding the key
/// could write), as the attestation file at `path`.
pub(crate) fn sign_by_hand(path: &Path, statements: &[Value], private: &Path) {
    let text = fs::read_to_string(private).unwrap();
    let body: String = text.lines().filter(|l| !l.starts_with("-----")).collect();
    let pair = Ed25519KeyPair::from_pkcs8(&STANDARD.decode(body).unwrap()).unwrap();
    let mut out = String::new();
    for statement in statements {
        let payload = serde_json::to_vec(statement).unwrap();
        let kind = "application/vnd.in-toto+json";
        let mut pae = format!("DSSEv1 {} {kind} {} ", kind.len(), payload.len()).into_bytes();
        pae.extend_from_slice(&payload);
        let envelope = serde_json::json!({
            "payload": STANDARD.encode(&payload),
            "payloadType": kind,
            "signatures": [{"keyid": "", "sig": STANDARD.encode(pair.sign(&pae))}],
        });
        out.push_str(&envelope.to_string());
        out.push('\n');
    }
    fs::write(path, out).unwrap();
}

/// The Python of `.ci/attest-deps`' virtual environment (securesystemslib and jsonschema), or
/// `None` with the skip of `check` said; inside CI a missing one fails.
pub(crate) fn attest_python(check: &str) -> Option<PathBuf> {
    let python = crate::support::repo().join("target/attest-venv/bin/python");
    if python.is_file() {
        return Some(python);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "no {check} at target/attest-venv: run `bash .ci/attest-deps`"
    );
    crate::support::skipped!("the {check} (no target/attest-venv; run `bash .ci/attest-deps`)");
    None
}
