//! From session visits to measurements, one way whether the files were just gathered on the
//! device or are read back from the evidence folder by `verify-evidence`: the visits in their
//! order, one reading per criterion and visit, then the aggregate of the runs with a warning
//! when they spread beyond the playbook's tolerance.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::Path;

use crate::diagnostic::{Diagnostic, chain};

use super::aggregate::{actual, aggregate, spread};
use super::evidence::{Context, Files};
use super::extract::{Decoded, ExtractError, Reading, Value, extract};
use super::figures::Figures;
use super::keep::hash_files;
use super::model::{AuditError, MeasurementRecord, RunReading};
use super::plan::{Planned, Visit, measured_in};
use super::window::{Ceilings, Windows};
use crate::pack::ProbeArgs;
use crate::probe::Extractor;

/// One visit in one run.
pub(super) type RunVisit<'a> = (u32, Visit<'a>);

/// Every visit the planned criteria need in `runs` (all of them: `1..=`[`max_runs`]), in the
/// order an audit makes them: run by run, each session (and each flow) once per run, shared by
/// every probe it serves.
pub(super) fn visits<'a>(
    planned: &[Planned<'a>],
    runs: std::ops::RangeInclusive<u32>,
) -> Vec<RunVisit<'a>> {
    runs.flat_map(|run| {
        let sessions: BTreeSet<Visit<'a>> = planned
            .iter()
            .filter(|p| p.runs >= run)
            .map(|p| p.visit)
            .collect();
        sessions.into_iter().map(move |session| (run, session))
    })
    .collect()
}

/// The most runs any planned criterion takes.
pub(super) fn max_runs(planned: &[Planned<'_>]) -> u32 {
    planned.iter().map(|p| p.runs).max().unwrap_or(0)
}

/// What a visit left: its files (by the name the playbook saved them under) and, when one of
/// its steps failed, why.
pub(super) struct Gathered {
    /// The files.
    pub(super) files: Files,
    /// The failed step's reason.
    pub(super) failure: Option<String>,
}

/// A criterion read by an extractor whose behaviour has changed since: its runs' readings are
/// taken as recorded, with the revision that read them.
pub(crate) struct AsRecorded {
    /// The readings, by run.
    pub(super) runs: BTreeMap<u32, RunReading>,
    /// The extractor revision that read them.
    pub(super) revision: u32,
    /// The dwpipe that read them.
    pub(super) extracted_by: Option<String>,
}

impl AsRecorded {
    /// The readings of `measurement`, as its report records them.
    pub(crate) fn of(measurement: &MeasurementRecord) -> AsRecorded {
        AsRecorded {
            runs: measurement
                .runs
                .iter()
                .map(|r| (r.run, r.clone()))
                .collect(),
            revision: measurement.extractor_revision,
            extracted_by: measurement.extracted_by.clone(),
        }
    }
}

/// The readings of an audit as its visits come in.
pub(super) struct Measuring<'p, 'a> {
    planned: &'p [Planned<'a>],
    context: Context<'a>,
    /// The report shows the screen of the first criterion (in pack order) measured on it.
    screen_of: Option<&'a str>,
    as_recorded: BTreeMap<String, AsRecorded>,
    readings: BTreeMap<&'a str, Vec<RunReading>>,
    /// What the evidence itself disagrees on (a case count against its summary), per criterion.
    noticed: Vec<Diagnostic>,
    /// Which (criterion, message) pairs `noticed` holds: one warning per criterion, whatever
    /// the runs, found without scanning the list.
    noticed_keys: HashSet<(&'a str, String)>,
    figures: Figures,
}

impl<'p, 'a> Measuring<'p, 'a> {
    /// Starts measuring `planned`; the criteria of `as_recorded` keep their recorded readings.
    pub(super) fn new(
        planned: &'p [Planned<'a>],
        context: Context<'a>,
        as_recorded: BTreeMap<String, AsRecorded>,
    ) -> Self {
        Measuring {
            planned,
            context,
            screen_of: planned
                .iter()
                .find(|p| p.is_on_screen())
                .map(|p| p.criterion.id.as_str()),
            as_recorded,
            readings: BTreeMap::new(),
            noticed: Vec::new(),
            noticed_keys: HashSet::new(),
            figures: Figures::default(),
        }
    }

    /// Reads one visit's files for every criterion of its session measured in that run;
    /// the files are hashed relative to `out`, the audit's folder.
    pub(super) fn read(
        &mut self,
        (run, visit): RunVisit<'_>,
        gathered: &Gathered,
        out: &Path,
    ) -> Result<(), AuditError> {
        let evidence = hash_files(&gathered.files, out)?;
        let decoded = Decoded::new(&gathered.files, self.context);
        if let Visit::Flow(_) = visit {
            self.figures.record_flow(run, &decoded);
        }
        // Criteria that ask the same probe the same question share one reading of the visit.
        let mut read: HashMap<(Extractor, &ProbeArgs), Result<Reading, ExtractError>> =
            HashMap::new();
        for plan in measured_in(self.planned, (run, visit)) {
            let id = plan.criterion.id.as_str();
            // A failed step leaves the files gathered before it; probes that do not need what
            // is missing are still measured.
            let (value, detail) = match self.as_recorded.get(id) {
                Some(recorded) => match recorded.runs.get(&run) {
                    Some(reading) => (reading.value.clone(), reading.detail.clone()),
                    None => (None, "no reading was recorded for this run".to_owned()),
                },
                None => {
                    match (
                        read.entry((plan.extractor, plan.args()))
                            .or_insert_with(|| extract(plan.extractor, &decoded, plan.args())),
                        &gathered.failure,
                    ) {
                        (Ok(reading), _) => {
                            if let Some(warning) = &reading.warning
                                && self.noticed_keys.insert((id, warning.clone()))
                            {
                                self.noticed.push(
                                    Diagnostic::warning("W_EVIDENCE_DISAGREES", warning)
                                        .criterion(id)
                                        .fix("look at the kept evidence before trusting the reading (a case may have crashed unreported, a ring of records overrun)"),
                                );
                            }
                            (Some(reading.value.clone()), reading.detail.clone())
                        }
                        (Err(reason), None) => (None, chain(reason)),
                        (Err(reason), Some(step)) => (None, format!("{} ({step})", chain(reason))),
                    }
                }
            };
            self.figures.record(
                id,
                plan.extractor,
                run,
                &decoded,
                self.screen_of == Some(id),
            );
            self.readings.entry(id).or_default().push(RunReading {
                run,
                value,
                detail,
                files: evidence.clone(),
            });
        }
        Ok(())
    }

    /// The traced windows of a visit, from what the runs before it read.
    pub(super) fn learn(&self, visit: RunVisit<'a>, ceilings: &Ceilings) -> Windows {
        super::window::learn(self.planned, visit, &self.readings, ceilings)
    }

    /// Every criterion's runs so far aggregated, with the instability warnings.
    pub(super) fn measurements(&self) -> (Vec<MeasurementRecord>, Vec<Diagnostic>) {
        let mut warnings = self.noticed.clone();
        let measurements = self
            .planned
            .iter()
            .map(|plan| {
                let runs = self
                    .readings
                    .get(plan.criterion.id.as_str())
                    .cloned()
                    .unwrap_or_default();
                let mut record = measurement(plan, runs, &mut warnings);
                if let Some(recorded) = self.as_recorded.get(&plan.criterion.id) {
                    record.extractor_revision = recorded.revision;
                    record.extracted_by.clone_from(&recorded.extracted_by);
                }
                record
            })
            .collect();
        (measurements, warnings)
    }

    /// What the report draws, decoded as the visits came in.
    pub(super) fn into_figures(self) -> Figures {
        self.figures
    }
}

