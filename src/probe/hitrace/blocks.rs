//! Large traces parsed on every core, fed to the analysis in the file's order.
//!
//! The calling thread reads the trace in chunks of whole lines and deals them out to parser
//! threads in turn; while they parse, it feeds the analysis the chunks already parsed, taking
//! them back in the order it dealt them. The analysis (slice stacks, launch window, frames)
//! therefore sees exactly the sequence a sequential read gives, so its results are the same by
//! construction. A parsed chunk keeps only what the analysis reads of its lines — a marker
//! event's clock, thread and marker (names as offsets into the chunk), other events as a count
//! and their latest clock — so the calling thread's share stays small. Memory is the few
//! chunks in flight, whatever the trace's size.

use std::collections::VecDeque;
use std::io::{self, Read};
use std::num::NonZeroUsize;
use std::ops::Range;
use std::sync::mpsc;

use super::line::{parse_line, trim};
use super::payload::{Marker, parse_marker};

/// The longest line read: no text trace has a longer one, and a file that is one endless
/// line (`/dev/zero`) must not be read for ever.
pub(crate) const MAX_LINE: usize = 1 << 20;

/// One line, or a run of lines, as the analysis reads it. `N` is a marker name: its text, or
/// its place in a chunk while the chunk travels between threads.
#[derive(Clone, Copy, Debug)]
pub(super) enum Parsed<N> {
    /// A marker event (`tracing_mark_write`, `print`): its clock, thread and marker.
    Marker {
        /// Timestamp in nanoseconds.
        ts_ns: u64,
        /// The thread id from the line prefix.
        tid: u32,
        /// The TGID column, when known.
        tgid: Option<u32>,
        /// What the marker says.
        marker: Marker<N>,
    },
    /// Other events, this many in a row, and the latest clock among them.
    Events {
        /// Lines.
        count: u64,
        /// The latest timestamp of the run.
        last_ns: u64,
    },
    /// Non-blank lines that are neither events nor `#` comments, this many in a row.
    Unparsed(u64),
    /// Blank lines or comments, this many in a row.
    Quiet(u64),
}

impl<N> Parsed<N> {
    /// The lines it stands for.
    pub(super) fn lines(&self) -> u64 {
        match self {
            Parsed::Marker { .. } => 1,
            Parsed::Events { count: n, .. } | Parsed::Unparsed(n) | Parsed::Quiet(n) => *n,
        }
    }

    fn map<M>(self, f: impl FnMut(N) -> M) -> Parsed<M> {
        match self {
            Parsed::Marker {
                ts_ns,
                tid,
                tgid,
                marker,
            } => Parsed::Marker {
                ts_ns,
                tid,
                tgid,
                marker: marker.map(f),
            },
            Parsed::Events { count, last_ns } => Parsed::Events { count, last_ns },
            Parsed::Unparsed(n) => Parsed::Unparsed(n),
            Parsed::Quiet(n) => Parsed::Quiet(n),
        }
    }
}

/// How a trace is read: bytes per chunk, and the threads that parse chunks.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Blocks {
    /// Bytes read into a chunk (more when one line is longer).
    pub(crate) size: usize,
    /// Threads that parse, the calling one (which also reads and feeds) included.
    pub(crate) threads: usize,
    /// A trace smaller than this is parsed on the calling thread.
    pub(crate) threads_from: usize,
}

impl Blocks {
    /// 1 MiB chunks (256 KiB to 2 MiB measured alike on two cores) over every core; a trace
    /// under 256 KiB (a flow step's) on the calling thread, where starting threads would cost
    /// more than they save.
    pub(crate) fn every_core() -> Blocks {
        Blocks {
            size: 1 << 20,
            threads: std::thread::available_parallelism().map_or(1, NonZeroUsize::get),
            threads_from: 256 * 1024,
        }
    }
}

/// A chunk of whole lines and, once parsed, what they say (names as offsets into `text`).
#[derive(Default)]
struct Chunk {
    text: Vec<u8>,
    parsed: Vec<Parsed<Range<u32>>>,
}

impl Chunk {
    /// Parses `text` into `parsed`: runs of events that are not markers, of unparsed lines
    /// and of quiet lines each become one count.
    fn parse(&mut self) {
        self.parsed.clear();
        let text = &self.text[..];
        let base = text.as_ptr() as usize;
        // Where a name parsed out of `text` lies in it: names are sub-slices of their line
        // (chunks are far below 4 GiB).
        let span = |name: &[u8]| {
            let start = (name.as_ptr() as usize).wrapping_sub(base);
            debug_assert!(start + name.len() <= text.len(), "a name outside its chunk");
            start as u32..(start + name.len()) as u32
        };
        for_each_line_of(text, |line| {
            let next = parse(line).map(span);
            match (self.parsed.last_mut(), next) {
                (Some(Parsed::Events { count, last_ns }), Parsed::Events { last_ns: at, .. }) => {
                    *count += 1;
                    *last_ns = (*last_ns).max(at);
                }
                (Some(Parsed::Unparsed(n)), Parsed::Unparsed(_))
                | (Some(Parsed::Quiet(n)), Parsed::Quiet(_)) => *n += 1,
                (_, next) => self.parsed.push(next),
            }
        });
    }

