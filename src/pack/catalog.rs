//! The probe catalog (DESIGN §8): every probe id a pack may name, the arguments it takes and
//! the unit of the number it produces.

use crate::assertion::{Assertion, Decimal, Expectation, common_scale};

use super::points::{COUNTER_OF, Pick, SECTION_OF, SPAN_OF, TraceName, section_value};
use super::probe::{Aggregate, Axis, Edge, FrameMetric, FramesVia, ProbeArgError, ProbeArgs};
use super::probe::{CpuShare, ResponseMetric, Side};
use super::schema::ProbeDoc;
use super::selector::Selector;

/// How an argument's value is checked.
#[derive(Clone, Copy, Debug)]
pub(super) enum ArgKind {
    /// A layout selector.
    Selector,
    /// One of a fixed list of words.
    Word(&'static [&'static str]),
    /// Any value of the argument's type (runs, tolerance).
    Free,
    /// Names that reach a device command: letters, digits and `_` (a list: each of them).
    Identifier,
    /// A trace marker's name, or a `/regex/`.
    TraceName,
    /// A section's value: `duration` or `arg:KEY`.
    SectionValue,
    /// A unit dwpipe knows, or `count`.
    Unit,
}

/// One argument a probe takes.
#[derive(Clone, Copy, Debug)]
pub(super) struct Arg {
    pub(super) name: &'static str,
    pub(super) required: bool,
    pub(super) kind: ArgKind,
}

/// A probe in the catalog.
#[derive(Debug)]
pub struct ProbeKind {
    /// Probe id, as written in a pack.
    pub(crate) id: &'static str,
    /// How the probe measures, in words (for `spec.md` and the Goal brief).
    pub(crate) method: &'static str,
    pub(super) args: &'static [Arg],
    /// Unit produced, per `metric` value when the probe has several (`None` key: default).
    pub(super) units: &'static [(Option<&'static str>, Option<&'static str>)],
}

const fn arg(name: &'static str, required: bool, kind: ArgKind) -> Arg {
    Arg {
        name,
        required,
        kind,
    }
}

const RUNS: Arg = arg("runs", false, ArgKind::Free);
const AGGREGATE: Arg = arg("aggregate", false, ArgKind::Word(Aggregate::WORDS));
const TOLERANCE: Arg = arg("tolerance", false, ArgKind::Free);
/// The flow a probe measures after; whether it names one of the pack's flows is checked
/// with the pack.
const FLOW: Arg = arg("flow", false, ArgKind::Free);

/// Where a trace point probe is traced: a flow's step or steps (the cold start without them).
const STEP: Arg = arg("step", false, ArgKind::Free);
const STEPS: Arg = arg("steps", false, ArgKind::Free);
/// The trace point probes' units by `of`: a count is bare, a duration in ms.
const POINT_UNITS: &[(Option<&str>, Option<&str>)] = &[(Some("count"), None), (None, Some("ms"))];
/// A section's: its argument's values are in what its `unit:` declares.
const SECTION_UNITS: &[(Option<&str>, Option<&str>)] = &[
    (Some("count"), None),
    (Some("arg:KEY"), Some("its `unit:`, bare without one")),
    (None, Some("ms")),
];