/// A criterion's runs aggregated, flagged when they spread beyond the tolerance.
fn measurement(
    plan: &Planned<'_>,
    runs: Vec<RunReading>,
    warnings: &mut Vec<Diagnostic>,
) -> MeasurementRecord {
    let values: Vec<Value> = runs.iter().filter_map(|r| r.value.clone()).collect();
    // A run that found nothing makes the whole measurement unverified, never a pass.
    let value = if values.len() == runs.len() {
        aggregate(&values, plan.aggregate())
    } else {
        None
    };
    let unit = plan.probe.unit.map(str::to_owned);
    if let Some(spread) = value
        .as_ref()
        .and_then(|v| spread(&values, v))
        .filter(|s| *s > plan.tolerance)
    {
        warnings.push(
            Diagnostic::warning(
                "W_MEASUREMENT_UNSTABLE",
                format!(
                    "runs spread {:.0}% around the {}, beyond the {:.0}% tolerance",
                    spread * 100.0,
                    plan.aggregate(),
                    plan.tolerance * 100.0
                ),
            )
            .criterion(&plan.criterion.id)
            .fix("measure again with more runs, on a quiet device"),
        );
    }
    MeasurementRecord {
        criterion_id: plan.criterion.id.clone(),
        probe: plan.probe.kind.id.to_owned(),
        extractor: plan.extractor,
        extractor_revision: plan.extractor.revision(),
        extracted_by: Some(env!("CARGO_PKG_VERSION").to_owned()),
        aggregate: plan.aggregate(),
        actual: value.as_ref().map(|v| actual(v, unit.as_deref())),
        value,
        unit,
        resolution: plan.resolution,
        runs,
    }
}