    /// Hands every parsed line to `each`, its names as text; returns the lines.
    fn feed(&self, each: &mut impl FnMut(Parsed<&[u8]>)) -> u64 {
        let mut lines = 0;
        for parsed in &self.parsed {
            lines += parsed.lines();
            each(
                parsed
                    .clone()
                    .map(|at| &self.text[at.start as usize..at.end as usize]),
            );
        }
        lines
    }
}

/// Parses one line (its `\n` removed).
fn parse(text: &[u8]) -> Parsed<&[u8]> {
    match parse_line(text) {
        Some(event) if matches!(event.event, b"tracing_mark_write" | b"print" | b"0") => {
            Parsed::Marker {
                ts_ns: event.ts_ns,
                tid: event.tid,
                tgid: event.tgid,
                marker: parse_marker(event.args),
            }
        }
        Some(event) => Parsed::Events {
            count: 1,
            last_ns: event.ts_ns,
        },
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

/// Calls `each` for every line of `reader` (including a last line without a newline), parsed,
/// in the file's order, in bounded memory. A line of [`MAX_LINE`] bytes or more is an error
/// (`InvalidData`), after the lines before it.
pub(super) fn for_each_parsed<R: Read>(
    reader: R,
    blocks: Blocks,
    mut each: impl FnMut(Parsed<&[u8]>),
) -> io::Result<()> {
    let mut input = Chunks {
        reader,
        size: blocks.size.max(1),
        carry: Vec::new(),
        eof: false,
        endless: false,
    };
    let mut lines = 0u64;
    let first = input.next(Chunk::default())?;
    if let Some(what) = binary_recording(&first.text) {
        return Err(io::Error::new(io::ErrorKind::InvalidData, what));
    }
    if blocks.threads <= 1 || (input.eof && first.text.len() < blocks.threads_from) {
        let mut chunk = first;
        while !chunk.text.is_empty() {
            chunk.parse();
            lines += chunk.feed(&mut each);
            chunk = input.next(chunk)?;
        }
    } else {
        lines = on_threads(&mut input, first, blocks.threads, &mut each)?;
    }
    if input.endless {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "line {} is longer than {MAX_LINE} bytes: not a text trace",
                lines + 1
            ),
        ));
    }
    Ok(())
}

/// Where a chunk read lies, in the file's order: with a parser thread, or parsed.
enum Turn {
    /// Dealt to this parser thread.
    Dealt(usize),
    /// Parsed, to be fed.
    Parsed(Chunk),
}

/// Deals the chunks of `input` (from `first`) out to `threads - 1` parser threads, at most two
/// each at a time, and feeds them back in order; while the next chunk in order is still being
/// parsed, the calling thread parses the one after the last read itself rather than wait
/// (reading and feeding alone would leave its core half idle). At most four chunks per thread
/// are read and not yet fed. Returns the lines fed.
fn on_threads<R: Read>(
    input: &mut Chunks<R>,
    first: Chunk,
    threads: usize,
    each: &mut impl FnMut(Parsed<&[u8]>),
) -> io::Result<u64> {
    let helpers = threads.max(2) - 1;
    let most = 4 * (helpers + 1);
    std::thread::scope(|scope| {
        let parsers: Vec<(mpsc::Sender<Chunk>, mpsc::Receiver<Chunk>)> = (0..helpers)
            .map(|_| {
                let (deal, to_parse) = mpsc::channel::<Chunk>();
                let (parsed, take) = mpsc::channel();
                scope.spawn(move || {
                    for mut chunk in to_parse {
                        chunk.parse();
                        if parsed.send(chunk).is_err() {
                            return;
                        }
                    }
                });
                (deal, take)
            })
            .collect();
        let taken_back = |parser: usize| {
            parsers[parser]
                .1
                .recv()
                .expect("parsing a chunk never panics")
        };
        let mut turns: VecDeque<Turn> = VecDeque::new();
        // Chunks with each parser thread, not yet taken back.
        let mut held = vec![0usize; helpers];
        let (mut lines, mut unread) = (0u64, Some(first));
        // Chunks fed, whose buffers serve the next reads.
        let mut spare: Vec<Chunk> = Vec::new();
        let mut read = |spare: &mut Vec<Chunk>| -> io::Result<Option<Chunk>> {
            let chunk = match unread.take() {
                Some(first) => first,
                None if input.done() => return Ok(None),
                None => input.next(spare.pop().unwrap_or_default())?,
            };
            Ok(Some(chunk).filter(|c| !c.text.is_empty()))
        };
        loop {
            for (parser, held) in held.iter_mut().enumerate() {
                while *held < 2 && turns.len() < most {
                    let Some(chunk) = read(&mut spare)? else {
                        break;
                    };
                    parsers[parser]
                        .0
                        .send(chunk)
                        .expect("a parser thread takes chunks until it is dropped");
                    *held += 1;
                    turns.push_back(Turn::Dealt(parser));
                }
            }
            let chunk = match turns.pop_front() {
                None => return Ok(lines),
                Some(Turn::Parsed(chunk)) => chunk,
                Some(Turn::Dealt(parser)) => match parsers[parser].1.try_recv() {
                    Ok(chunk) => {
                        held[parser] -= 1;
                        chunk
                    }
                    Err(mpsc::TryRecvError::Empty) => {
                        turns.push_front(Turn::Dealt(parser));
                        if turns.len() < most
                            && let Some(mut chunk) = read(&mut spare)?
                        {
                            chunk.parse();
                            turns.push_back(Turn::Parsed(chunk));
                            continue;
                        }
                        turns.pop_front();
                        held[parser] -= 1;
                        taken_back(parser)
                    }
                    Err(mpsc::TryRecvError::Disconnected) => taken_back(parser),
                },
            };
            lines += chunk.feed(each);
            spare.push(chunk);
        }
    })
}

