//! The keys an attestation is signed and checked with: PEM files people already have (PKCS#8
//! private keys, SubjectPublicKeyInfo public keys; Ed25519 and ECDSA P-256, what `openssl
//! genpkey`, cosign and in-toto's securesystemslib make). A private key another user can read
//! is refused before it is used; signatures are ring's.

use std::path::{Path, PathBuf};

use ring::rand::SystemRandom;
use ring::signature::{self, EcdsaKeyPair, Ed25519KeyPair, KeyPair};
use rustls_pki_types::pem::{PemObject, SectionKind};

use crate::diagnostic::Diagnostic;
use crate::input::{ReadError, read_bounded};

/// A key file is a few hundred bytes; a bound keeps a wrong path out of memory.
const MAX_KEY_BYTES: u64 = 64 * 1024;

/// The DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410 §4): the algorithm, then the
/// 32-byte key. DER is canonical, so every such key file holds exactly these bytes.
const ED25519_SPKI: &[u8] = &[
    0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00,
];

/// The DER prefix of an uncompressed P-256 SubjectPublicKeyInfo (RFC 5480): id-ecPublicKey,
/// prime256v1, then the 65-byte point.
const P256_SPKI: &[u8] = &[
    0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a,
    0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
];

/// The algorithms dwpipe signs and checks with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Algorithm {
    /// Ed25519 (RFC 8032).
    Ed25519,
    /// ECDSA over P-256 with SHA-256, signatures DER-encoded (as cosign and securesystemslib
    /// write them).
    EcdsaP256,
}

impl Algorithm {
    /// securesystemslib's key type and scheme for it: the key id is theirs, so their
    /// `SSlibKey.from_crypto` names the key as dwpipe does.
    fn sslib(self) -> (&'static str, &'static str) {
        match self {
            Algorithm::Ed25519 => ("ed25519", "ed25519"),
            Algorithm::EcdsaP256 => ("ecdsa", "ecdsa-sha2-nistp256"),
        }
    }

    /// In words.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Algorithm::Ed25519 => "Ed25519",
            Algorithm::EcdsaP256 => "ECDSA P-256",
        }
    }
}

/// Why a key cannot be used.
#[derive(Debug, thiserror::Error)]
pub(crate) enum KeyError {
    /// The file cannot be read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// A private key others can read is no longer only its owner's.
    #[error("`{}` can be read by other users (mode {mode:o}): a signing key must be its owner's alone", path.display())]
    #[cfg_attr(
        not(unix),
        expect(
            dead_code,
            reason = "Windows keeps a key private by its ACL, not checked here"
        )
    )]
    Exposed {
        /// The key file.
        path: PathBuf,
        /// Its permission bits.
        mode: u32,
    },
    /// Not the kind of key asked for, or not PEM at all.
    #[error("`{}` {found}; {wanted}", path.display())]
    Unsupported {
        /// The key file.
        path: PathBuf,
        /// What it holds, in words.
        found: String,
        /// What was wanted, in words.
        wanted: &'static str,
    },
    /// The signing library refused to sign.
    #[error("signing with `{}` failed", path.display())]
    Signing {
        /// The key file.
        path: PathBuf,
    },
}

impl KeyError {
    /// The refusal with its stable code and a fix.
    pub(crate) fn diagnostic(&self) -> Diagnostic {
        match self {
            KeyError::Read(e) => e.diagnostic("E_KEY_UNREADABLE", "pass the path of a PEM key file"),
            KeyError::Exposed { path, .. } => {
                Diagnostic::error("E_KEY_EXPOSED", self.to_string()).fix(format!(
                    "chmod 600 {} (and make a new key if others may have read it)",
                    path.display()
                ))
            }
            KeyError::Unsupported { wanted, .. } => Diagnostic::error("E_KEY_UNSUPPORTED", self.to_string())
                .fix(if wanted.starts_with("a private") {
                    "make one with `openssl genpkey -algorithm ed25519 -out key.pem` (or convert yours: `openssl pkcs8 -topk8 -nocrypt -in old.pem -out key.pem`)"
                } else {
                    "pass the public key: `openssl pkey -in key.pem -pubout -out key.pub.pem`"
                }),
            KeyError::Signing { .. } => Diagnostic::error("E_KEY_UNSUPPORTED", self.to_string())
                .fix("make a new key with `openssl genpkey -algorithm ed25519 -out key.pem`"),
        }
    }
}

const WANT_PRIVATE: &str =
    "a private key in PKCS#8 PEM (`BEGIN PRIVATE KEY`), Ed25519 or ECDSA P-256, is needed";
