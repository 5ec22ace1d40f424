//! Watching a child's output line by line as it streams, before the bounded head and tail
//! drop the middle of a long output: each line goes to an observer with the pipe it came
//! from. A line longer than the spec's limit is not dropped: it is seen in windows of that
//! length, each overlapping the last by [`OVERLAP`] bytes (a marker across a window's edge is
//! still seen whole) and marked cut, so memory stays bounded whatever a child prints.

use std::sync::{Arc, Mutex, PoisonError};

/// Bytes each window of a cut line repeats of the one before.
pub(crate) const OVERLAP: usize = 1024;

/// Which pipe a line came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pipe {
    /// stdout.
    Out,
    /// stderr.
    Err,
}

/// One line, or one window of a line longer than the limit.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Line<'a> {
    /// Where it came from.
    pub(crate) pipe: Pipe,
    /// Its text (invalid UTF-8 replaced), without the newline.
    pub(crate) text: &'a str,
    /// Whether this is a window of a longer line.
    pub(crate) cut: bool,
}

/// Sees every line of stdout and stderr as it arrives.
pub(crate) type LineObserver = Arc<Mutex<dyn FnMut(Line<'_>) + Send>>;

/// Splits one pipe's bytes into lines (and windows) for an observer.
pub(super) struct Splitter {
    observer: LineObserver,
    pipe: Pipe,
    limit: usize,
    partial: Vec<u8>,
    /// The line under way was already seen in part.
    cut: bool,
}

impl Splitter {
    /// A splitter of `pipe` for `observer`, windows of at most `limit` bytes.
    pub(super) fn new(observer: LineObserver, pipe: Pipe, limit: usize) -> Splitter {
        Splitter {
            observer,
            pipe,
            limit: limit.max(2 * OVERLAP),
            partial: Vec::new(),
            cut: false,
        }
    }

    /// Takes the next bytes the pipe gave.
    pub(super) fn push(&mut self, bytes: &[u8]) {
        for piece in bytes.split_inclusive(|b| *b == b'\n') {
            let (body, ends) = match piece.strip_suffix(b"\n") {
                Some(body) => (body, true),
                None => (piece, false),
            };
            let mut rest = body;
            while !rest.is_empty() {
                let room = self.limit - self.partial.len();
                let (take, left) = rest.split_at(rest.len().min(room));
                self.partial.extend_from_slice(take);
                rest = left;
                if self.partial.len() == self.limit {
                    // A line longer than the limit: this window now, its end kept to overlap.
                    self.emit(true);
                    let keep = self.partial.split_off(self.limit - OVERLAP);
                    self.partial = keep;
                    self.cut = true;
                }
            }
            if ends {
                self.emit(self.cut);
                self.partial.clear();
                self.cut = false;
            }
        }
    }

    /// The pipe ended: a last line without its newline is seen too.
    pub(super) fn finish(&mut self) {
        if !self.partial.is_empty() {
            self.emit(self.cut);
            self.partial.clear();
        }
    }

    fn emit(&self, cut: bool) {
        let text = String::from_utf8_lossy(&self.partial);
        let line = Line {
            pipe: self.pipe,
            text: &text,
            cut,
        };
        (self.observer.lock().unwrap_or_else(PoisonError::into_inner))(line);
    }
}

#[cfg(test)]
mod tests;