/// Every probe dwpipe knows.
pub const CATALOG: &[ProbeKind] = &[
    ProbeKind {
        id: "perf.cold-start",
        method: "hitrace around `aa start`: launch start to first frame presented",
        args: &[RUNS, AGGREGATE, TOLERANCE],
        units: &[(None, Some("ms"))],
    },
    ProbeKind {
        id: "perf.frames",
        method: "render_service present-fence intervals during a scripted scroll",
        args: &[
            FLOW,
            arg("metric", true, ArgKind::Word(FrameMetric::WORDS)),
            arg("via", false, ArgKind::Word(FramesVia::WORDS)),
            RUNS,
            AGGREGATE,
            TOLERANCE,
        ],
        units: &[
            (Some("fps"), Some("fps")),
            (Some("p50"), Some("ms")),
            (Some("p95"), Some("ms")),
            (Some("max"), Some("ms")),
            (Some("jank"), Some("ms/s")),
        ],
    },
    ProbeKind {
        id: "perf.response",
        method: "hitrace around one flow step: its input's dispatch to the transition it caused (response) or to the last frame before the screen stood still (complete, trace-based)",
        args: &[
            arg("flow", true, ArgKind::Free),
            arg("step", true, ArgKind::Free),
            arg("metric", false, ArgKind::Word(ResponseMetric::WORDS)),
            RUNS,
            AGGREGATE,
            TOLERANCE,
        ],
        units: &[(None, Some("ms"))],
    },
    ProbeKind {
        id: "perf.span",
        method: "hitrace of the app's own trace points (the cold start, or a flow's step or steps): the time from one marker to another",
        args: &[
            FLOW,
            STEP,
            STEPS,
            arg("from", true, ArgKind::TraceName),
            arg("to", true, ArgKind::TraceName),
            arg("pick", false, ArgKind::Word(Pick::WORDS)),
            arg("of", false, ArgKind::Word(SPAN_OF)),
            RUNS,
            AGGREGATE,
            TOLERANCE,
        ],
        units: POINT_UNITS,
    },
    ProbeKind {
        id: "perf.section",
        method: "hitrace of the app's own trace points (the cold start, or a flow's step or steps): a named section (B/E on a thread, S/F by task id)",
        args: &[
            FLOW,
            STEP,
            STEPS,
            arg("name", true, ArgKind::TraceName),
            arg("of", false, ArgKind::Word(SECTION_OF)),
            arg("value", false, ArgKind::SectionValue),
            arg("unit", false, ArgKind::Unit),
            RUNS,
            AGGREGATE,
            TOLERANCE,
        ],
        units: SECTION_UNITS,
    },
    ProbeKind {
        id: "perf.counter",
        method: "hitrace of the app's own trace points (the cold start, or a flow's step or steps): a counter's values (C)",
        args: &[
            FLOW,
            STEP,
            STEPS,
            arg("name", true, ArgKind::TraceName),
            arg("of", false, ArgKind::Word(COUNTER_OF)),
            arg("unit", false, ArgKind::Unit),
            RUNS,
            AGGREGATE,
            TOLERANCE,
        ],
        units: &[(None, Some("its `unit:`, bare without one"))],
    },
    ProbeKind {
        id: "perf.memory",
        method: "`hidumper --mem <pid>`: the Total PSS row",
        args: &[FLOW, RUNS, AGGREGATE, TOLERANCE],
        units: &[(None, Some("KB"))],
    },
    ProbeKind {
        id: "perf.cpu",
        method: "the app process's CPU time over a 2 s window once its window shows, from two reads of /proc: a share of every core (`metric: one-core`: of one core)",
        args: &[
            arg("metric", false, ArgKind::Word(CpuShare::WORDS)),
            RUNS,
            AGGREGATE,
            TOLERANCE,
        ],
        units: &[(None, Some("%"))],
    },
    ProbeKind {
        id: "perf.cpu-background",
        method: "the app process's CPU time over a 2 s window 3 min after Home sent it to the background (AppAnalyzer's rule 0420), from two reads of /proc: a share of every core (`metric: one-core`: of one core)",
        args: &[
            arg("metric", false, ArgKind::Word(CpuShare::WORDS)),
            RUNS,
            AGGREGATE,
            TOLERANCE,
        ],
        units: &[(None, Some("%"))],
    },
    ProbeKind {
        id: "perf.gpu",
        method: "SmartPerf `SP_daemon -N 5 -PKG <bundle> -g` on the app's first screen: the mean `gpuLoad` of its samples (the whole system's use of the GPU)",
        args: &[RUNS, AGGREGATE, TOLERANCE],
        units: &[(None, Some("%"))],
    },
    ProbeKind {
        id: "perf.gpu-frequency",
        method: "SmartPerf `SP_daemon -N 5 -PKG <bundle> -g` on the app's first screen: the mean `gpuFrequency` of its samples, in MHz",
        args: &[RUNS, AGGREGATE, TOLERANCE],
        units: &[(None, Some("MHz"))],
    },
    ProbeKind {
        id: "perf.power",
        method: "SmartPerf `SP_daemon -N 5 -PKG <bundle> -p` on the app's first screen: the mean power drawn from the battery (−current × voltage, in OpenHarmony's mA and µV, held against BatteryService's `nowCurrent`), in mW; a phone charging, or plugged in without `charging: off` required, or values no phone has in those units, is no reading",
        args: &[RUNS, AGGREGATE, TOLERANCE],
        units: &[(None, Some("mW"))],
    },
    ProbeKind {
        id: "perf.temperature",
        method: "after 30 s on the app's first screen: the hottest thermal zone, in °C, read live from sysfs where the shell may read it, else from ThermalService's report (its driver's last poll, at most 30 s old); the reading names its source",
        args: &[RUNS, AGGREGATE, TOLERANCE],
        units: &[(None, Some("°C"))],
    },
    ProbeKind {
        id: "layout.gap",
        method: "`uitest dumpLayout` bounds: gap between two nodes in vp",
        args: &[
            FLOW,
            arg("from", true, ArgKind::Selector),
            arg("to", true, ArgKind::Selector),
            arg("axis", false, ArgKind::Word(Axis::WORDS)),
            RUNS,
            AGGREGATE,
            TOLERANCE,
        ],
        units: &[(None, Some("vp"))],
    },
    ProbeKind {
        id: "layout.size",
        method: "`uitest dumpLayout` bounds: width or height of a node in vp",
        args: &[
            FLOW,
            arg("target", true, ArgKind::Selector),
            arg("side", true, ArgKind::Word(Side::WORDS)),
            RUNS,
            AGGREGATE,
            TOLERANCE,
        ],
        units: &[(None, Some("vp"))],
    },
    ProbeKind {
        id: "layout.align",
        method: "`uitest dumpLayout` bounds: offset between two nodes' left or top edges in vp",
        args: &[
            FLOW,
            arg("from", true, ArgKind::Selector),
            arg("to", true, ArgKind::Selector),
            arg("edge", true, ArgKind::Word(Edge::WORDS)),
            RUNS,
            AGGREGATE,
            TOLERANCE,
        ],
        units: &[(None, Some("vp"))],
    },
    ProbeKind {
        id: "layout.text",
        method: "`uitest dumpLayout`: the text of a node (its own, or what a screen reader reads in it)",
        args: &[FLOW, arg("target", true, ArgKind::Selector), RUNS],
        units: &[(None, None)],
    },
    ProbeKind {
        id: "a11y.touch-target",
        method: "`uitest dumpLayout`: smallest side of the clickable nodes in the app window",
        args: &[
            FLOW,
            arg("target", false, ArgKind::Selector),
            RUNS,
            AGGREGATE,
        ],
        units: &[(None, Some("vp"))],
    },
    ProbeKind {
        id: "a11y.contrast",
        method: "screenshot + node bounds: WCAG 2 contrast of foreground against background",
        args: &[
            FLOW,
            arg("target", true, ArgKind::Selector),
            RUNS,
            AGGREGATE,
        ],
        units: &[(None, Some("ratio"))],
    },
    ProbeKind {
        id: "a11y.labels",
        method: "`uitest dumpLayout`: clickable nodes with neither text nor description",
        args: &[FLOW, RUNS, AGGREGATE],
        units: &[(None, None)],
    },
    ProbeKind {
        id: "stability.crashes",
        method: "the platform's fault records around every visit (`hidumper -e --list` from API 22, `hidumper -e` before): the app's crashes and freezes that began during the audit",
        args: &[],
        units: &[(None, None)],
    },
    ProbeKind {
        id: "test.hypium",
        method: "`aa test … OpenHarmonyTestRunner`: OHOS_REPORT results",
        args: &[
            arg("suite", false, ArgKind::Identifier),
            arg("case", false, ArgKind::Identifier),
            arg("expect", false, ArgKind::Identifier),
        ],
        units: &[(None, None)],
    },
];

