//! A probe's arguments once they passed the catalog: typed words and parsed selectors, what
//! the audit and the extractors read. The pack as written keeps its strings (the lock hashes
//! them); this is the form nothing downstream has to parse again.

use crate::words::words;

use super::flow::MeasuredStep;
use super::points::{Of, Pick, Point, SectionValue, TraceName, section_value};
use super::schema::ProbeDoc;
use super::selector::Selector;

words! {
    /// How a probe's runs become one value.
    pub enum Aggregate {
        /// The middle run (the mean of the middle two for an even count); the default.
        Median = "median",
        /// The lowest run.
        Min = "min",
        /// The highest run.
        Max = "max",
        /// The arithmetic mean.
        Mean = "mean",
        /// The 90th percentile (nearest rank).
        P90 = "p90",
    }
}

words! {
    /// Which number of `perf.frames`.
    pub enum FrameMetric {
        /// Frames per second.
        Fps = "fps",
        /// Median frame interval.
        P50 = "p50",
        /// 95th percentile frame interval.
        P95 = "p95",
        /// Longest frame interval.
        Max = "max",
        /// Dropped milliseconds per second; the default.
        Jank = "jank",
    }
}

words! {
    /// Which number of `perf.response`.
    pub enum ResponseMetric {
        /// From the input's dispatch to the start of what it caused; the default.
        Response = "response",
        /// From the input's dispatch to the last frame before the screen stood still.
        Complete = "complete",
    }
}

words! {
    /// Which share of the CPU `perf.cpu` and `perf.cpu-background` read: of every core (at
    /// most 100 %, as hidumper, hiview and AppAnalyzer state a load), or of one core (a load
    /// that keeps two cores busy is 200 %).
    pub enum CpuShare {
        /// The share of every online core; the default.
        AllCores = "all-cores",
        /// The share of one core: the all-cores share times the online cores.
        OneCore = "one-core",
    }
}

words! {
    /// Where `perf.frames` reads the frames it measures.
    pub enum FramesVia {
        /// Present fences in a hitrace trace; the default.
        Hitrace = "hitrace",
        /// RenderService's own present times (`hidumper -s RenderService -a '<surface> fps'`).
        Hidumper = "hidumper",
    }
}

words! {
    /// The direction of a gap.
    pub enum Axis {
        /// From one node's bottom to the next one's top; the default.
        Vertical = "vertical",
        /// From one node's right to the next one's left.
        Horizontal = "horizontal",
    }
}

words! {
    /// The edge two nodes are aligned on.
    pub enum Edge {
        /// Their left edges; the default.
        Left = "left",
        /// Their top edges.
        Top = "top",
    }
}

words! {
    /// Which side of a node is measured.
    pub enum Side {
        /// Its width; the default.
        Width = "width",
        /// Its height.
        Height = "height",
    }
}

/// Why a probe reference does not fit the catalog.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProbeArgError {
    /// The id is not in the catalog.
    #[error("unknown probe `{0}`")]
    UnknownProbe(String),
    /// The probe does not take this argument.
    #[error("probe `{probe}` takes no argument `{arg}` (it takes: {takes})")]
    UnexpectedArg {
        /// Probe id.
        probe: &'static str,
        /// The argument given.
        arg: &'static str,
        /// The arguments it does take.
        takes: String,
    },
    /// A required argument is missing.
    #[error("probe `{probe}` needs `{arg}`")]
    MissingArg {
        /// Probe id.
        probe: &'static str,
        /// The missing argument.
        arg: &'static str,
    },
    /// An argument's value is not allowed.
    #[error("probe `{probe}`: `{arg}: {value}` is not allowed ({allowed})")]
    BadValue {
        /// Probe id.
        probe: &'static str,
        /// The argument.
        arg: &'static str,
        /// The value given.
        value: String,
        /// What is allowed.
        allowed: String,
    },
}

/// The validated arguments of a criterion's probe.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ProbeArgs {
    /// Runs asked for by the pack (the playbook's count otherwise).
    pub(crate) runs: Option<u32>,
    /// How the runs are aggregated.
    pub(crate) aggregate: Aggregate,
    /// Which frame number (`perf.frames` only).
    pub(crate) metric: FrameMetric,
    /// Which response number (`perf.response` only).
    pub(crate) response: ResponseMetric,
    /// Which share of the CPU (`perf.cpu`, `perf.cpu-background` only).
    pub(crate) cpu: CpuShare,
    /// Where frames are read (`perf.frames` only).
    pub(crate) via: FramesVia,
    /// The flow the probe measures after.
    pub(crate) flow: Option<String>,
    /// The flow step it measures (set once the pack's flows are known).
    pub(crate) step: Option<MeasuredStep>,
    /// The node measured.
    pub(crate) target: Option<Selector>,
    /// The first node of a pair.
    pub(crate) from: Option<Selector>,
    /// The second node of a pair.
    pub(crate) to: Option<Selector>,
    /// The direction of a gap.
    pub(crate) axis: Axis,
    /// The edge of an alignment.
    pub(crate) edge: Edge,
    /// The side of a size.
    pub(crate) side: Side,
    /// A hypium suite (`describe` name).
    pub(crate) suite: Option<String>,
    /// One case of it.
    pub(crate) case: Option<String>,
    /// The cases the run must report.
    pub(crate) expect: Vec<String>,
    /// The app's trace point a `perf.span`, `perf.section` or `perf.counter` reads.
    pub(crate) point: Option<Point>,
    /// The steps (0-based, first and last) of its flow traced as one window (set once the
    /// pack's flows are known).
    pub(crate) range: Option<(usize, usize)>,
}

