//! What an audit will do, decided before the device is touched: which criteria are measured,
//! by which session and extractor, how many runs, and the validated values every session's
//! commands are filled with.

use std::path::{Path, PathBuf};

use crate::gate::AuditorFile;
use crate::pack::{Aggregate, Criterion, Frozen, MeasuredBy, Pack, ProbeArgs};
use crate::playbook::{Playbooks, Values};
use crate::probe::Extractor;
use crate::shell::ShellValue;

use super::error::AuditError;
use super::model::InstalledHap;
use super::state::Required;

/// What an audit measures and how: everything but the device and where it reports.
pub struct AuditSpec<'a> {
    /// The pack.
    pub(crate) pack: &'a Pack,
    /// The playbooks.
    pub(crate) playbooks: &'a Playbooks,
    /// Runs per probe, overriding the pack and the playbooks.
    pub(crate) runs: Option<u32>,
    /// An outside auditor's report for what no probe measures.
    pub(crate) auditor: Option<&'a AuditorFile>,
    /// A source that does not hold up (a replay that left exchanges unserved) is an error.
    pub(crate) strict: bool,
    /// The HAPs installed before the audit, to record.
    pub(crate) installed: &'a [InstalledHap],
    /// The pack as frozen: the audit keeps a copy of its lock (and the spec beside it) among
    /// its evidence, so its folder is verified and imported wherever it travels.
    pub(crate) frozen: Option<&'a Frozen>,
    /// Preconditions besides the pack's (`dwpipe.yaml`, `--require`).
    pub(crate) require: Vec<Required>,
}

impl<'a> AuditSpec<'a> {
    /// The audit of `pack` by `playbooks`, with their own run counts and nothing else.
    pub fn new(pack: &'a Pack, playbooks: &'a Playbooks) -> AuditSpec<'a> {
        AuditSpec {
            pack,
            playbooks,
            runs: None,
            auditor: None,
            strict: false,
            installed: &[],
            frozen: None,
            require: Vec::new(),
        }
    }

    /// Every precondition: the pack's, then the others.
    pub(crate) fn required(&self) -> Vec<Required> {
        required(self.pack, &self.require)
    }
}

/// The pack's preconditions, then `others`.
pub(crate) fn required(pack: &Pack, others: &[Required]) -> Vec<Required> {
    pack.require
        .iter()
        .map(|c| Required::new(c, "the pack"))
        .chain(others.iter().cloned())
        .collect()
}

/// Whether `required` holds `charging: off` (whoever asked for it).
pub(crate) fn charging_off(required: &[Required]) -> bool {
    required.iter().any(|r| {
        crate::pack::Condition::parse(&r.condition).is_ok_and(|c| {
            c.reading == crate::pack::Reading::Charging
                && c.compare == crate::pack::Compare::Equal
                && c.bound < 0.5
        })
    })
}

/// The folder of a device's evidence inside an audit's folder.
pub(crate) fn evidence_root(out: &Path, serial: &str) -> PathBuf {
    out.join("evidence").join(serial.replace([':', '/'], "_"))
}

/// What one visit of the device does: a playbook session on the launch screen, or a flow
/// followed by the sessions of the criteria measured after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) enum Visit<'a> {
    /// A session on the launch screen.
    Session(&'a str),
    /// A flow, by name.
    Flow(&'a str),
}

impl Visit<'_> {
    /// The folder of the visit's evidence inside its run's folder (flow names are lower-case
    /// words, sessions never start with `flow-`).
    pub(super) fn folder(&self) -> String {
        match self {
            Visit::Session(name) => (*name).to_owned(),
            Visit::Flow(name) => format!("flow-{name}"),
        }
    }
}

impl std::fmt::Display for Visit<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Visit::Session(name) => f.write_str(name),
            Visit::Flow(name) => write!(f, "flow {name}"),
        }
    }
}

/// A criterion to measure.
pub(super) struct Planned<'a> {
    pub(super) criterion: &'a Criterion,
    pub(super) probe: &'a MeasuredBy,
    /// The playbook's session.
    pub(super) session: &'a str,
    /// The visit that gathers its evidence.
    pub(super) visit: Visit<'a>,
    pub(super) extractor: Extractor,
    pub(super) runs: u32,
    pub(super) tolerance: f64,
    pub(super) resolution: f64,
    /// The samples its session's SmartPerf step asks for (`-N`), when it has one.
    pub(super) samples: Option<u32>,
}

impl<'a> Planned<'a> {
    pub(super) fn args(&self) -> &ProbeArgs {
        &self.probe.args
    }

    pub(super) fn aggregate(&self) -> Aggregate {
        match self.extractor {
            // A crash in any run fails: the worst run stands.
            Extractor::Faults => Aggregate::Max,
            _ => self.probe.args.aggregate,
        }
    }

