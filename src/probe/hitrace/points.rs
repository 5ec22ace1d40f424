//! The app's own trace points, read in the trace's one pass: each question a criterion asks
//! (a span, a section, a counter) keeps a running summary of what it matched — count, sum,
//! smallest, largest, first and last — and the first few occurrences to show, so memory does
//! not grow with the trace however many times a point fires.

use crate::pack::{NameMatcher, Of, Pick, Point, SectionValue};

/// The occurrences each question keeps to show (`inspect trace`, a reading's evidence); the
/// summary counts them all.
pub(crate) const SHOWN: usize = 50;
/// The most async sections open at once per question: a trace that opens more and never
/// closes them is not held in memory for ever (the rest are counted as unmatched).
const MAX_OPEN_ASYNC: usize = 4096;

/// One occurrence: where it began and ended (a counter's value or an argument: the same
/// instant), on which thread, and what it is worth (ms, or the value).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Occurrence {
    /// Its begin, in seconds of the trace's clock.
    pub begin_s: f64,
    /// Its end.
    pub end_s: f64,
    /// The thread it was on (its begin's).
    pub tid: u32,
    /// Its worth: ms for a span or a section's duration, the value otherwise.
    pub value: f64,
}

impl Occurrence {
    /// From `begin_ns` to `end_ns` on `tid`, worth its length in ms.
    fn between(begin_ns: u64, end_ns: u64, tid: u32) -> Occurrence {
        Occurrence {
            begin_s: begin_ns as f64 / 1e9,
            end_s: end_ns as f64 / 1e9,
            tid,
            value: end_ns.saturating_sub(begin_ns) as f64 / 1e6,
        }
    }

    /// At `ts_ns` on `tid`, worth `value`.
    fn at(ts_ns: u64, tid: u32, value: f64) -> Occurrence {
        Occurrence {
            begin_s: ts_ns as f64 / 1e9,
            end_s: ts_ns as f64 / 1e9,
            tid,
            value,
        }
    }
}

/// What one question found: every occurrence summarised, the first 50 kept.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Found {
    /// How many occurrences.
    pub count: u64,
    /// Their sum.
    pub sum: f64,
    /// The smallest.
    pub min: Option<f64>,
    /// The largest.
    pub max: Option<f64>,
    /// The first.
    pub first: Option<Occurrence>,
    /// The last.
    pub last: Option<Occurrence>,
    /// The first occurrences, in the trace's order.
    pub shown: Vec<Occurrence>,
    /// Markers called `from` (a span) or begins of the section seen, matched or not.
    pub starts: u64,
    /// Markers called `to` (a span) or ends of the section seen.
    pub ends: u64,
    /// Occurrences whose argument was missing or not a number (a section's `arg:` value).
    pub unreadable: u64,
}

impl Found {
    fn add(&mut self, occurrence: Occurrence) {
        let value = occurrence.value;
        self.count += 1;
        self.sum += value;
        self.min = Some(self.min.map_or(value, |m| m.min(value)));
        self.max = Some(self.max.map_or(value, |m| m.max(value)));
        if self.first.is_none() {
            self.first = Some(occurrence.clone());
        }
        if self.shown.len() < SHOWN {
            self.shown.push(occurrence.clone());
        }
        self.last = Some(occurrence);
    }

    /// The number `of` reads; `None` when nothing occurred (never 0 in its place).
    pub fn of(&self, of: Of) -> Option<f64> {
        if self.count == 0 {
            return None;
        }
        match of {
            Of::First => self.first.as_ref().map(|o| o.value),
            Of::Last => self.last.as_ref().map(|o| o.value),
            Of::Sum => Some(self.sum),
            Of::Min => self.min,
            Of::Max => self.max,
            Of::Mean => Some(self.sum / self.count as f64),
            Of::Count => Some(self.count as f64),
        }
    }

    /// The number the question reads.
    pub fn value(&self, point: &Point) -> Option<f64> {
        match point {
            Point::Span {
                pick: Pick::First, ..
            } => self.of(Of::First),
            Point::Span {
                pick: Pick::Last, ..
            } => self.of(Of::Last),
            Point::Span { of, .. } | Point::Section { of, .. } | Point::Counter { of, .. } => {
                self.of(*of)
            }
        }
    }
}

/// One question as it is being answered.
#[derive(Debug)]
struct Asked {
    point: Point,
    first: NameMatcher,
    /// A span's `to`.
    second: Option<NameMatcher>,
    /// A span's open start (its time and thread).
    open: Option<(u64, u32)>,
    /// A section's async slices open, by task id and name: their begin and thread.
    open_async: foldhash::HashMap<(i64, Vec<u8>), (u64, u32)>,
    found: Found,
}

/// Every question of a visit, answered as the trace streams by.
#[derive(Debug, Default)]
pub(crate) struct PointsTracker {
    asked: Vec<Asked>,
}

/// The sections a `B` opened, by question (a bit each; a visit asks at most 64).
pub(crate) type Sections = u64;

/// The most questions one trace answers at once (a pack asking more is refused when read).
pub(crate) const MAX_QUESTIONS: usize = 64;

impl PointsTracker {
    /// A tracker of `points` (at most [`MAX_QUESTIONS`]; the rest are not asked).
    pub(crate) fn new(points: &[Point]) -> PointsTracker {
        PointsTracker {
            asked: points
                .iter()
                .take(MAX_QUESTIONS)
                .map(|point| {
                    let (first, second) = match point {
                        Point::Span { from, to, .. } => (from.matcher(), Some(to.matcher())),
                        Point::Section { name, .. } | Point::Counter { name, .. } => {
                            (name.matcher(), None)
                        }
                    };
                    Asked {
                        point: point.clone(),
                        first,
                        second,
                        open: None,
                        open_async: foldhash::HashMap::default(),
                        found: Found::default(),
                    }
                })
                .collect(),
        }
    }