/// A probe from the catalog, with its validated arguments and the unit it produces for them.
#[derive(Debug)]
pub struct MeasuredBy {
    /// The catalog entry.
    pub(crate) kind: &'static ProbeKind,
    /// The unit it produces (`None`: a count or a word).
    pub(crate) unit: Option<&'static str>,
    /// Its arguments.
    pub args: ProbeArgs,
}

impl ProbeKind {
    /// The probe's id, as a pack names it.
    pub fn id(&self) -> &'static str {
        self.id
    }

    /// The unit the probe produces for this metric (`None`: a bare count or a word).
    fn unit(&self, metric: Option<&str>) -> Option<&'static str> {
        self.units
            .iter()
            .find(|(m, _)| *m == metric || m.is_none())
            .and_then(|(_, unit)| *unit)
    }
}

impl MeasuredBy {
    /// How it measures, in words, with the flow it runs after (`…, after flow `open-note`,
    /// step 2`).
    pub(crate) fn method(&self) -> String {
        if let Some(point) = &self.args.point {
            let at = match (&self.args.flow, self.args.step, self.args.range) {
                (Some(flow), Some(step), _) => {
                    format!("in the trace of flow `{flow}`, step {}", step.index + 1)
                }
                (Some(flow), None, Some((first, last))) => format!(
                    "in one trace of flow `{flow}` from step {} to step {}",
                    first + 1,
                    last + 1
                ),
                _ => "in the cold start's trace".to_owned(),
            };
            return format!(
                "hitrace of the app's own trace points: {}, {at}",
                point.describe()
            );
        }
        match (&self.args.flow, self.args.step) {
            (Some(flow), Some(step)) => format!(
                "{}, after flow `{flow}`, step {}",
                self.kind.method,
                step.index + 1
            ),
            (Some(flow), None) => format!("{}, after flow `{flow}`", self.kind.method),
            _ => self.kind.method.to_owned(),
        }
    }

