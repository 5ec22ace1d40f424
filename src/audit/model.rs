//! What an audit produces and reads back: every run's reading with its evidence, one
//! measurement per criterion, the gated outcome, and the events its reporters follow.

use super::state::{DeviceStates, Required};
use serde::{Deserialize, Serialize};

use crate::device::{DeviceInfo, Source};
use crate::diagnostic::Diagnostic;
use crate::gate::{CheckInput, GateOutcome};
use crate::pack::Aggregate;
use crate::probe::Extractor;

use super::extract::Value;
use super::figures::Figures;

/// A file of evidence and its hash.
#[derive(schemars::JsonSchema, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvidenceFile {
    /// Path relative to the audit's folder.
    pub path: String,
    /// SHA-256 (hex).
    pub sha256: String,
}

/// One run's reading of one criterion.
#[derive(schemars::JsonSchema, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunReading {
    /// 1-based run.
    pub run: u32,
    /// The reading, or `null` when the probe found nothing.
    pub value: Option<Value>,
    /// What it was read from, or why nothing was.
    pub detail: String,
    /// The session's evidence files.
    pub files: Vec<EvidenceFile>,
}

/// dwpipe's own measurement of one criterion.
#[derive(schemars::JsonSchema, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct MeasurementRecord {
    /// The criterion.
    pub criterion_id: String,
    /// Probe id.
    pub probe: String,
    /// Extractor used.
    pub extractor: Extractor,
    /// Which behaviour of the extractor read the runs (see `Extractor::revision`); audits
    /// of the first format were all read by revision 1.
    #[serde(default = "first_revision")]
    pub extractor_revision: u32,
    /// The dwpipe whose extractor read the runs (absent in audits of the first format).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extracted_by: Option<String>,
    /// How runs were aggregated.
    pub aggregate: Aggregate,
    /// The aggregate value.
    pub value: Option<Value>,
    /// The probe's unit.
    pub unit: Option<String>,
    /// Value and unit, as the check's `actual`.
    pub actual: Option<String>,
    /// How far another reading may differ and still be this one (the probe's unit).
    pub resolution: f64,
    /// Every run.
    pub runs: Vec<RunReading>,
}

fn first_revision() -> u32 {
    1
}

/// What an audit was measured with besides the lock, kept as evidence beside the readings
/// (under `evidence/<device>/`), so `verify-evidence` rebuilds the report from files alone.
#[derive(schemars::JsonSchema, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Inputs {
    /// `device.yaml`: who the device said it was.
    pub device: EvidenceFile,
    /// The playbooks the audit ran, one file each.
    pub playbooks: Vec<EvidenceFile>,
    /// An outside auditor's report held against the measurements.
    pub auditor_report: Option<EvidenceFile>,
    /// `--runs`, when it overrode the pack and the playbooks (a recorded fact).
    pub runs: Option<u32>,
    /// `--strict`: a source that does not hold up is an error, not a warning (a recorded fact).
    pub strict: bool,
    /// The HAPs a delivery installed before this audit (recorded facts: the HAPs are not kept).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub installed: Vec<InstalledHap>,
    /// A copy of the lock the audit was held against (since format 4): the folder carries what
    /// verifying and importing it need, wherever it travels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lock: Option<EvidenceFile>,
    /// Where the readings came from, kept when the audit ended (since format 4): the report's
    /// `source` is rebuilt from it, so a relabelled source is a difference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<EvidenceFile>,
    /// What the device said of its state before its first visit and after its last: the
    /// report's `device-state` is read from these.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_before: Option<EvidenceFile>,
    /// What it said after its last visit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_after: Option<EvidenceFile>,
    /// When the audit held its device, and its run's name (`times.json`, kept when it
    /// ended; optional): the report's `started`, `ended`, `device-time`, `lease` and
    /// `run-id` are rebuilt from it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub times: Option<EvidenceFile>,
    /// The preconditions asked for besides the pack's (`dwpipe.yaml`, `--require`): recorded
    /// facts, which the kept state is held to with the pack's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub require: Vec<Required>,
}

