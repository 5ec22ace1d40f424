//! DSSE, the envelope in-toto statements travel in: the payload in Base64 and signatures over
//! its pre-authentication encoding (PAE), so a signature of one payload type is never taken
//! for another's (github.com/secure-systems-lab/dsse, protocol.md v1.0).

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE};
use serde::{Deserialize, Serialize};

use super::key::{KeyError, PublicKey, SigningKey};

/// The payload type of an in-toto statement of any predicate.
pub(crate) const IN_TOTO: &str = "application/vnd.in-toto+json";

/// An envelope as it is written: one JSON object per line of a `.intoto.jsonl`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Envelope {
    /// The statement, Base64.
    pub(crate) payload: String,
    /// What the payload is.
    #[serde(rename = "payloadType")]
    pub(crate) payload_type: String,
    /// Its signatures.
    pub(crate) signatures: Vec<Signature>,
}

/// One signature.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Signature {
    /// Which key made it (securesystemslib's key id; may be empty).
    #[serde(default)]
    pub(crate) keyid: String,
    /// The signature, Base64.
    pub(crate) sig: String,
}

/// What one signature of an envelope came to under a key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum SignatureCheck {
    /// The key made it.
    Good,
    /// It is not Base64.
    Garbled,
    /// The key did not make it (another key, or the payload changed since).
    Bad,
}

/// The pre-authentication encoding: `DSSEv1 <len> <type> <len> <body>`, lengths in ASCII
/// decimal bytes.
fn pae(payload_type: &str, payload: &[u8]) -> Vec<u8> {
    let mut out = format!(
        "DSSEv1 {} {payload_type} {} ",
        payload_type.len(),
        payload.len()
    )
    .into_bytes();
    out.extend_from_slice(payload);
    out
}

/// Base64 as DSSE allows it: standard or URL-safe, padded or not.
pub(crate) fn decode(text: &str) -> Option<Vec<u8>> {
    let trimmed = text.trim_end_matches('=');
    let padded = format!("{trimmed}{}", "=".repeat((4 - trimmed.len() % 4) % 4));
    STANDARD
        .decode(&padded)
        .or_else(|_| URL_SAFE.decode(&padded))
        .ok()
}

impl Envelope {
    /// `payload` of `payload_type`, signed by `key`.
    pub(crate) fn sign(
        payload_type: &str,
        payload: &[u8],
        key: &SigningKey,
    ) -> Result<Envelope, KeyError> {
        let sig = key.sign(&pae(payload_type, payload))?;
        Ok(Envelope {
            payload: STANDARD.encode(payload),
            payload_type: payload_type.to_owned(),
            signatures: vec![Signature {
                keyid: key.public().keyid(),
                sig: STANDARD.encode(sig),
            }],
        })
    }

    /// The payload's bytes, when it is Base64.
    pub(crate) fn payload_bytes(&self) -> Option<Vec<u8>> {
        decode(&self.payload)
    }

    /// Each signature, checked under `key` against the payload as it is now.
    pub(crate) fn check(&self, key: &PublicKey) -> Vec<SignatureCheck> {
        let Some(payload) = self.payload_bytes() else {
            return vec![SignatureCheck::Garbled; self.signatures.len()];
        };
        let signed = pae(&self.payload_type, &payload);
        self.signatures
            .iter()
            .map(|s| match decode(&s.sig) {
                None => SignatureCheck::Garbled,
                Some(sig) if key.verifies(&signed, &sig) => SignatureCheck::Good,
                Some(_) => SignatureCheck::Bad,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests;