    /// Why `assertion` cannot hold what this probe produces: its unit does not convert to the
    /// probe's, it gives a unit to a bare count, or it bounds a pass/fail result by a number.
    pub(crate) fn mismatch(&self, assertion: &Assertion) -> Option<String> {
        let numeric = matches!(
            assertion.expectation,
            Expectation::Range { .. } | Expectation::Gte(_) | Expectation::Lte(_)
        );
        if self.kind.id == "test.hypium" {
            return numeric.then(|| format!("`{}` produces pass/fail, not a number", self.kind.id));
        }
        if self.kind.id == "layout.text" {
            return (numeric || assertion.unit.is_some())
                .then(|| format!("`{}` produces text, not a number", self.kind.id));
        }
        let probe_unit = self.unit.map(crate::assertion::Unit::parse);
        match (probe_unit.as_ref(), assertion.unit.as_ref()) {
            (Some(p), Some(d)) => common_scale(
                Decimal::new(1, 0),
                Some(p),
                Some(d),
                Some(Decimal::new(1, 0)),
            )
            .err()
            .map(|_| {
                format!(
                    "`{}` measures in {p}, the assertion is in {d}",
                    self.kind.id
                )
            }),
            (None, Some(d)) => Some(format!(
                "`{}` produces a bare count, the assertion is in {d}",
                self.kind.id
            )),
            _ => None,
        }
    }
}

