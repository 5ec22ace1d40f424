//! Streaming lines out of any reader in bounded memory: one fixed buffer, lines handed out as
//! slices of it, and a line longer than the buffer reported as oversized instead of growing
//! memory without end.

use std::io::{self, Read};

/// Buffer size: the longest line kept whole.
pub(crate) const MAX_LINE: usize = 1 << 20;

/// One line of input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Line<'a> {
    /// A line without its `\n`.
    Text(&'a [u8]),
    /// A line longer than [`MAX_LINE`], skipped.
    Oversized,
}

/// Calls `each` for every line of `reader`, including a last line without a newline.
pub fn for_each_line<R: Read>(mut reader: R, mut each: impl FnMut(Line<'_>)) -> io::Result<()> {
    let mut buffer = vec![0u8; MAX_LINE];
    let mut filled = 0;
    let mut skipping = false;
    loop {
        let read = match reader.read(&mut buffer[filled..]) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let end = filled + read;
        let mut start = 0;
        while let Some(offset) = memchr::memchr(b'\n', &buffer[start..end]) {
            let line = &buffer[start..start + offset];
            if skipping {
                skipping = false;
            } else {
                each(Line::Text(line));
            }
            start += offset + 1;
        }
        if read == 0 {
            if start < end && !skipping {
                each(Line::Text(&buffer[start..end]));
            }
            return Ok(());
        }
        if start == 0 && end == buffer.len() {
            // A whole buffer without a newline: drop it and the rest of that line.
            if !skipping {
                each(Line::Oversized);
            }
            skipping = true;
            filled = 0;
            continue;
        }
        buffer.copy_within(start..end, 0);
        filled = end - start;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that hands out at most `step` bytes per call.
    struct Trickle<'a> {
        data: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            let n = self.step.min(out.len()).min(self.data.len());
            out[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    fn lines(data: &[u8], step: usize) -> Vec<Option<Vec<u8>>> {
        let mut seen = Vec::new();
        for_each_line(Trickle { data, step }, |line| {
            seen.push(match line {
                Line::Text(t) => Some(t.to_vec()),
                Line::Oversized => None,
            });
        })
        .unwrap();
        seen
    }

    #[test]
    fn splits_lines_across_reads_and_keeps_a_partial_last_line() {
        for step in [1, 3, 1000] {
            assert_eq!(
                lines(b"a\nbc\n\nd", step),
                vec![
                    Some(b"a".to_vec()),
                    Some(b"bc".to_vec()),
                    Some(Vec::new()),
                    Some(b"d".to_vec())
                ]
            );
        }
        assert!(lines(b"", 10).is_empty());
    }

    #[test]
    fn an_endless_line_is_skipped_in_bounded_memory() {
        let mut data = vec![b'x'; 3 * MAX_LINE + 5];
        data.extend_from_slice(b"\nok\n");
        assert_eq!(lines(&data, 64 * 1024), vec![None, Some(b"ok".to_vec())]);
    }
}