/// A HAP installed on the device before it was audited.
#[derive(schemars::JsonSchema, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct InstalledHap {
    /// Its path in the workspace, as the verification command declared it.
    pub path: String,
    /// SHA-256 of the file installed.
    pub sha256: String,
}

impl Inputs {
    /// Every file kept.
    pub(crate) fn files(&self) -> impl Iterator<Item = &EvidenceFile> {
        std::iter::once(&self.device)
            .chain(&self.playbooks)
            .chain(&self.auditor_report)
            .chain(&self.lock)
            .chain(&self.source)
            .chain(&self.state_before)
            .chain(&self.state_after)
            .chain(&self.times)
    }
}

/// When an audit held its device and for how long, and the name of its run: kept among its
/// evidence (`times.json`) when it ends, so that the report's times are rebuilt from a file
/// its hash binds, and a copy under other times is still the run it was.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct Times {
    /// The run's own name: made when it began, never made again.
    pub(crate) run_id: String,
    /// Before the device's identity was read (UTC, ISO 8601).
    pub(crate) started: String,
    /// After the last run was read.
    pub(crate) ended: String,
    /// Each visit's time on the device.
    #[serde(rename = "device-time")]
    pub(crate) device: DeviceTime,
    /// The device's lease (a live device's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) lease: Option<crate::device::lease::LeaseRecord>,
}

/// How long an audit held its device: every visit's time on the device's clock (each hdc
/// call's duration, pulls and the playbooks' sleeps alike; a replay's clock runs on the
/// recorded durations), in the order made.
#[derive(schemars::JsonSchema, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct DeviceTime {
    /// All the visits together, in seconds.
    pub seconds: f64,
    /// Each visit.
    pub visits: Vec<VisitTime>,
}

/// One visit's hold on the device.
#[derive(schemars::JsonSchema, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct VisitTime {
    /// 1-based run.
    pub run: u32,
    /// The session, or `flow NAME`.
    pub visit: String,
    /// Seconds, to the millisecond.
    pub seconds: f64,
}

impl DeviceTime {
    /// Adds a visit that held the device `held`.
    pub(crate) fn add(&mut self, run: u32, visit: String, held: std::time::Duration) {
        let millis = |seconds: f64| (seconds * 1000.0).round() / 1000.0;
        let seconds = millis(held.as_secs_f64());
        self.visits.push(VisitTime {
            run,
            visit,
            seconds,
        });
        self.seconds = millis(self.seconds + seconds);
    }

    /// `12.3 s: cold-start 3× 6.1 s · flow open-note …`: the total, then each session's or
    /// flow's visits and their seconds over every run, in the order first made.
    pub(crate) fn summary(&self) -> String {
        let parts: Vec<String> = self
            .by_visit()
            .into_iter()
            .map(|(visit, runs, seconds)| format!("{visit} {runs}× {seconds:.1} s"))
            .collect();
        format!("{:.1} s: {}", self.seconds, parts.join(" · "))
    }

