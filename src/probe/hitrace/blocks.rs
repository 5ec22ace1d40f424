//! Large traces parsed on every core. A trace is read in blocks; each block's whole lines are
//! split at line boundaries into one part per core, the parts parsed at once (parsing a line
//! and its marker is pure, and most of the work), then handed to the analysis in the order of
//! the file, one line after another. The analysis (slice stacks, launch window, frames) sees
//! exactly the sequence a sequential read gives, so its results are the same by construction;
//! memory stays one block and its parsed lines.

use std::io::{self, Read};
use std::num::NonZeroUsize;

use super::line::{EventLine, parse_line, trim};
use super::payload::{Marker, parse_marker};
/// The longest line read: no text trace has a longer one, and a file that is one endless
/// line (`/dev/zero`) must not be read for ever.
pub(crate) const MAX_LINE: usize = 1 << 20;

/// One line, parsed: what the analysis needs of it, borrowed from the block.
#[derive(Clone, Copy)]
pub(super) enum Parsed<'a> {
    /// An event, and its marker when it is a marker event.
    Event(EventLine<'a>, Option<Marker<'a>>),
    /// Non-blank lines that are neither events nor `#` comments, this many in a row.
    Unparsed(u64),
    /// Blank lines or comments, this many in a row.
    Quiet(u64),
}

impl Parsed<'_> {
    /// The lines it stands for.
    pub(super) fn lines(&self) -> u64 {
        match self {
            Parsed::Event(..) => 1,
            Parsed::Unparsed(n) | Parsed::Quiet(n) => *n,
        }
    }
}

/// Parses one line (its `\n` removed).
pub(super) fn parse(text: &[u8]) -> Parsed<'_> {
    match parse_line(text) {
        Some(event) => {
            let marker = matches!(event.event, b"tracing_mark_write" | b"print" | b"0")
                .then(|| parse_marker(event.args));
            Parsed::Event(event, marker)
        }
        None => {
            let trimmed = trim(text.strip_suffix(b"\r").unwrap_or(text));
            if !trimmed.is_empty() && trimmed[0] != b'#' {
                Parsed::Unparsed(1)
            } else {
                Parsed::Quiet(1)
            }
        }
    }
}

/// How a trace is read: bytes per block, and the parts a block is parsed in at once.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Blocks {
    /// Bytes read before a block's lines are parsed.
    pub(crate) size: usize,
    /// Parts parsed at once (the cores).
    pub(crate) parts: usize,
    /// A block smaller than this is parsed on the calling thread.
    pub(crate) threads_from: usize,
}

impl Blocks {
    /// 8 MiB blocks over every core; a block under 256 KiB (a flow step's whole trace) on the
    /// calling thread, where starting threads would cost more than they save.
    pub(crate) fn every_core() -> Blocks {
        Blocks {
            size: 8 << 20,
            parts: std::thread::available_parallelism().map_or(1, NonZeroUsize::get),
            threads_from: 256 * 1024,
        }
    }
}

/// Calls `each` for every line of `reader` (including a last line without a newline), parsed,
/// in the file's order, in bounded memory. A line of [`MAX_LINE`] bytes or more is an error
/// (`InvalidData`).
pub(super) fn for_each_parsed<R: Read>(
    mut reader: R,
    blocks: Blocks,
    mut each: impl FnMut(Parsed<'_>),
) -> io::Result<()> {
    let size = blocks.size.max(1);
    // At most a block and the start of a line not yet whole (shorter than MAX_LINE); grown as
    // it fills, so that a flow step's small trace never costs a whole block.
    let most = size + MAX_LINE;
    let mut buffer: Vec<u8> = vec![0; most.min(64 * 1024)];
    let (mut filled, mut lines) = (0usize, 0u64);
    loop {
        let target = filled + size;
        let mut eof = false;
        while filled < target {
            if filled == buffer.len() {
                buffer.resize((buffer.len() * 2).min(most), 0);
            }
            let upto = target.min(buffer.len());
            match reader.read(&mut buffer[filled..upto]) {
                Ok(0) => {
                    eof = true;
                    break;
                }
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        let whole = memchr::memrchr(b'\n', &buffer[..filled]).map_or(0, |last| last + 1);
        let endless = filled - whole >= MAX_LINE;
        // At the end of the file its last line counts, newline or not.
        let end = if eof && !endless { filled } else { whole };
        if end > 0 {
            let parts = if end < blocks.threads_from {
                1
            } else {
                blocks.parts
            };
            lines += parse_block(&buffer[..end], parts, &mut each);
        }
        if endless {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "line {} is longer than {MAX_LINE} bytes: not a text trace",
                    lines + 1
                ),
            ));
        }
        buffer.copy_within(end..filled, 0);
        filled -= end;
        if eof {
            return Ok(());
        }
    }
}

/// The bytes parsed at once in a round, over every part: the parsed lines are held until the
/// lines before them are fed. A parsed event takes about 120 bytes and the shortest event line
/// about 18 (runs of other lines collapse into one count), so a round holds at most about 7
/// times its bytes, however hostile the trace.
const ROUND: usize = 4 * 1024 * 1024;

