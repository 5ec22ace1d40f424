//! How long a traced window stays open. A playbook's fixed wait inside a trace (a cold start's)
//! and a flow's traced step (its timeout) are ceilings: nothing may poll the device inside the
//! window, so the first run waits the whole ceiling. Later runs of the same visit wait what
//! the earlier runs showed the reading needs, with a margin: the cold start's first frame, a
//! response's last frame and the still gap after it. The readers that may be cut so are those
//! whose reading, once found, is the same in any longer trace (the first frame after the
//! launch, the first transition or frame after the input, the last frame before the first
//! still gap); a window whose trace another probe reads (frames per second of the whole
//! window) keeps its ceiling. Whether the shorter window held is checked on the trace
//! afterwards ([`cut_short`]): if not, the visit is made again with the ceilings.
//!
//! A visit made again is a new sample, and only the slow ones are made again: taking the new
//! one alone would leave the slow one out (a censoring bias). So the cut visit's evidence is
//! kept as what it proves — each reader that found nothing in its window read **at least**
//! that window — and the run reads the larger of that bound and what the visit made again
//! read ([`AT_LEAST`] lines in `window.txt`, which `verify-evidence` reads back). A bound can
//! fail a `≤` criterion; the report says "at least".

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::time::Duration;

use crate::pack::ResponseMetric;
use crate::probe::Extractor;
use crate::probe::hitrace::STILL_NS;

use super::evidence::{Context, Files};
use super::extract::{Decoded, extract};
use super::model::RunReading;
use super::plan::{Planned, Visit, measured_in};

/// The evidence file saying how long a visit's traced windows were, and why.
pub(crate) const WINDOW_RECORD: &str = "window.txt";
/// The lines of [`WINDOW_RECORD`] that say what a cut visit proved: `at least: P-01 950 ms`.
pub(crate) const AT_LEAST: &str = "at least: ";
/// The least margin over what the earlier runs needed.
const MARGIN: Duration = Duration::from_millis(250);
/// Windows are whole multiples of this.
const GRAIN_MS: f64 = 50.0;

/// What earlier runs showed a traced window needs, for one trace of a visit.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Learned {
    /// The wait that holds it, margin included (a ceiling may still be shorter).
    pub(super) wait: Duration,
    /// Why, in words: the readings it was learned from.
    pub(super) because: String,
}

/// A visit's learned windows: the session's traced wait, or a flow's traced steps by index.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Windows {
    /// A session's wait inside its trace.
    pub(super) session: Option<Learned>,
    /// A flow's traced steps (0-based).
    pub(super) steps: BTreeMap<usize, Learned>,
}

impl Windows {
    /// Whether every window keeps its ceiling.
    pub(super) fn is_empty(&self) -> bool {
        self.session.is_none() && self.steps.is_empty()
    }

    /// The wait of a session's traced window whose ceiling is `ceiling`.
    pub(super) fn session_wait(&self, ceiling: Duration) -> Duration {
        self.session
            .as_ref()
            .map_or(ceiling, |l| l.wait.min(ceiling))
    }

    /// The wait of flow step `index`'s traced window whose ceiling is `ceiling`.
    pub(super) fn step_wait(&self, index: usize, ceiling: Duration) -> Duration {
        self.steps
            .get(&index)
            .map_or(ceiling, |l| l.wait.min(ceiling))
    }

    /// The record kept with the visit's evidence.
    pub(super) fn record(&self, repeated: Option<&Cut>) -> String {
        let line = |what: String, learned: &Learned| {
            format!(
                "{what}: {} ms: {}\n",
                learned.wait.as_millis(),
                learned.because
            )
        };
        let session = self
            .session
            .iter()
            .map(|l| line("the wait inside the trace".to_owned(), l));
        let steps = self
            .steps
            .iter()
            .map(|(index, l)| line(format!("step {}", index + 1), l));
        let cut = repeated.map(|cut| {
            let mut said = format!(
                "cut short ({}): the visit was made again with every window at its ceiling\n",
                cut.why
            );
            for (criterion, ms) in &cut.bounds {
                let _ = writeln!(said, "{AT_LEAST}{criterion} {ms:.0} ms");
            }
            said
        });
        session.chain(steps).chain(cut).collect()
    }
}

/// A visit cut short: why, and what each reader that found nothing in its window read at
/// least (its window, less what the reading does not count), by criterion.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Cut {
    pub(super) why: String,
    pub(super) bounds: Vec<(String, f64)>,
}

/// The bounds a visit's `window.txt` keeps (criterion, ms): what its cut first visit proved.
pub(crate) fn bounds(record: &str) -> Vec<(String, f64)> {
    record
        .lines()
        .filter_map(|line| {
            let (criterion, ms) = line.strip_prefix(AT_LEAST)?.split_once(' ')?;
            let ms: f64 = ms.strip_suffix(" ms")?.parse().ok()?;
            Some((criterion.to_owned(), ms))
        })
        .collect()
}

/// What a reader's window proves its reading was at least, when it found nothing in it: the
/// window, less the still gap a completion needs after its last frame.
fn bound_ms(plan: &Planned<'_>, window: Duration) -> f64 {
    let ms = window.as_secs_f64() * 1e3;
    match (plan.extractor, plan.args().response) {
        (Extractor::Response, ResponseMetric::Complete) => (ms - STILL_NS as f64 / 1e6).max(0.0),
        _ => ms,
    }
}

