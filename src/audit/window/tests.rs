//! A visit's measuring window, cut and bounded.

use super::*;
use crate::audit::extract::Value;
use crate::audit::plan::plan;
use crate::playbook::Playbooks;

fn reading(run: u32, value: Option<f64>) -> RunReading {
    RunReading {
        run,
        value: value.map(Value::Number),
        detail: String::new(),
        files: Vec::new(),
    }
}

/// The example pack's windows, from readings of earlier runs (criterion, run, value).
#[test]
fn a_window_is_learned_only_from_every_earlier_reading_and_only_below_its_ceiling() {
    let pack = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/notes/pack.yaml");
    let frozen = crate::pack::freeze_file(&pack).unwrap();
    let playbooks = Playbooks::load(None).unwrap();
    let planned = plan(&frozen.pack, &playbooks, None);
    let cold = Ceilings {
        session: Some(Duration::from_secs(3)),
        steps: Vec::new(),
        traced_for_frames: BTreeSet::new(),
    };
    let flow = |frames: &[usize]| Ceilings {
        session: None,
        steps: vec![Duration::from_secs(2); 5],
        traced_for_frames: frames.iter().copied().collect(),
    };
    type Readings<'a> = &'a [(&'a str, u32, Option<f64>)];
    let table: [(Visit<'_>, u32, Readings<'_>, &Ceilings, Option<u64>); 8] = [
        // Run 1 knows nothing: the ceiling.
        (Visit::Session("cold-start"), 1, &[], &cold, None),
        (
            Visit::Session("cold-start"),
            2,
            &[("P-01", 1, Some(700.0))],
            &cold,
            Some(950),
        ),
        // The most any earlier run needed.
        (
            Visit::Session("cold-start"),
            3,
            &[("P-01", 1, Some(700.0)), ("P-01", 2, Some(720.0))],
            &cold,
            Some(1000),
        ),
        // A run that read nothing says nothing of what is needed.
        (
            Visit::Session("cold-start"),
            3,
            &[("P-01", 1, None), ("P-01", 2, Some(720.0))],
            &cold,
            None,
        ),
        // Not shorter than the ceiling: no window of its own.
        (
            Visit::Session("cold-start"),
            2,
            &[("P-01", 1, Some(2500.0))],
            &cold,
            None,
        ),
        // Step 2 (index 1): P-03's completion and its still gap, over P-04's response.
        (
            Visit::Flow("open-note"),
            2,
            &[("P-03", 1, Some(700.0)), ("P-04", 1, Some(60.0))],
            &flow(&[]),
            Some(1250),
        ),
        // A step whose frames are read keeps its ceiling.
        (
            Visit::Flow("open-note"),
            2,
            &[("P-03", 1, Some(700.0)), ("P-04", 1, Some(60.0))],
            &flow(&[1]),
            None,
        ),
        // One of the step's readers read nothing in an earlier run.
        (
            Visit::Flow("open-note"),
            2,
            &[("P-03", 1, Some(700.0)), ("P-04", 1, None)],
            &flow(&[]),
            None,
        ),
    ];
    for (visit, run, given, ceilings, expected) in table {
        let mut readings: BTreeMap<&str, Vec<RunReading>> = BTreeMap::new();
        for &(id, r, value) in given {
            readings.entry(id).or_default().push(reading(r, value));
        }
        let windows = learn(&planned, (run, visit), &readings, ceilings);
        let wait = match visit {
            Visit::Session(_) => windows.session.as_ref(),
            Visit::Flow(_) => windows.steps.get(&1),
        }
        .map(|l| l.wait.as_millis() as u64);
        assert_eq!(wait, expected, "{visit} run {run} from {given:?}");
    }
}

#[test]
fn a_window_is_what_was_needed_and_a_quarter_at_least_250_ms_in_steps_of_50() {
    for (needed, wait) in [
        (700.0, 950),
        (720.0, 1000),
        (1000.0, 1250),
        (1032.0, 1300),
        (2000.0, 2500),
        (60.0, 350),
    ] {
        assert_eq!(wait_for(needed), Duration::from_millis(wait), "{needed}");
    }
}
