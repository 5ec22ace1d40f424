//! The questions `perf.span`, `perf.section` and `perf.counter` ask of the app's own trace
//! points (HiTraceMeter's `startTrace`/`finishTrace`, `traceByValue`), typed once the pack is
//! read: the names they match, what of each occurrence is read, and which number of them all.

use crate::words::words;

words! {
    /// Which span `perf.span` reads: each pairs a `from` with the first `to` after it.
    pub enum Pick {
        /// The first `to` after the first `from`; the default.
        First = "first",
        /// The last such pair in the trace.
        Last = "last",
        /// Every pair, one number of them all by `of`.
        Each = "each",
    }
}

words! {
    /// Which number of every occurrence a trace point probe reads.
    pub enum Of {
        /// The first occurrence.
        First = "first",
        /// The last occurrence.
        Last = "last",
        /// Their sum.
        Sum = "sum",
        /// The smallest.
        Min = "min",
        /// The largest.
        Max = "max",
        /// Their arithmetic mean.
        Mean = "mean",
        /// How many there were.
        Count = "count",
    }
}

/// The numbers `of` may read, per probe (the and Macrobenchmark's set).
pub(crate) const SECTION_OF: &[&str] = &["first", "sum", "min", "max", "mean", "count"];
pub(crate) const COUNTER_OF: &[&str] = &["last", "min", "max", "mean"];
pub(crate) const SPAN_OF: &[&str] = &["first", "last", "sum", "min", "max", "mean", "count"];

/// The longest name or pattern a criterion may give (a marker's name is at most a line).
const MAX_NAME: usize = 512;

/// A marker's name as a criterion writes it: the name itself (matched whole, without its
/// `H:` prefix), or a `/regex/` matched anywhere in it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TraceName {
    /// The name, or the pattern between the slashes.
    text: String,
    /// Whether `text` is a pattern.
    pattern: bool,
}

impl TraceName {
    /// `text` as a name: `/…/` is a pattern (which must compile), anything else a name, its
    /// `H:` prefix dropped as the trace's are.
    pub(crate) fn parse(text: &str) -> Result<TraceName, String> {
        if text.trim().is_empty() {
            return Err("an empty name matches no marker".to_owned());
        }
        if text.len() > MAX_NAME {
            return Err(format!("a name of at most {MAX_NAME} bytes"));
        }
        if let Some(pattern) = text
            .strip_prefix('/')
            .and_then(|rest| rest.strip_suffix('/'))
            .filter(|p| !p.is_empty())
        {
            regex::bytes::Regex::new(pattern)
                .map_err(|e| format!("a pattern that compiles: {e}"))?;
            return Ok(TraceName {
                text: pattern.to_owned(),
                pattern: true,
            });
        }
        let name = text.strip_prefix("H:").unwrap_or(text).trim();
        Ok(TraceName {
            text: name.to_owned(),
            pattern: false,
        })
    }

    /// The matcher of marker names (as the trace gives them, `H:` dropped).
    pub(crate) fn matcher(&self) -> NameMatcher {
        if self.pattern {
            // Compiled when the pack was read: it compiles.
            NameMatcher::Pattern(regex::bytes::Regex::new(&self.text).unwrap_or_else(|_| {
                regex::bytes::Regex::new("$^").expect("a pattern matching nothing")
            }))
        } else {
            NameMatcher::Exact(self.text.as_bytes().to_vec())
        }
    }
}

impl std::fmt::Display for TraceName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.pattern {
            write!(f, "/{}/", self.text)
        } else {
            f.write_str(&self.text)
        }
    }
}

/// A compiled [`TraceName`].
#[derive(Clone, Debug)]
pub(crate) enum NameMatcher {
    /// The whole name.
    Exact(Vec<u8>),
    /// A pattern found anywhere in it.
    Pattern(regex::bytes::Regex),
}

impl NameMatcher {
    /// Whether a marker called `name` is one of these.
    pub(crate) fn matches(&self, name: &[u8]) -> bool {
        match self {
            NameMatcher::Exact(exact) => name == exact.as_slice(),
            NameMatcher::Pattern(pattern) => pattern.is_match(name),
        }
    }
}

/// What a section's occurrence is worth: its duration, or one of its arguments
/// (`B|pid|H:name|I62|area=1228800` with `value: arg:area`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SectionValue {
    /// From its begin to its end, in ms.
    Duration,
    /// The number an argument of its begin marker gives.
    Arg(String),
}

/// The question a trace point probe asks of a trace.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Point {
    /// From a marker called `from` to the first marker called `to` after it, in ms.
    Span {
        /// The marker the span starts at (a slice's or async slice's begin, a counter).
        from: TraceName,
        /// The marker it ends at.
        to: TraceName,
        /// Which pair.
        pick: Pick,
        /// With `pick: each`, which number of them all.
        of: Of,
    },
    /// A named section (`B`/`E` on one thread, or `S`/`F` with one task id).
    Section {
        /// Its name.
        name: TraceName,
        /// Which number of every occurrence.
        of: Of,
        /// What each occurrence is worth.
        value: SectionValue,
    },
    /// A counter's values (`C`).
    Counter {
        /// Its name.
        name: TraceName,
        /// Which number of its values.
        of: Of,
    },
}

impl Point {
    /// What it reads, without which number: `spans from `a` to `b``, `section `s``.
    pub(crate) fn subject(&self) -> String {
        match self {
            Point::Span { from, to, .. } => format!("spans from `{from}` to `{to}`"),
            Point::Section {
                name,
                value: SectionValue::Arg(key),
                ..
            } => format!("`{key}` of section `{name}`"),
            Point::Section { name, .. } => format!("section `{name}`"),
            Point::Counter { name, .. } => format!("counter `{name}`"),
        }
    }

    /// The question in words, for a report's evidence and a method: `from `a` to `b``.
    pub(crate) fn describe(&self) -> String {
        match self {
            Point::Span { from, to, pick, of } => match pick {
                Pick::Each => format!("the {of} of every span from `{from}` to `{to}`"),
                Pick::First => format!("from the first `{from}` to the first `{to}` after it"),
                Pick::Last => format!("the last span from `{from}` to `{to}`"),
            },
            Point::Section { name, of, value } => match value {
                SectionValue::Duration => format!("the {of} of section `{name}`"),
                SectionValue::Arg(key) => format!("the {of} of `{key}` of section `{name}`"),
            },
            Point::Counter { name, of } => format!("the {of} of counter `{name}`"),
        }
    }
}

/// `arg:KEY` as a section's value; `duration` (the default) as its duration.
pub(crate) fn section_value(text: &str) -> Option<SectionValue> {
    if text == "duration" {
        return Some(SectionValue::Duration);
    }
    let key = text.strip_prefix("arg:")?;
    let valid = !key.is_empty()
        && key.len() <= 64
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_-.".contains(&b));
    valid.then(|| SectionValue::Arg(key.to_owned()))
}

#[cfg(test)]
mod tests;