    /// The seconds of the visits whose evidence `runs` hold (a session's folder is its visit's
    /// name, `flow NAME` kept as `flow-NAME`): the device time a criterion's readings took,
    /// shared with every criterion read from the same visits.
    pub(crate) fn seconds_of<'a>(&self, runs: impl Iterator<Item = &'a RunReading>) -> f64 {
        let mut visits: Vec<(u32, &str)> = Vec::new();
        for path in runs.flat_map(|r| &r.files).map(|f| f.path.as_str()) {
            let folders: Vec<&str> = path.split('/').collect();
            let folders = &folders[..folders.len().saturating_sub(1)];
            let visit = folders
                .windows(2)
                .rev()
                .find_map(|w| Some((w[0].parse::<u32>().ok()?, w[1])));
            if let Some(visit) = visit.filter(|v| !visits.contains(v)) {
                visits.push(visit);
            }
        }
        let seconds: f64 = self
            .visits
            .iter()
            .filter(|v| {
                visits
                    .iter()
                    .any(|(run, folder)| *run == v.run && v.visit.replace(' ', "-") == *folder)
            })
            .map(|v| v.seconds)
            .sum();
        (seconds * 1000.0).round() / 1000.0
    }

    fn by_visit(&self) -> Vec<(&str, u32, f64)> {
        let mut totals: Vec<(&str, u32, f64)> = Vec::new();
        for v in &self.visits {
            match totals.iter_mut().find(|(name, _, _)| *name == v.visit) {
                Some((_, runs, seconds)) => {
                    *runs += 1;
                    *seconds += v.seconds;
                }
                None => totals.push((&v.visit, 1, v.seconds)),
            }
        }
        totals
    }
}

/// The workspace whose build an audit measured, when a delivery knows it.
#[derive(schemars::JsonSchema, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Workspace {
    /// Its fingerprint after the agent, as the delivery's ledger has it (SHA-256 over the
    /// workspace's files).
    pub fingerprint: String,
    /// HEAD's commit, when the workspace is a git checkout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
}

/// What an audit gathered on a device, before the gate.
#[derive(Debug)]
pub struct AuditRun {
    /// When it held the device (absent when rebuilt from its folder).
    pub(crate) times: Option<Times>,
    /// Who the device is.
    pub(crate) device: DeviceInfo,
    /// Where the readings came from.
    pub(crate) source: Source,
    /// What it was measured with, as evidence (absent when rebuilt from a first-format audit).
    pub(crate) inputs: Option<Inputs>,
    /// An outside auditor's checks, for what no probe measures.
    pub(crate) auditor: Vec<CheckInput>,
    /// One per criterion with a probe.
    pub(crate) measurements: Vec<MeasurementRecord>,
    /// `W_MEASUREMENT_UNSTABLE` and friends.
    pub(crate) warnings: Vec<Diagnostic>,
    /// What the report draws, decoded from the evidence once.
    pub(crate) figures: Figures,
    /// The device's state before and after its runs, when the audit read it.
    pub(crate) states: Option<DeviceStates>,
    /// When and why the device's lease was lost while the audit held it (a recorded fact,
    /// as its lease record says): another job may have driven the device meanwhile.
    pub(crate) lease_lost: Option<String>,
}

/// A gated audit: the measurements and the verdicts the gate recomputed from them.
#[derive(Debug)]
pub struct Audited {
    /// When it held the device (absent when rebuilt from its folder).
    pub(crate) times: Option<Times>,
    /// Who the device is.
    pub device: DeviceInfo,
    /// Where the readings came from.
    pub(crate) source: Source,
    /// What it was measured with, as evidence.
    pub(crate) inputs: Option<Inputs>,
    /// One per criterion with a probe.
    pub measurements: Vec<MeasurementRecord>,
    /// The gate's verdicts and diagnostics (the audit's warnings among them).
    pub(crate) gate: GateOutcome,
    /// What the report draws.
    pub figures: Figures,
    /// The device's state before and after its runs.
    pub(crate) states: Option<DeviceStates>,
}

/// What the audit is doing, for whoever shows progress (the engine never prints).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AuditEvent {
    /// Measuring starts: this many session visits in all.
    Started {
        /// The device.
        serial: String,
        /// Session visits over every run.
        visits: u64,
    },
    /// A session begins on the device.
    Session {
        /// 1-based run.
        run: u32,
        /// Runs in all.
        runs: u32,
        /// The session's name.
        session: String,
    },
    /// A session's evidence is stored and read.
    SessionDone,
    /// The history has this report already: it was not recorded twice.
    AlreadyRecorded {
        /// The report that was not recorded again.
        report: std::path::PathBuf,
    },
}