const WANT_PUBLIC: &str =
    "a public key in PEM (`BEGIN PUBLIC KEY`), Ed25519 or ECDSA P-256, is needed";

/// A public key: its algorithm and its raw bytes (the 32 of Ed25519, the uncompressed point
/// of P-256).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PublicKey {
    algorithm: Algorithm,
    raw: Vec<u8>,
}

impl PublicKey {
    /// Reads a PEM public key file.
    pub(crate) fn read(path: &Path) -> Result<PublicKey, KeyError> {
        let bytes = read_bounded(path, MAX_KEY_BYTES, "a key")?;
        let unsupported = |found: String| KeyError::Unsupported {
            path: path.to_owned(),
            found,
            wanted: WANT_PUBLIC,
        };
        match first_section(&bytes) {
            Some((SectionKind::PublicKey, der)) => PublicKey::from_spki(&der)
                .ok_or_else(|| unsupported("holds a public key of another algorithm".to_owned())),
            Some((kind, _)) => Err(unsupported(format!("holds {}", section_words(kind)))),
            None => Err(unsupported(not_pem_words(&bytes))),
        }
    }

    fn from_spki(der: &[u8]) -> Option<PublicKey> {
        if let Some(raw) = der.strip_prefix(ED25519_SPKI).filter(|r| r.len() == 32) {
            return Some(PublicKey {
                algorithm: Algorithm::Ed25519,
                raw: raw.to_vec(),
            });
        }
        der.strip_prefix(P256_SPKI)
            .filter(|r| r.len() == 65 && r[0] == 4)
            .map(|raw| PublicKey {
                algorithm: Algorithm::EcdsaP256,
                raw: raw.to_vec(),
            })
    }

    /// Its algorithm.
    pub(crate) fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// Whether `sig` is its signature of `message`.
    pub(crate) fn verifies(&self, message: &[u8], sig: &[u8]) -> bool {
        let algorithm: &dyn signature::VerificationAlgorithm = match self.algorithm {
            Algorithm::Ed25519 => &signature::ED25519,
            Algorithm::EcdsaP256 => &signature::ECDSA_P256_SHA256_ASN1,
        };
        signature::UnparsedPublicKey::new(algorithm, &self.raw)
            .verify(message, sig)
            .is_ok()
    }

    /// Its SubjectPublicKeyInfo in PEM, as OpenSSL and Python's `cryptography` write it.
    pub(crate) fn pem(&self) -> String {
        use base64::Engine;
        let prefix = match self.algorithm {
            Algorithm::Ed25519 => ED25519_SPKI,
            Algorithm::EcdsaP256 => P256_SPKI,
        };
        let der = [prefix, &self.raw].concat();
        let encoded = base64::engine::general_purpose::STANDARD.encode(der);
        let mut pem = String::from("-----BEGIN PUBLIC KEY-----\n");
        for line in encoded.as_bytes().chunks(64) {
            pem.push_str(std::str::from_utf8(line).unwrap_or_default());
            pem.push('\n');
        }
        pem.push_str("-----END PUBLIC KEY-----\n");
        pem
    }

    /// Its key id, as securesystemslib computes a key's default id: the SHA-256 of the
    /// canonical JSON of its type, scheme and value (the raw key in hex for Ed25519, the PEM
    /// for ECDSA). A verifier that loads the public key with `SSlibKey.from_crypto` finds the
    /// signature under this id.
    pub(crate) fn keyid(&self) -> String {
        let (keytype, scheme) = self.algorithm.sslib();
        let public = match self.algorithm {
            Algorithm::Ed25519 => crate::hash::hex(&self.raw),
            Algorithm::EcdsaP256 => self.pem(),
        };
        // OLPC canonical JSON: sorted keys, no spaces, only `"` and `\` escaped. Neither a
        // hex key nor PEM holds either, but they are escaped all the same.
        let escaped = public.replace('\\', "\\\\").replace('"', "\\\"");
        let canonical = format!(
            "{{\"keytype\":\"{keytype}\",\"keyval\":{{\"public\":\"{escaped}\"}},\"scheme\":\"{scheme}\"}}"
        );
        crate::hash::sha256_hex(canonical.as_bytes())
    }
}

/// A private key, ready to sign.
pub(crate) struct SigningKey {
    path: PathBuf,
    pair: Pair,
}

enum Pair {
    Ed25519(Ed25519KeyPair),
    EcdsaP256(EcdsaKeyPair),
}