/// A trace read in chunks of whole lines.
struct Chunks<R> {
    reader: R,
    size: usize,
    /// The start of a line not yet whole, read past the previous chunk's end.
    carry: Vec<u8>,
    eof: bool,
    /// A line of [`MAX_LINE`] bytes or more was found: nothing after it is read.
    endless: bool,
}

impl<R: Read> Chunks<R> {
    /// Whether everything there is to read has been.
    fn done(&self) -> bool {
        self.eof || self.endless
    }

    /// The next chunk, read into `chunk`'s buffers: the whole lines of about `size` bytes (more
    /// when one line is longer; the trace's last line without its `\n`); empty once all is
    /// read.
    fn next(&mut self, mut chunk: Chunk) -> io::Result<Chunk> {
        chunk.text.clear();
        if self.endless {
            return Ok(chunk);
        }
        chunk.text.append(&mut self.carry);
        let mut want = self.size;
        loop {
            while !self.eof && chunk.text.len() < want {
                let missing = (want - chunk.text.len()) as u64;
                let read = (&mut self.reader)
                    .take(missing)
                    .read_to_end(&mut chunk.text)?;
                self.eof = (read as u64) < missing;
            }
            let whole = memchr::memrchr(b'\n', &chunk.text).map_or(0, |last| last + 1);
            let partial = chunk.text.len() - whole;
            if partial >= MAX_LINE {
                self.endless = true;
                chunk.text.truncate(whole);
                return Ok(chunk);
            }
            if self.eof {
                return Ok(chunk);
            }
            if whole > 0 {
                self.carry.extend_from_slice(&chunk.text[whole..]);
                chunk.text.truncate(whole);
                return Ok(chunk);
            }
            // Not one whole line yet: read on, up to the longest line.
            want = chunk.text.len() + self.size.min(MAX_LINE);
        }
    }
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

/// What a binary recording is, from its first bytes, with how to get the text trace dwpipe
/// reads: `hitrace --raw` writes a header whose `uint16` magic is 57161 (hitrace
/// `trace_content.h`, `TraceFileHeader`); DevEco Profiler and hiprofiler write `.htrace`, a
/// 1024-byte header starting with the magic `OHOSPROF` (`trace_file_header.h`).
pub(crate) fn binary_recording(head: &[u8]) -> Option<&'static str> {
    if head.starts_with(b"OHOSPROF") {
        return Some(
            "a binary DevEco Profiler / hiprofiler recording (.htrace, magic OHOSPROF), not a hitrace text trace: record with `hitrace <tags> --trace_begin`, then `hitrace --trace_finish -o /data/local/tmp/x.ftrace` (text), or open the .htrace in DevEco Profiler",
        );
    }
    let raw_magic = 57161u16.to_le_bytes();
    if head.len() >= 6 && head[..2] == raw_magic && head[2] <= 1 && head[4..6] == [1, 0] {
        return Some(
            "a binary hitrace recording (`hitrace --raw`, magic 0xDF49), not a hitrace text trace: record again without `--raw` (`hitrace --trace_finish -o /data/local/tmp/x.ftrace` writes text)",
        );
    }
    None
}

#[cfg(test)]
mod tests;