/// Checks a probe reference against the catalog; what it measures and with which arguments.
pub fn check_probe(probe: &ProbeDoc) -> Result<MeasuredBy, ProbeArgError> {
    let kind = CATALOG
        .iter()
        .find(|k| k.id == probe.id)
        .ok_or_else(|| ProbeArgError::UnknownProbe(probe.id.clone()))?;
    let given: [(&'static str, Option<String>); 22] = [
        ("runs", probe.runs.map(|r| r.to_string())),
        ("aggregate", probe.aggregate.clone()),
        (
            "tolerance",
            probe.tolerance.as_ref().map(ToString::to_string),
        ),
        ("metric", probe.metric.clone()),
        ("target", probe.target.clone()),
        ("from", probe.from.clone()),
        ("to", probe.to.clone()),
        ("axis", probe.axis.clone()),
        ("edge", probe.edge.clone()),
        ("side", probe.side.clone()),
        ("suite", probe.suite.clone()),
        ("case", probe.case.clone()),
        ("expect", probe.expect.as_ref().map(|cases| cases.join(","))),
        ("flow", probe.flow.clone()),
        ("step", probe.step.as_ref().map(ToString::to_string)),
        ("via", probe.via.clone()),
        (
            "steps",
            probe.steps.as_ref().map(|steps| {
                steps
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            }),
        ),
        ("name", probe.name.clone()),
        ("pick", probe.pick.clone()),
        ("of", probe.of.clone()),
        ("value", probe.value.clone()),
        ("unit", probe.unit.clone()),
    ];
    for (name, value) in &given {
        let Some(value) = value else { continue };
        let Some(arg) = kind.args.iter().find(|a| a.name == *name) else {
            return Err(ProbeArgError::UnexpectedArg {
                probe: kind.id,
                arg: name,
                takes: kind
                    .args
                    .iter()
                    .map(|a| a.name)
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        };
        let bad = |allowed: String| ProbeArgError::BadValue {
            probe: kind.id,
            arg: arg.name,
            value: value.clone(),
            allowed,
        };
        match arg.kind {
            ArgKind::Selector => {
                Selector::parse(value).map_err(|e| bad(e.to_string()))?;
            }
            ArgKind::Word(words) if !words.contains(&value.as_str()) => {
                return Err(bad(format!("one of {}", words.join(", "))));
            }
            ArgKind::Identifier => {
                for name in value.split(',') {
                    crate::shell::ShellValue::identifier(arg.name, name).map_err(|_| {
                        bad("letters, digits and `_`, starting with a letter".to_owned())
                    })?;
                }
            }
            ArgKind::TraceName => {
                TraceName::parse(value).map_err(bad)?;
            }
            ArgKind::SectionValue => {
                section_value(value).ok_or_else(|| {
                    bad("`duration`, or `arg:KEY` (letters, digits, `_`, `-`, `.`)".to_owned())
                })?;
            }
            ArgKind::Unit => {
                point_unit(value).ok_or_else(|| {
                    bad(format!(
                        "`count`, or a unit dwpipe knows: {}",
                        crate::assertion::known_spellings()
                    ))
                })?;
            }
            ArgKind::Word(_) | ArgKind::Free => {}
        }
    }
    if probe.runs == Some(0) {
        return Err(ProbeArgError::BadValue {
            probe: kind.id,
            arg: "runs",
            value: "0".to_owned(),
            allowed: "at least 1".to_owned(),
        });
    }
    if let Some(missing) = kind.args.iter().find(|a| {
        a.required
            && given
                .iter()
                .any(|(name, value)| *name == a.name && value.is_none())
    }) {
        return Err(ProbeArgError::MissingArg {
            probe: kind.id,
            arg: missing.name,
        });
    }
    if probe.case.is_some() && probe.suite.is_none() {
        return Err(ProbeArgError::MissingArg {
            probe: kind.id,
            arg: "suite",
        });
    }
    let args = ProbeArgs::of(kind.id, probe)?;
    let unit = match &args.point {
        // A count is bare, whatever the values were in; values are in what `unit:` declares
        // (bare without it); durations are in ms.
        Some(_) if probe.of.as_deref() == Some("count") => None,
        Some(_) => match probe.unit.as_deref() {
            Some(declared) => point_unit(declared).flatten(),
            None if point_is_timed(args.point.as_ref()) => Some("ms"),
            None => None,
        },
        None => kind.unit(probe.metric.as_deref()),
    };
    Ok(MeasuredBy { kind, unit, args })
}

/// Whether a trace point reads a duration (a span, a section's own length).
fn point_is_timed(point: Option<&crate::pack::Point>) -> bool {
    use crate::pack::{Point, SectionValue};
    matches!(
        point,
        Some(
            Point::Span { .. }
                | Point::Section {
                    value: SectionValue::Duration,
                    ..
                }
        )
    )
}

/// A trace point's declared unit: a known unit's symbol, or `count` (bare: `Some(None)`).
fn point_unit(text: &str) -> Option<Option<&'static str>> {
    if text == "count" {
        return Some(None);
    }
    crate::assertion::Unit::parse_known(text).map(|u| u.symbol())
}

#[cfg(test)]
mod tests;