impl SigningKey {
    /// Reads a PKCS#8 PEM private key, refusing one other users can read.
    pub(crate) fn read(path: &Path) -> Result<SigningKey, KeyError> {
        let bytes = read_bounded(path, MAX_KEY_BYTES, "a key")?;
        let unsupported = |found: String| KeyError::Unsupported {
            path: path.to_owned(),
            found,
            wanted: WANT_PRIVATE,
        };
        let der = match first_section(&bytes) {
            Some((SectionKind::PrivateKey, der)) => der,
            Some((kind, _)) => return Err(unsupported(format!("holds {}", section_words(kind)))),
            None => return Err(unsupported(not_pem_words(&bytes))),
        };
        refuse_exposed(path)?;
        let pair = if let Ok(pair) = Ed25519KeyPair::from_pkcs8_maybe_unchecked(&der) {
            Pair::Ed25519(pair)
        } else {
            let rng = SystemRandom::new();
            EcdsaKeyPair::from_pkcs8(&signature::ECDSA_P256_SHA256_ASN1_SIGNING, &der, &rng)
                .map(Pair::EcdsaP256)
                .map_err(|rejected| {
                    unsupported(format!(
                        "holds a PKCS#8 key that is neither Ed25519 nor ECDSA P-256 ({rejected})"
                    ))
                })?
        };
        Ok(SigningKey {
            path: path.to_owned(),
            pair,
        })
    }

    /// Its public half.
    pub(crate) fn public(&self) -> PublicKey {
        match &self.pair {
            Pair::Ed25519(pair) => PublicKey {
                algorithm: Algorithm::Ed25519,
                raw: pair.public_key().as_ref().to_vec(),
            },
            Pair::EcdsaP256(pair) => PublicKey {
                algorithm: Algorithm::EcdsaP256,
                raw: pair.public_key().as_ref().to_vec(),
            },
        }
    }

    /// Its signature of `message`.
    pub(crate) fn sign(&self, message: &[u8]) -> Result<Vec<u8>, KeyError> {
        match &self.pair {
            Pair::Ed25519(pair) => Ok(pair.sign(message).as_ref().to_vec()),
            Pair::EcdsaP256(pair) => pair
                .sign(&SystemRandom::new(), message)
                .map(|s| s.as_ref().to_vec())
                .map_err(|_| KeyError::Signing {
                    path: self.path.clone(),
                }),
        }
    }
}

/// A private key file must not be readable, or writable, by anyone but its owner (as ssh
/// refuses a private key others can read).
#[cfg(unix)]
fn refuse_exposed(path: &Path) -> Result<(), KeyError> {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(path)
        .map_err(|source| {
            KeyError::Read(ReadError::Io {
                path: path.to_owned(),
                source,
            })
        })?
        .permissions()
        .mode();
    if mode & 0o077 != 0 {
        return Err(KeyError::Exposed {
            path: path.to_owned(),
            mode: mode & 0o777,
        });
    }
    Ok(())
}

#[cfg(not(unix))]
fn refuse_exposed(_: &Path) -> Result<(), KeyError> {
    Ok(())
}

/// The first PEM section of a kind rustls knows, if any.
fn first_section(bytes: &[u8]) -> Option<(SectionKind, Vec<u8>)> {
    <(SectionKind, Vec<u8>) as PemObject>::pem_slice_iter(bytes)
        .next()
        .and_then(Result::ok)
}

fn section_words(kind: SectionKind) -> &'static str {
    match kind {
        SectionKind::PublicKey => "a public key (`BEGIN PUBLIC KEY`), not a private one",
        SectionKind::PrivateKey => "a private key (`BEGIN PRIVATE KEY`), not a public one",
        SectionKind::EcPrivateKey => "an EC key in SEC1 form (`BEGIN EC PRIVATE KEY`), not PKCS#8",
        SectionKind::RsaPrivateKey => "an RSA key",
        SectionKind::Certificate => "a certificate",
        _ => "another kind of PEM section",
    }
}

/// What a file with no PEM section dwpipe reads holds, as far as can be told.
fn not_pem_words(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]);
    if text.contains("BEGIN OPENSSH PRIVATE KEY") {
        "is an OpenSSH private key, not PKCS#8 PEM".to_owned()
    } else if text.contains("BEGIN ENCRYPTED PRIVATE KEY") {
        "is an encrypted private key: dwpipe signs unattended, with an unencrypted key kept only by its owner".to_owned()
    } else if text.starts_with("ssh-") || text.starts_with("ecdsa-sha2-") {
        "is an OpenSSH public key, not PEM".to_owned()
    } else {
        "holds no PEM key".to_owned()
    }
}

#[cfg(test)]
mod tests;
