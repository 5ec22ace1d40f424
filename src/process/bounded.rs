//! Output kept in bounded memory: the first `head` bytes and the last `tail` bytes, with a
//! count of what was dropped between them.

use std::collections::VecDeque;

/// A stream's bytes, bounded: head, tail, and the count of bytes dropped in between.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct BoundedOutput {
    head: Vec<u8>,
    tail: VecDeque<u8>,
    head_limit: usize,
    tail_limit: usize,
    dropped: u64,
    total: u64,
}

impl BoundedOutput {
    /// Keeps at most `head_limit` leading and `tail_limit` trailing bytes.
    pub(crate) fn new(head_limit: usize, tail_limit: usize) -> BoundedOutput {
        BoundedOutput {
            head_limit,
            tail_limit,
            ..BoundedOutput::default()
        }
    }

    /// Appends a chunk.
    pub(crate) fn push(&mut self, mut chunk: &[u8]) {
        self.total += chunk.len() as u64;
        let room = self.head_limit - self.head.len();
        if room > 0 {
            let take = room.min(chunk.len());
            self.head.extend_from_slice(&chunk[..take]);
            chunk = &chunk[take..];
        }
        if chunk.len() >= self.tail_limit {
            self.dropped += self.tail.len() as u64 + (chunk.len() - self.tail_limit) as u64;
            self.tail.clear();
            self.tail.extend(&chunk[chunk.len() - self.tail_limit..]);
            return;
        }
        let overflow = (self.tail.len() + chunk.len()).saturating_sub(self.tail_limit);
        self.tail.drain(..overflow);
        self.dropped += overflow as u64;
        self.tail.extend(chunk);
    }

    /// Every byte seen, kept or not.
    #[cfg(test)]
    pub(crate) fn total(&self) -> u64 {
        self.total
    }

    /// Bytes dropped between head and tail.
    #[cfg(test)]
    pub(crate) fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Whether nothing was dropped.
    pub(crate) fn is_complete(&self) -> bool {
        self.dropped == 0
    }

    /// The kept bytes, with a marker line where bytes were dropped.
    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = self.head.clone();
        if self.dropped > 0 {
            bytes.extend_from_slice(format!("\n[… {} bytes dropped …]\n", self.dropped).as_bytes());
        }
        bytes.extend(self.tail.iter());
        bytes
    }

    /// The kept text, lossily decoded.
    pub(crate) fn to_string_lossy(&self) -> String {
        String::from_utf8_lossy(&self.to_bytes()).into_owned()
    }
}

#[cfg(test)]
mod tests;
