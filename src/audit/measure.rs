//! From session visits to measurements, one way whether the files were just gathered on the
//! device or are read back from the evidence folder by `verify-evidence`: the visits in their
//! order, one reading per criterion and visit, then the aggregate of the runs with a warning
//! when they spread beyond the playbook's tolerance.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::Path;

use crate::diagnostic::{Diagnostic, chain};

use super::aggregate::{actual, aggregate, spread};
use super::error::AuditError;
use super::evidence::{Context, Files};
use super::extract::{Decoded, ExtractError, Reading, Value, extract};
use super::figures::Figures;
use super::keep::hash_files;
use super::model::{MeasurementRecord, RunReading};
use super::plan::{Planned, Visit, measured_in, points_of};
use super::window::{Ceilings, WINDOW_RECORD, Windows};
use crate::pack::ProbeArgs;
use crate::probe::Extractor;

/// One visit in one run.
pub(super) type RunVisit<'a> = (u32, Visit<'a>);

/// Every visit the planned criteria need in `runs` (all of them:
/// `1..=`[`max_runs`](super::plan::max_runs)), in the order an audit makes them: run by run,
/// each session (and each flow) once per run, shared by every probe it serves.
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
    /// What each visit's fault records showed, when the pack asks for stability.
    stability: Vec<super::stability::VisitRecord>,
    /// The phone's displays as its state before the runs listed them: a visit on another
    /// display than the first is read at that display's own density.
    displays: Vec<crate::probe::hidumper::Display>,
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
            stability: Vec::new(),
            displays: Vec::new(),
        }
    }

    /// The same, knowing the phone's displays (its state before the runs).
    pub(super) fn on_displays(self, displays: Vec<crate::probe::hidumper::Display>) -> Self {
        Measuring { displays, ..self }
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
        // The visit's own question to SmartPerf, for the readers of its samples.
        let samples = measured_in(self.planned, (run, visit)).find_map(|p| p.samples);
        let decoded = Decoded::new(
            &gathered.files,
            Context {
                samples,
                ..self.context
            },
        )
        .asking(points_of(self.planned, (run, visit)));
        let decoded = {
            let vpr = super::placement::density(&self.displays, &decoded);
            decoded.read_at(vpr)
        };
        if let Visit::Flow(_) = visit {
            self.figures.record_flow(run, &decoded);
        }
        // Criteria that ask the same probe the same question share one reading of the visit.
        let mut read: HashMap<(Extractor, &ProbeArgs), Result<Reading, ExtractError>> =
            HashMap::new();
        // What a first visit cut short proved of this run, kept in `window.txt`.
        let bounds = gathered
            .files
            .get(WINDOW_RECORD)
            .and_then(|path| std::fs::read_to_string(path).ok())
            .map(|record| super::window::bounds(&record))
            .unwrap_or_default();
        self.notice_unnamed_screen((run, visit), &decoded);
        // A visit in which the app crashed, froze or was ended measured something else.
        let faults = super::faults::decode(&gathered.files, self.context.bundle);
        let was_ready = decoded.placement().is_some();
        let ended = faults
            .as_ref()
            .and_then(|read| read.as_ref().ok())
            .and_then(|read| super::stability::unmeasured(read, was_ready));
        if let Some(read) = faults {
            self.stability.push(super::stability::VisitRecord {
                run,
                visit: visit.to_string(),
                read,
                files: evidence
                    .iter()
                    .filter(|f| super::faults::is_fault_file(&f.path))
                    .cloned()
                    .collect(),
            });
        }
        for plan in measured_in(self.planned, (run, visit)) {
            let id = plan.criterion.id.as_str();
            // Counted over every visit of the run, when the measurements are made.
            if plan.extractor == Extractor::Faults {
                continue;
            }
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
            let (value, detail) = match bounds.iter().find(|(c, _)| c == id) {
                Some((_, at_least)) => bounded(value, detail, *at_least),
                None => (value, detail),
            };
            let (value, detail) = match &ended {
                Some(why) => (None, why.clone()),
                None => (value, detail),
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

    /// Notes a screen criterion of the visit read where uitest could not be told the app's
    /// window, once per criterion.
    fn notice_unnamed_screen(&mut self, (run, visit): RunVisit<'_>, decoded: &Decoded<'_>) {
        let Some(warning) = super::placement::unnamed(self.context.api_level, decoded) else {
            return;
        };
        for plan in measured_in(self.planned, (run, visit)).filter(|p| p.is_on_screen()) {
            let id = plan.criterion.id.as_str();
            if self.noticed_keys.insert((id, warning.message.clone())) {
                self.noticed.push(warning.clone().criterion(id));
            }
        }
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
                let runs = match plan.extractor {
                    Extractor::Faults => super::stability::readings(&self.stability, plan.runs),
                    _ => self
                        .readings
                        .get(plan.criterion.id.as_str())
                        .cloned()
                        .unwrap_or_default(),
                };
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

/// A run whose first visit was cut short proved its reading at least `at_least` ms: the larger
/// of that and what the visit made again read, said so (a slow visit is never swapped for a
/// new sample).
fn bounded(value: Option<Value>, detail: String, at_least: f64) -> (Option<Value>, String) {
    match value.as_ref().and_then(Value::as_number) {
        Some(read) if read >= at_least => (
            value,
            format!("{detail} (its first visit, cut short, proved at least {at_least:.0} ms)"),
        ),
        Some(read) => (
            Some(Value::Number(at_least)),
            format!(
                "at least {at_least:.0} ms: its first visit was cut short there (made again, it read {read} ms; the slower first visit stands as its lower bound)"
            ),
        ),
        None => (value, detail),
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

#[cfg(test)]
mod tests;