/// The wait that holds `needed`: a quarter more, at least [`MARGIN`] more, rounded up to
/// [`GRAIN_MS`].
fn wait_for(needed_ms: f64) -> Duration {
    let margin = (needed_ms * 0.25).max(MARGIN.as_secs_f64() * 1e3);
    let ms = ((needed_ms + margin) / GRAIN_MS).ceil() * GRAIN_MS;
    Duration::from_millis(ms as u64)
}

/// What a reader's reading says its window needed, in ms after the window began (`None`: the
/// reader's reading may change in a longer trace, so its window is not cut).
fn needed_ms(plan: &Planned<'_>, reading: f64) -> Option<f64> {
    match plan.extractor {
        // Launch to the first frame: the wait begins as the launch is sent.
        Extractor::ColdStart => Some(reading),
        // The input to the last frame, and the still gap that shows it was the last.
        Extractor::Response => Some(match plan.args().response {
            ResponseMetric::Complete => reading + STILL_NS as f64 / 1e6,
            ResponseMetric::Response => reading,
        }),
        _ => None,
    }
}

/// A visit's traced windows as the playbooks and the pack set them: the ceiling of a
/// session's wait inside its trace, a flow's traced steps (their timeouts), and which of those
/// steps a frames reader traces too.
pub(super) struct Ceilings {
    /// The session's wait inside its trace.
    pub(super) session: Option<Duration>,
    /// The flow's steps' timeouts, by index.
    pub(super) steps: Vec<Duration>,
    /// The flow's steps a frames reader traces.
    pub(super) traced_for_frames: BTreeSet<usize>,
}

/// The windows of `visit` in `run`, from `readings` (by criterion) of the runs before it: only
/// those shorter than their ceiling.
pub(super) fn learn(
    planned: &[Planned<'_>],
    (run, visit): (u32, Visit<'_>),
    readings: &BTreeMap<&str, Vec<RunReading>>,
    ceilings: &Ceilings,
) -> Windows {
    // The most any reader needed in any earlier run, when that is shorter than the ceiling;
    // `None` as soon as one reader cannot say.
    let needed = |readers: &[&Planned<'_>], ceiling: Duration| -> Option<Learned> {
        let mut most: Option<(f64, String)> = None;
        for plan in readers {
            let earlier: Vec<&RunReading> = readings
                .get(plan.criterion.id.as_str())?
                .iter()
                .filter(|r| r.run < run)
                .collect();
            if earlier.is_empty() {
                return None;
            }
            for reading in earlier {
                let value = reading.value.as_ref()?.as_number()?;
                let needed = needed_ms(plan, value)?;
                if most.as_ref().is_none_or(|(m, _)| needed > *m) {
                    most = Some((
                        needed,
                        format!(
                            "run {} of {} needed {needed:.0} ms",
                            reading.run, plan.criterion.id
                        ),
                    ));
                }
            }
        }
        let (needed, because) = most?;
        let wait = wait_for(needed);
        (wait < ceiling).then(|| Learned {
            wait,
            because: format!(
                "{because}, plus a quarter (250 ms at least), of a ceiling of {} ms",
                ceiling.as_millis()
            ),
        })
    };
    let here: Vec<&Planned<'_>> = measured_in(planned, (run, visit)).collect();
    match visit {
        Visit::Session(_) => Windows {
            session: ceilings.session.and_then(|c| needed(&here, c)),
            steps: BTreeMap::new(),
        },
        Visit::Flow(_) => {
            let traced: BTreeSet<usize> = here
                .iter()
                .filter(|p| p.extractor == Extractor::Response)
                .filter_map(|p| p.args().step.map(|s| s.index))
                .collect();
            let mut steps = BTreeMap::new();
            for index in traced {
                // A step another reader traces too (a flow's frames read every swipe) keeps
                // its ceiling.
                let Some(ceiling) = ceilings.steps.get(index) else {
                    continue;
                };
                if ceilings.traced_for_frames.contains(&index) {
                    continue;
                }
                let readers: Vec<&Planned<'_>> = here
                    .iter()
                    .copied()
                    // A trace point on the step reads it too, and cannot say what it needs.
                    .filter(|p| {
                        matches!(p.extractor, Extractor::Response | Extractor::TracePoint)
                            && p.args().step.map(|s| s.index) == Some(index)
                    })
                    .collect();
                if let Some(learned) = needed(&readers, *ceiling) {
                    steps.insert(index, learned);
                }
            }
            Windows {
                session: None,
                steps,
            }
        }
    }
}

/// Why a visit made with learned `windows` does not show what its readers need (a reader of a
/// shortened window found nothing), with what each such reader read at least; `None` when
/// every one holds.
pub(super) fn cut_short(
    planned: &[Planned<'_>],
    (run, visit): (u32, Visit<'_>),
    windows: &Windows,
    files: &Files,
    context: Context<'_>,
) -> Option<Cut> {
    if windows.is_empty() {
        return None;
    }
    let decoded =
        Decoded::new(files, context).asking(super::plan::points_of(planned, (run, visit)));
    let mut why = None;
    let mut bounds = Vec::new();
    for plan in measured_in(planned, (run, visit)) {
        let window = match visit {
            Visit::Session(_) => windows.session.as_ref(),
            Visit::Flow(_) => plan.args().step.and_then(|s| windows.steps.get(&s.index)),
        };
        let Some(window) = window else {
            continue;
        };
        if let Err(e) = extract(plan.extractor, &decoded, plan.args()) {
            why.get_or_insert_with(|| {
                format!("{}: {}", plan.criterion.id, crate::diagnostic::chain(&e))
            });
            bounds.push((plan.criterion.id.clone(), bound_ms(plan, window.wait)));
        }
    }
    why.map(|why| Cut { why, bounds })
}

#[cfg(test)]
mod tests;