    /// What `point` found, if it was asked.
    pub(crate) fn answer(&self, point: &Point) -> Option<Found> {
        self.asked
            .iter()
            .find(|a| a.point == *point)
            .map(|a| a.found.clone())
    }

    /// What each question found, in the order asked.
    pub(crate) fn found(&self) -> impl Iterator<Item = (&Point, &Found)> {
        self.asked.iter().map(|a| (&a.point, &a.found))
    }

    /// A marker a span may start or end at (a slice's begin, an async begin, a counter).
    fn instant(&mut self, name: &[u8], ts_ns: u64, tid: u32) {
        for asked in &mut self.asked {
            let Some(to) = &asked.second else { continue };
            // A marker that is both ends closes the open span before it opens the next.
            if to.matches(name) {
                asked.found.ends += 1;
                if let Some((from_ns, from_tid)) = asked.open.take() {
                    asked
                        .found
                        .add(Occurrence::between(from_ns, ts_ns, from_tid));
                    continue;
                }
            }
            if asked.first.matches(name) {
                asked.found.starts += 1;
                asked.open.get_or_insert((ts_ns, tid));
            }
        }
    }

    /// A `B` on thread `tid`: the sections it opens (their ends come by the thread's stack).
    pub(crate) fn begin(&mut self, name: &[u8], args: &[u8], ts_ns: u64, tid: u32) -> Sections {
        self.instant(name, ts_ns, tid);
        let mut opened = 0;
        for (at, asked) in self.asked.iter_mut().enumerate() {
            let Point::Section { value, .. } = &asked.point else {
                continue;
            };
            if !asked.first.matches(name) {
                continue;
            }
            asked.found.starts += 1;
            match value {
                SectionValue::Duration => opened |= 1 << at,
                SectionValue::Arg(key) => at_instant(&mut asked.found, key, args, ts_ns, tid),
            }
        }
        opened
    }

    /// The `E` of a `B` that opened `sections` at `begin_ns` on `tid`.
    pub(crate) fn end(&mut self, sections: Sections, begin_ns: u64, ts_ns: u64, tid: u32) {
        if sections == 0 {
            return;
        }
        for (at, asked) in self.asked.iter_mut().enumerate() {
            if sections & (1 << at) != 0 {
                asked.found.ends += 1;
                asked.found.add(Occurrence::between(begin_ns, ts_ns, tid));
            }
        }
    }

    /// An `S`: an async section opens under its task id.
    pub(crate) fn async_begin(
        &mut self,
        (name, task, args): (&[u8], i64, &[u8]),
        ts_ns: u64,
        tid: u32,
    ) {
        self.instant(name, ts_ns, tid);
        for asked in &mut self.asked {
            let Point::Section { value, .. } = &asked.point else {
                continue;
            };
            if !asked.first.matches(name) {
                continue;
            }
            asked.found.starts += 1;
            match value {
                SectionValue::Duration if asked.open_async.len() < MAX_OPEN_ASYNC => {
                    asked.open_async.insert((task, name.to_vec()), (ts_ns, tid));
                }
                SectionValue::Duration => {}
                SectionValue::Arg(key) => at_instant(&mut asked.found, key, args, ts_ns, tid),
            }
        }
    }

    /// An `F`: the async section of that task id and name closes.
    pub(crate) fn async_end(&mut self, name: &[u8], task: i64, ts_ns: u64) {
        for asked in &mut self.asked {
            if !matches!(asked.point, Point::Section { .. }) || !asked.first.matches(name) {
                continue;
            }
            asked.found.ends += 1;
            if let Some((begin_ns, tid)) = asked.open_async.remove(&(task, name.to_vec())) {
                asked.found.add(Occurrence::between(begin_ns, ts_ns, tid));
            }
        }
    }

    /// A `C`: a counter's value (and a span's marker).
    pub(crate) fn counter(&mut self, name: &[u8], value: i64, ts_ns: u64, tid: u32) {
        self.instant(name, ts_ns, tid);
        for asked in &mut self.asked {
            if matches!(asked.point, Point::Counter { .. }) && asked.first.matches(name) {
                asked.found.starts += 1;
                asked.found.add(Occurrence::at(ts_ns, tid, value as f64));
            }
        }
    }
}

/// A section worth one of its arguments: the occurrence at its begin.
fn at_instant(found: &mut Found, key: &str, args: &[u8], ts_ns: u64, tid: u32) {
    match arg(args, key) {
        Some(value) => found.add(Occurrence::at(ts_ns, tid, value)),
        None => found.unreadable += 1,
    }
}

/// The number `key=` gives in `key=value,key2=value2` (HiTraceMeter's custom arguments); a
/// value that is not a finite decimal number is none.
pub(crate) fn arg(args: &[u8], key: &str) -> Option<f64> {
    args.split(|b| *b == b',').find_map(|pair| {
        let pair = super::line::trim(pair);
        let value = pair.strip_prefix(key.as_bytes())?.strip_prefix(b"=")?;
        let text = std::str::from_utf8(super::line::trim(value)).ok()?;
        let valid = !text.is_empty()
            && text
                .bytes()
                .all(|b| b.is_ascii_digit() || b"+-.eE".contains(&b));
        text.parse::<f64>().ok().filter(|v| valid && v.is_finite())
    })
}

#[cfg(test)]
mod tests;
