//! The streaming analysis of a trace: counts, per-thread slice stacks, and the few facts the
//! metrics need, gathered in one pass without keeping the trace.
//!
//! Slices are built per thread from the tid of the line prefix (never the payload pid, which
//! lies inside container pid namespaces); an `E` with nothing open is an orphan, a `B` still
//! open at the end is reported, nesting depth is tracked.

use super::cold_start::ColdStartTracker;
use super::frames::FrameTracker;
use std::io::{self, Read};

use super::blocks::{Blocks, Parsed, for_each_parsed};
use super::payload::Marker;
use super::points::{PointsTracker, Sections};
use super::response::ResponseTracker;
use super::scan::{SliceKind, classify};

/// Marker counts by phase.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct MarkerCounts {
    /// `B`.
    pub begin: u64,
    /// `E`.
    pub end: u64,
    /// `S`.
    pub async_begin: u64,
    /// `F`.
    pub async_end: u64,
    /// `C`.
    pub counter: u64,
    /// Android `I/N/G/H` and unrecognized payloads.
    pub other: u64,
}

#[derive(Clone, Copy, Debug)]
struct Open {
    kind: SliceKind,
    begin_ns: u64,
    /// The app's sections a criterion asks about that this slice is.
    sections: Sections,
}

/// The one-pass accumulator.
#[derive(Debug, Default)]
pub struct Analysis {
    /// Lines read.
    pub(crate) lines: u64,
    /// Lines that parsed as events.
    pub(crate) events: u64,
    /// Non-blank lines that are neither events nor `#` comments.
    pub(crate) unparsed_lines: u64,
    /// Marker counts.
    pub(crate) markers: MarkerCounts,
    /// Matched B/E pairs.
    pub(crate) slices: u64,
    /// `E` with no open `B` on its thread.
    pub(crate) orphan_ends: u64,
    /// Deepest nesting seen.
    pub(crate) max_depth: usize,
    /// Open slices by thread id (foldhash: a `B` or `E` looks its thread up, and SipHash
    /// was a tenth of the analysis).
    stacks: foldhash::HashMap<u32, Vec<Open>>,
    /// Frame facts.
    pub(crate) frames: FrameTracker,
    /// Launch facts.
    pub(crate) cold_start: ColdStartTracker,
    /// What an input cost, when asked for (a flow step's trace).
    pub(crate) response: Option<ResponseTracker>,
    /// The app's own trace points the criteria ask about.
    pub(crate) points: PointsTracker,
    /// The latest event's clock: a trace that ends before its recording began is stale.
    pub(crate) last_ns: Option<u64>,
    /// Whether the text ends inside a line (its last byte not a newline): a file cut short
    /// (a transfer interrupted, a disk full), whose window is not all there.
    pub(crate) cut_mid_line: bool,
}

/// A reader that remembers the last byte it gave.
struct LastByte<R> {
    inner: R,
    last: Option<u8>,
}

impl<R: Read> Read for LastByte<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n > 0 {
            self.last = Some(buf[n - 1]);
        }
        Ok(n)
    }
}

impl Analysis {
    /// An analysis looking for the launch of `bundle` (any bundle when `None`).
    pub(crate) fn new(bundle: Option<String>) -> Analysis {
        Analysis {
            cold_start: ColdStartTracker::new(bundle),
            ..Analysis::default()
        }
    }

    /// An analysis of a flow step's trace: frames, and what its input cost.
    pub(crate) fn of_step() -> Analysis {
        Analysis {
            response: Some(ResponseTracker::default()),
            ..Analysis::default()
        }
    }

    /// The same analysis, also answering `points` (the app's spans, sections, counters).
    pub(crate) fn asking(self, points: &[crate::pack::Point]) -> Analysis {
        Analysis {
            points: PointsTracker::new(points),
            ..self
        }
    }

    /// Feeds every line of `reader`, parsed on every core (see [`super::blocks`]).
    pub(crate) fn feed<R: Read>(&mut self, reader: R) -> io::Result<()> {
        self.feed_in(reader, Blocks::every_core())
    }

    /// Feeds every line of `reader`, read in `blocks`.
    pub(crate) fn feed_in<R: Read>(&mut self, reader: R, blocks: Blocks) -> io::Result<()> {
        let mut reader = LastByte {
            inner: reader,
            last: None,
        };
        for_each_parsed(&mut reader, blocks, |line| self.parsed(line))?;
        self.cut_mid_line = reader.last.is_some_and(|b| b != b'\n');
        Ok(())
    }

    fn parsed(&mut self, line: Parsed<&[u8]>) {
        self.lines += line.lines();
        match line {
            Parsed::Marker {
                ts_ns,
                tid,
                tgid,
                marker,
            } => {
                self.events += 1;
                self.last_ns = self.last_ns.max(Some(ts_ns));
                if let Some(response) = &mut self.response {
                    response.seen(ts_ns);
                }
                self.marker(ts_ns, tid, tgid, marker);
            }
            Parsed::Events { count, last_ns } => {
                self.events += count;
                if count > 0 {
                    self.last_ns = self.last_ns.max(Some(last_ns));
                }
                if let Some(response) = &mut self.response {
                    response.seen(last_ns);
                }
            }
            Parsed::Unparsed(n) => self.unparsed_lines += n,
            Parsed::Quiet(_) => {}
        }
    }

    fn marker(&mut self, ts_ns: u64, tid: u32, tgid: Option<u32>, marker: Marker<&[u8]>) {
        match marker {
            Marker::Begin { pid, name, args } => {
                self.markers.begin += 1;
                let pid = pid.or(tgid);
                let sections = self.points.begin(name, args, ts_ns, tid);
                let stack = self.stacks.entry(tid).or_default();
                let parent = stack.last().map(|o| o.kind);
                let kind = classify(name);
                stack.push(Open {
                    kind,
                    begin_ns: ts_ns,
                    sections,
                });
                self.max_depth = self.max_depth.max(stack.len());
                self.frames.begin(name, ts_ns);
                self.cold_start.begin(name, kind, parent, ts_ns, tid, pid);
                if let Some(response) = &mut self.response {
                    response.begin(name, ts_ns);
                }
            }
            Marker::End => {
                self.markers.end += 1;
                match self.stacks.get_mut(&tid).and_then(Vec::pop) {
                    Some(open) => {
                        self.slices += 1;
                        self.points.end(open.sections, open.begin_ns, ts_ns, tid);
                        if open.kind == SliceKind::PresentFence {
                            self.frames.present(ts_ns);
                            self.cold_start.present(open.begin_ns, ts_ns);
                            if let Some(response) = &mut self.response {
                                response.present(ts_ns);
                            }
                        }
                    }
                    None => self.orphan_ends += 1,
                }
            }
            Marker::AsyncBegin { name, task, args } => {
                self.markers.async_begin += 1;
                self.points.async_begin((name, task, args), ts_ns, tid);
                if let Some(response) = &mut self.response {
                    response.begin(name, ts_ns);
                }
            }
            Marker::AsyncEnd { name, task } => {
                self.markers.async_end += 1;
                self.points.async_end(name, task, ts_ns);
            }
            Marker::Counter { name, value } => {
                self.markers.counter += 1;
                self.points.counter(name, value, ts_ns, tid);
            }
            Marker::Other => self.markers.other += 1,
        }
    }

    /// `B`s still open at the end of the trace.
    pub(crate) fn open_begins(&self) -> u64 {
        self.stacks.values().map(|s| s.len() as u64).sum()
    }
}