impl ProbeArgs {
    /// The typed form of a probe's arguments; a word or selector that is not one is the same
    /// `BadValue` the catalog check reports.
    pub(super) fn of(probe: &'static str, doc: &ProbeDoc) -> Result<ProbeArgs, ProbeArgError> {
        let point = point(probe, doc)?;
        let selector = |arg: &'static str, value: &Option<String>| {
            value
                .as_deref()
                // A span's `from` and `to` are markers' names, not nodes.
                .filter(|_| point.is_none())
                .map(|text| Selector::parse(text).map_err(|e| bad(probe, arg, text, e.to_string())))
                .transpose()
        };
        Ok(ProbeArgs {
            runs: doc.runs,
            aggregate: word(probe, "aggregate", &doc.aggregate, Aggregate::parse)?
                .unwrap_or(Aggregate::Median),
            metric: if probe == "perf.frames" {
                word(probe, "metric", &doc.metric, FrameMetric::parse)?
            } else {
                None
            }
            .unwrap_or(FrameMetric::Jank),
            response: if probe == "perf.response" {
                word(probe, "metric", &doc.metric, ResponseMetric::parse)?
            } else {
                None
            }
            .unwrap_or(ResponseMetric::Response),
            cpu: if probe.starts_with("perf.cpu") {
                word(probe, "metric", &doc.metric, CpuShare::parse)?
            } else {
                None
            }
            .unwrap_or(CpuShare::AllCores),
            via: word(probe, "via", &doc.via, FramesVia::parse)?.unwrap_or(FramesVia::Hitrace),
            flow: doc.flow.clone(),
            step: None,
            target: selector("target", &doc.target)?,
            from: selector("from", &doc.from)?,
            to: selector("to", &doc.to)?,
            axis: word(probe, "axis", &doc.axis, Axis::parse)?.unwrap_or(Axis::Vertical),
            edge: word(probe, "edge", &doc.edge, Edge::parse)?.unwrap_or(Edge::Left),
            side: word(probe, "side", &doc.side, Side::parse)?.unwrap_or(Side::Width),
            suite: doc.suite.clone(),
            case: doc.case.clone(),
            expect: doc.expect.clone().unwrap_or_default(),
            point,
            range: None,
        })
    }
}

/// The trace point a `perf.span`, `perf.section` or `perf.counter` reads (none for others).
fn point(probe: &'static str, doc: &ProbeDoc) -> Result<Option<Point>, ProbeArgError> {
    let name = |arg: &'static str, value: &Option<String>| -> Result<TraceName, ProbeArgError> {
        let text = value
            .as_deref()
            .ok_or(ProbeArgError::MissingArg { probe, arg })?;
        TraceName::parse(text).map_err(|why| bad(probe, arg, text, why))
    };
    let of = |default: Of| {
        Ok::<_, ProbeArgError>(word(probe, "of", &doc.of, Of::parse)?.unwrap_or(default))
    };
    if probe == "perf.span"
        && let Some(of) = &doc.of
        && doc.pick.as_deref() != Some("each")
    {
        return Err(bad(
            probe,
            "of",
            of,
            "`of` with `pick: each` only".to_owned(),
        ));
    }
    if probe == "perf.section"
        && let Some(unit) = &doc.unit
        && doc.value.as_deref().is_none_or(|v| v == "duration")
        && doc.of.as_deref() != Some("count")
    {
        return Err(bad(
            probe,
            "unit",
            unit,
            "a section's length is in ms: `unit` applies to `value: arg:KEY`".to_owned(),
        ));
    }
    Ok(Some(match probe {
        "perf.span" => Point::Span {
            from: name("from", &doc.from)?,
            to: name("to", &doc.to)?,
            pick: word(probe, "pick", &doc.pick, Pick::parse)?.unwrap_or(Pick::First),
            of: of(Of::Max)?,
        },
        "perf.section" => Point::Section {
            name: name("name", &doc.name)?,
            of: of(Of::First)?,
            value: match doc.value.as_deref() {
                Some(text) => section_value(text).ok_or_else(|| {
                    bad(probe, "value", text, "`duration` or `arg:KEY`".to_owned())
                })?,
                None => SectionValue::Duration,
            },
        },
        "perf.counter" => Point::Counter {
            name: name("name", &doc.name)?,
            of: of(Of::Last)?,
        },
        _ => return Ok(None),
    }))
}

fn bad(probe: &'static str, arg: &'static str, value: &str, allowed: String) -> ProbeArgError {
    ProbeArgError::BadValue {
        probe,
        arg,
        value: value.to_owned(),
        allowed,
    }
}

/// One word argument, typed; a word of another vocabulary is refused.
fn word<T: Copy>(
    probe: &'static str,
    arg: &'static str,
    value: &Option<String>,
    parse: fn(&str) -> Option<T>,
) -> Result<Option<T>, ProbeArgError> {
    value
        .as_deref()
        .map(|text| parse(text).ok_or_else(|| bad(probe, arg, text, "a known word".to_owned())))
        .transpose()
}
