//! SHA-256 as dwpipe writes it everywhere (locks, evidence, fingerprints, ledgers): lowercase
//! hex, of bytes in memory or fed piece by piece.

use sha2::{Digest, Sha256};

/// Lowercase hex SHA-256 of some bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// A SHA-256 fed piece by piece (a file streamed in fixed memory).
#[derive(Default)]
pub(crate) struct Hasher(Sha256);

impl Hasher {
    /// An empty hash.
    pub(crate) fn new() -> Hasher {
        Hasher::default()
    }

    /// Feeds bytes.
    pub(crate) fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    /// The lowercase hex digest.
    pub(crate) fn finish(self) -> String {
        hex(&self.0.finalize())
    }
}

fn hex(digest: &[u8]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}
