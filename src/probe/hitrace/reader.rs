//! Streaming lines out of any reader in bounded memory: one fixed buffer, lines handed out as
//! slices of it, and a line longer than the buffer refused instead of growing memory without
//! end.

use std::io::{self, Read};

/// Buffer size: the longest line kept whole.
pub(crate) const MAX_LINE: usize = 1 << 20;

/// Calls `each` for every line of `reader` (without its `\n`), including a last line without
/// a newline. A line longer than [`MAX_LINE`] is an error (`InvalidData`): no text trace has
/// one, and a file that is one endless line (`/dev/zero`) must not be read for ever.
pub fn for_each_line<R: Read>(mut reader: R, mut each: impl FnMut(&[u8])) -> io::Result<()> {
    let mut buffer = vec![0u8; MAX_LINE];
    let mut filled = 0;
    let mut line = 0u64;
    loop {
        let read = match reader.read(&mut buffer[filled..]) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let end = filled + read;
        let mut start = 0;
        while let Some(offset) = memchr::memchr(b'\n', &buffer[start..end]) {
            line += 1;
            each(&buffer[start..start + offset]);
            start += offset + 1;
        }
        if read == 0 {
            if start < end {
                each(&buffer[start..end]);
            }
            return Ok(());
        }
        if start == 0 && end == buffer.len() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "line {} is longer than {MAX_LINE} bytes: not a text trace",
                    line + 1
                ),
            ));
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

    fn lines(data: &[u8], step: usize) -> Vec<Vec<u8>> {
        let mut seen = Vec::new();
        for_each_line(Trickle { data, step }, |line| seen.push(line.to_vec())).unwrap();
        seen
    }

    #[test]
    fn splits_lines_across_reads_and_keeps_a_partial_last_line() {
        for step in [1, 3, 1000] {
            assert_eq!(
                lines(b"a\nbc\n\nd", step),
                vec![b"a".to_vec(), b"bc".to_vec(), Vec::new(), b"d".to_vec()]
            );
        }
        assert!(lines(b"", 10).is_empty());
    }

    #[test]
    fn an_endless_line_is_refused_in_bounded_memory() {
        let mut data = b"ok\n".to_vec();
        data.extend(vec![b'x'; 3 * MAX_LINE + 5]);
        let mut seen = 0;
        let error = for_each_line(
            Trickle {
                data: &data,
                step: 64 * 1024,
            },
            |_| seen += 1,
        )
        .unwrap_err();
        assert_eq!(seen, 1);
        assert_eq!(error.kind(), io::ErrorKind::InvalidData);
        assert!(
            error.to_string().starts_with("line 2 is longer than"),
            "{error}"
        );
    }
}