/// Parses `block` (whole lines; the last may lack its `\n` only at the end of the file) and
/// hands every line to `each` in order, in rounds of `parts` segments parsed at once; returns
/// the lines.
fn parse_block(block: &[u8], parts: usize, each: &mut impl FnMut(Parsed<'_>)) -> u64 {
    let mut lines = 0;
    if parts <= 1 {
        for_each_line_of(block, |line| {
            lines += 1;
            each(parse(line));
        });
        return lines;
    }
    let mut rest = block;
    while !rest.is_empty() {
        let take = rest.len().min(ROUND);
        // A round ends at a line's end (or the block's).
        let round = match memchr::memchr(b'\n', &rest[take - 1..]) {
            Some(newline) => &rest[..take + newline],
            None => rest,
        };
        rest = &rest[round.len()..];
        let split = split_at_lines(round, parts);
        let parsed: Vec<Vec<Parsed<'_>>> = std::thread::scope(|scope| {
            let handles: Vec<_> = split[1..]
                .iter()
                .map(|part| scope.spawn(move || parse_lines(part)))
                .collect();
            let mut all = vec![parse_lines(split[0])];
            all.extend(
                handles
                    .into_iter()
                    .map(|h| h.join().expect("parsing a line never panics")),
            );
            all
        });
        for line in parsed.into_iter().flatten() {
            lines += line.lines();
            each(line);
        }
    }
    lines
}

/// `block` cut into about `parts` pieces, each ending just after a `\n` (the last at the end).
fn split_at_lines(block: &[u8], parts: usize) -> Vec<&[u8]> {
    let parts = parts.max(1);
    let mut pieces = Vec::with_capacity(parts);
    let mut start = 0;
    for k in 1..parts {
        let target = (block.len() * k / parts).max(start);
        let Some(newline) = memchr::memchr(b'\n', &block[target..]) else {
            break;
        };
        let end = target + newline + 1;
        if end >= block.len() {
            break;
        }
        pieces.push(&block[start..end]);
        start = end;
    }
    pieces.push(&block[start..]);
    pieces
}

/// Calls `each` for every line of `text`: `\n`-terminated lines, and a last one without.
fn for_each_line_of<'a>(text: &'a [u8], mut each: impl FnMut(&'a [u8])) {
    // One searcher over the whole text: a fresh `memchr` per line would pay its setup on
    // every 120-byte line.
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', text) {
        each(&text[start..end]);
        start = end + 1;
    }
    if start < text.len() {
        each(&text[start..]);
    }
}

/// Every line of `text` parsed, runs of lines that are not events as one count.
fn parse_lines(text: &[u8]) -> Vec<Parsed<'_>> {
    let mut parsed: Vec<Parsed<'_>> = Vec::with_capacity(text.len() / 96 + 1);
    for_each_line_of(text, |line| match (parsed.last_mut(), parse(line)) {
        (Some(Parsed::Unparsed(n)), Parsed::Unparsed(_))
        | (Some(Parsed::Quiet(n)), Parsed::Quiet(_)) => {
            *n += 1;
        }
        (_, line) => parsed.push(line),
    });
    parsed
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

    /// Lines, as (kind, lines it stands for): `E` an event, `U` unparsed, `Q` quiet.
    fn kinds(data: &[u8], step: usize, size: usize) -> Vec<(char, u64)> {
        let mut seen = Vec::new();
        let blocks = Blocks {
            size,
            parts: 3,
            threads_from: 0,
        };
        for_each_parsed(Trickle { data, step }, blocks, |line| {
            let kind = match line {
                Parsed::Event(..) => 'E',
                Parsed::Unparsed(_) => 'U',
                Parsed::Quiet(_) => 'Q',
            };
            seen.push((kind, line.lines()));
        })
        .unwrap();
        seen
    }

    #[test]
    fn lines_split_across_reads_and_blocks_and_a_partial_last_line_counts() {
        let event = b"  app-1 ( 1) [0] .... 1.000001: tracing_mark_write: B|1|x\n";
        let mut data = Vec::new();
        data.extend_from_slice(event);
        data.extend_from_slice(b"junk\n\n# comment\n");
        data.extend_from_slice(event);
        data.extend_from_slice(b"last");
        for (step, size) in [(1, 1), (3, 7), (1000, 1 << 20)] {
            let seen = kinds(&data, step, size);
            let lines: u64 = seen.iter().map(|(_, n)| n).sum();
            assert_eq!(lines, 6, "{step}/{size}: {seen:?}");
            assert_eq!(
                seen.iter().filter(|(k, _)| *k == 'E').count(),
                2,
                "{seen:?}"
            );
            assert_eq!(seen.last(), Some(&('U', 1)), "{step}/{size}: {seen:?}");
        }
        assert!(kinds(b"", 10, 10).is_empty());
    }

    #[test]
    fn an_endless_line_is_refused_in_bounded_memory() {
        let mut data = b"ok\n".to_vec();
        data.extend(vec![b'x'; 3 * MAX_LINE + 5]);
        let mut seen = 0;
        let error = for_each_parsed(
            Trickle {
                data: &data,
                step: 64 * 1024,
            },
            Blocks::every_core(),
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

    #[test]
    fn blocks_split_at_line_boundaries_and_keep_every_line() {
        let text = b"a\nbb\n\nccc\nd";
        for parts in 1..6 {
            let pieces = split_at_lines(text, parts);
            assert_eq!(pieces.concat(), text.to_vec(), "{parts}");
            for piece in &pieces[..pieces.len() - 1] {
                assert!(piece.ends_with(b"\n"), "{parts}: {piece:?}");
            }
        }
    }
}
