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

/// An identifier no other call makes: 32 hex digits of the SHA-256 of this process, the
/// clock to the nanosecond, a count of the calls so far and `seed`. Not a secret: a name
/// that two runs never share, whose copy a re-dated report cannot shed.
pub(crate) fn unique_id(seed: &str) -> String {
    static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut id = sha256_hex(format!("{}:{nanos}:{call}:{seed}", std::process::id()).as_bytes());
    id.truncate(32);
    id
}

/// Bytes as lowercase hex.
pub(crate) fn hex(digest: &[u8]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}
