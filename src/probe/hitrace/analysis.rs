//! The streaming analysis of a trace: counts, per-thread slice stacks, and the few facts the
//! metrics need, gathered in one pass without keeping the trace.
//!
//! Slices are built per thread from the tid of the line prefix (never the payload pid, which
//! lies inside container pid namespaces); an `E` with nothing open is an orphan, a `B` still
//! open at the end is reported, nesting depth is tracked.

use std::collections::HashMap;

use super::cold_start::ColdStartTracker;
use super::frames::FrameTracker;
use std::io::{self, Read};

use super::blocks::{Blocks, Parsed, for_each_parsed};
use super::line::EventLine;
use super::payload::Marker;
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
    stacks: HashMap<u32, Vec<Open>>,
    /// Frame facts.
    pub(crate) frames: FrameTracker,
    /// Launch facts.
    pub(crate) cold_start: ColdStartTracker,
    /// What an input cost, when asked for (a flow step's trace).
    pub(crate) response: Option<ResponseTracker>,
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

    /// Feeds every line of `reader`, parsed on every core (see [`super::blocks`]).
    pub(crate) fn feed<R: Read>(&mut self, reader: R) -> io::Result<()> {
        self.feed_in(reader, Blocks::every_core())
    }

    /// Feeds every line of `reader`, read in `blocks`.
    pub(crate) fn feed_in<R: Read>(&mut self, reader: R, blocks: Blocks) -> io::Result<()> {
        for_each_parsed(reader, blocks, |line| self.parsed(line))
    }

    fn parsed(&mut self, line: Parsed<'_>) {
        self.lines += line.lines();
        match line {
            Parsed::Event(event, marker) => self.event(&event, marker),
            Parsed::Unparsed(n) => self.unparsed_lines += n,
            Parsed::Quiet(_) => {}
        }
    }

    fn event(&mut self, event: &EventLine<'_>, marker: Option<Marker<'_>>) {
        self.events += 1;
        if let Some(response) = &mut self.response {
            response.seen(event.ts_ns);
        }
        let Some(marker) = marker else {
            return;
        };
        match marker {
            Marker::Begin { pid, name } => {
                self.markers.begin += 1;
                let pid = pid.or(event.tgid);
                let stack = self.stacks.entry(event.tid).or_default();
                let parent = stack.last().map(|o| o.kind);
                let kind = classify(name);
                stack.push(Open {
                    kind,
                    begin_ns: event.ts_ns,
                });
                self.max_depth = self.max_depth.max(stack.len());
                self.frames.begin(name, event.ts_ns);
                self.cold_start.begin(name, kind, parent, event, pid);
                if let Some(response) = &mut self.response {
                    response.begin(name, event.ts_ns);
                }
            }
            Marker::End => {
                self.markers.end += 1;
                match self.stacks.get_mut(&event.tid).and_then(Vec::pop) {
                    Some(open) => {
                        self.slices += 1;
                        if open.kind == SliceKind::PresentFence {
                            self.frames.present(event.ts_ns);
                            self.cold_start.present(open.begin_ns, event.ts_ns);
                            if let Some(response) = &mut self.response {
                                response.present(event.ts_ns);
                            }
                        }
                    }
                    None => self.orphan_ends += 1,
                }
            }
            Marker::AsyncBegin { name, .. } => {
                self.markers.async_begin += 1;
                if let Some(response) = &mut self.response {
                    response.begin(name, event.ts_ns);
                }
            }
            Marker::AsyncEnd { .. } => self.markers.async_end += 1,
            Marker::Counter { .. } => self.markers.counter += 1,
            Marker::Other => self.markers.other += 1,
        }
    }

    /// `B`s still open at the end of the trace.
    pub(crate) fn open_begins(&self) -> u64 {
        self.stacks.values().map(|s| s.len() as u64).sum()
    }
}
