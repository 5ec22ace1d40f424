//! The probe catalog (docs/design.md §8): every probe id a pack may name, the arguments it takes and
//! the unit of the number it produces.

use super::points::{COUNTER_OF, Pick, SECTION_OF, SPAN_OF};
use super::probe::{Aggregate, Axis, Edge, FrameMetric, FramesVia};
use super::probe::{CpuShare, ResponseMetric, Side};

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

impl ProbeKind {
    /// The probe's id, as a pack names it.
    pub fn id(&self) -> &'static str {
        self.id
    }

    /// The unit the probe produces for this metric (`None`: a bare count or a word).
    pub(super) fn unit(&self, metric: Option<&str>) -> Option<&'static str> {
        self.units
            .iter()
            .find(|(m, _)| *m == metric || m.is_none())
            .and_then(|(_, unit)| *unit)
    }
}