    /// The session whose steps run after this criterion's flow: none when the flow's own
    /// steps are the evidence (a step's response, a flow's frames).
    pub(super) fn after_flow(&self) -> Option<&'a str> {
        match self.extractor {
            Extractor::Response | Extractor::Frames => None,
            // A trace point after a flow is read from the flow's own trace.
            Extractor::TracePoint if self.probe.args.flow.is_some() => None,
            _ => Some(self.session),
        }
    }

    /// A layout or accessibility probe: the report draws its nodes over the screenshot.
    pub(super) fn is_on_screen(&self) -> bool {
        let id = self.probe.kind.id;
        (id.starts_with("layout.") || id.starts_with("a11y.")) && self.extractor != Extractor::Text
    }
}

/// The planned criteria a visit measures in its run.
pub(super) fn measured_in<'p, 'a>(
    planned: &'p [Planned<'a>],
    (run, visit): (u32, Visit<'_>),
) -> impl Iterator<Item = &'p Planned<'a>> {
    planned
        .iter()
        .filter(move |p| p.visit == visit && p.runs >= run)
}

/// The app's trace points the criteria a visit measures in its run ask about.
pub(super) fn points_of(
    planned: &[Planned<'_>],
    (run, visit): (u32, Visit<'_>),
) -> Vec<crate::pack::Point> {
    let mut points: Vec<crate::pack::Point> = Vec::new();
    for point in measured_in(planned, (run, visit)).filter_map(|p| p.args().point.as_ref()) {
        if !points.contains(point) {
            points.push(point.clone());
        }
    }
    points
}

/// Every criterion that has a probe with a playbook; `runs` overrides every probe's count.
pub(super) fn plan<'a>(
    pack: &'a Pack,
    playbooks: &'a Playbooks,
    runs: Option<u32>,
) -> Vec<Planned<'a>> {
    let mut planned = pack
        .criteria
        .iter()
        .filter_map(|criterion| {
            let probe = criterion.assertion.as_ref()?.probe.as_ref()?;
            let playbook = playbooks.probes.get(probe.kind.id)?;
            let flow = probe
                .args
                .flow
                .as_deref()
                .and_then(|name| pack.flows.get(name));
            Some(Planned {
                criterion,
                probe,
                session: &playbook.session,
                visit: match flow {
                    Some(flow) => Visit::Flow(&flow.name),
                    None => Visit::Session(&playbook.session),
                },
                extractor: playbook.extract,
                runs: runs.or(probe.args.runs).unwrap_or(playbook.runs).max(1),
                tolerance: playbook.tolerance,
                resolution: playbook.resolution,
                samples: playbooks
                    .sessions
                    .get(&playbook.session)
                    .and_then(|s| crate::playbook::smartperf_samples(&s.steps)),
            })
        })
        .collect::<Vec<_>>();
    // The stability criterion counts what every visit of a run showed: it is read in as many
    // runs as the criterion that takes most.
    let most = max_runs(&planned);
    for one in &mut planned {
        if one.extractor == Extractor::Faults {
            one.runs = most;
        }
    }
    planned
}

/// The most runs any planned criterion takes.
pub(super) fn max_runs(planned: &[Planned<'_>]) -> u32 {
    planned.iter().map(|p| p.runs).max().unwrap_or(0)
}

/// Whether the plan reads the fault records around every visit.
pub(super) fn reads_faults(planned: &[Planned<'_>]) -> bool {
    planned.iter().any(|p| p.extractor == Extractor::Faults)
}

/// The values every session starts from: the app's bundle, ability and module.
pub(super) fn base_values(pack: &Pack) -> Result<Values, AuditError> {
    let app = &pack.doc.app;
    let mut values = Values::default();
    values.set(
        "bundle",
        ShellValue::bundle(&app.bundle.value).map_err(AuditError::Unsafe)?,
    );
    if let Some(ability) = &app.ability {
        values.set(
            "ability",
            ShellValue::identifier("ability", &ability.value).map_err(AuditError::Unsafe)?,
        );
    }
    if let Some(module) = &app.module {
        values.set(
            "module",
            ShellValue::identifier("module", &module.value).map_err(AuditError::Unsafe)?,
        );
    }
    // The suites (and cases) the pack's hypium criteria name, run together; one criterion
    // without a suite runs them all.
    let hypium: Vec<&ProbeArgs> = pack
        .criteria
        .iter()
        .filter_map(|c| c.assertion.as_ref()?.probe.as_ref())
        .filter(|p| p.kind.id == "test.hypium")
        .map(|p| &p.args)
        .collect();
    let mut filters: Vec<(&str, Option<&str>)> = Vec::new();
    if hypium.iter().all(|a| a.suite.is_some()) {
        for args in &hypium {
            let filter = (
                args.suite.as_deref().unwrap_or_default(),
                args.case.as_deref(),
            );
            // A whole suite covers its cases.
            if !filters.contains(&filter) && !filters.contains(&(filter.0, None)) {
                filters.retain(|(suite, _)| filter.1.is_some() || *suite != filter.0);
                filters.push(filter);
            }
        }
    }
    values.set(
        "classes",
        ShellValue::hypium_classes(&filters).map_err(AuditError::Unsafe)?,
    );
    Ok(values)
}
