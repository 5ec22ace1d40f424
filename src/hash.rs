//! SHA-256 as dwpipe writes it everywhere (locks, evidence, fingerprints, ledgers): lowercase
//! hex.

use sha2::{Digest, Sha256};

/// Lowercase hex SHA-256 of some bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
