//! An audit rebuilt from its folder, offline: the inputs it kept (who the device said it was,
//! the playbooks, an outside auditor's report), the visits the lock and those playbooks call
//! for, each read from the files stored for it, exactly as the audit read them on the device.
//! `verify-evidence` gates what this returns and compares it with the report.

use std::collections::BTreeMap;
use std::path::Path;

use crate::device::{DeviceInfo, Source};
use crate::diagnostic::Diagnostic;
use crate::pack::Pack;
use crate::playbook::{FAILED_STEP, Playbooks};

use crate::diagnostic::chain;

use super::evidence::{Context, Files};
use super::extract::{Decoded, extract};
use super::inputs::{inside, read_kept};
use super::measure::{AsRecorded, Gathered, Measuring, RunVisit, visits};
use super::model::{AuditRun, Inputs, RunReading};
use super::plan::max_runs;
use super::plan::{Planned, evidence_root, measured_in, plan};

/// What a report records that no evidence file holds, and what it says it measured with.
pub(crate) struct Recorded<'a> {
    /// The device the report names: its serial finds the evidence folder; a first-format
    /// audit kept no `device.yaml`, so its identity is taken as recorded.
    pub(crate) device: &'a DeviceInfo,
    /// Where the readings came from, as the report says (rebuilt from the kept record since
    /// format 4; a recorded fact before; absent in the first format).
    pub(crate) source: Option<&'a Source>,
    /// The inputs (absent in the first format: the embedded playbooks are used).
    pub(crate) inputs: Option<&'a Inputs>,
    /// Criteria read by an older extractor, whose readings are taken as recorded.
    pub(crate) as_recorded: BTreeMap<String, AsRecorded>,
    /// Every reading the report records, by criterion and run: a first-format audit kept no
    /// `failed-step.txt`, so why a step failed is taken from its readings' details.
    pub(crate) readings: BTreeMap<String, BTreeMap<u32, RunReading>>,
    /// When and why the lease was lost, as the report's lease record says (no evidence file
    /// holds a lease).
    pub(crate) lease_lost: Option<String>,
}

/// Rebuilds the audit kept in `out` (the report's folder) against `pack`.
pub(crate) fn rebuild(
    out: &Path,
    pack: &Pack,
    recorded: Recorded<'_>,
) -> Result<AuditRun, Diagnostic> {
    let root = evidence_root(out, &recorded.device.serial);
    if !root.is_dir() {
        return Err(Diagnostic::error(
            "E_EVIDENCE_MISSING",
            format!(
                "`{}` is not there: the report names device {} but its evidence is missing",
                root.display(),
                recorded.device.serial
            ),
        )
        .fix("verify the report inside the audit folder `dwpipe audit` wrote"));
    }
    inside(&root, out)?;
    let (info, playbooks, auditor, inputs, kept_source, states, times) = match recorded.inputs {
        Some(inputs) => {
            let kept = read_kept(&root, out, inputs)?;
            (
                kept.info,
                kept.playbooks,
                kept.auditor,
                Some(kept.inputs),
                kept.source,
                kept.states,
                kept.times,
            )
        }
        None => (
            recorded.device.clone(),
            Playbooks::load(None)?,
            Vec::new(),
            None,
            None,
            None,
            None,
        ),
    };
    let planned = plan(pack, &playbooks, inputs.as_ref().and_then(|i| i.runs));
    let others = inputs
        .as_ref()
        .map(|i| i.require.as_slice())
        .unwrap_or_default();
    let context = Context {
        bundle: &pack.doc.app.bundle.value,
        vpr: info.virtual_pixel_ratio,
        charging_off: super::plan::charging_off(&super::plan::required(pack, others)),
        samples: None,
        api_level: info.api_level,
    };
    let displays = states
        .as_ref()
        .map(|s| s.before.displays.clone())
        .unwrap_or_default();
    let mut measuring =
        Measuring::new(&planned, context, recorded.as_recorded).on_displays(displays);
    for (run, visit) in visits(&planned, 1..=max_runs(&planned)) {
        let dir = root.join(run.to_string()).join(visit.folder());
        let mut gathered = stored(&dir, out)?;
        if inputs.is_none() && gathered.failure.is_none() {
            gathered.failure = first_format_failure(
                &planned,
                (run, visit),
                &gathered,
                context,
                &recorded.readings,
            );
        }
        measuring.read((run, visit), &gathered, out).map_err(|e| {
            Diagnostic::error("E_EVIDENCE_MISSING", chain(&e))
                .fix("verify the audit folder as `dwpipe audit` wrote it")
        })?;
    }
    let (measurements, warnings) = measuring.measurements();
    let figures = measuring.into_figures();
    let states = states.map(|mut states| {
        let others = inputs
            .as_ref()
            .map(|i| i.require.as_slice())
            .unwrap_or_default();
        states.judge(&super::plan::required(pack, others));
        states
    });
    // Whether the lease held is the kept times' word when they were kept, else the report's.
    let lease_lost = match &times {
        Some(times) => times.lease.as_ref().and_then(|l| l.lost.clone()),
        None => recorded.lease_lost,
    };
    Ok(AuditRun {
        // When the audit held its device, as kept (none before they were).
        times,
        // Where the readings came from, as the audit kept it; a report before format 4 kept
        // no record, and its label is taken as recorded.
        source: kept_source
            .or_else(|| recorded.source.cloned())
            .unwrap_or_else(|| Source::live(&info)),
        device: info,
        inputs,
        auditor,
        measurements,
        warnings,
        figures,
        states,
        lease_lost,
    })
}

/// Why a step of a first-format visit failed, as its readings' details say: a detail the
/// extractor's own reason followed by ` (<why the step failed>)`.
fn first_format_failure(
    planned: &[Planned<'_>],
    (run, visit): RunVisit<'_>,
    gathered: &Gathered,
    context: Context<'_>,
    readings: &BTreeMap<String, BTreeMap<u32, RunReading>>,
) -> Option<String> {
    let decoded = Decoded::new(&gathered.files, context);
    measured_in(planned, (run, visit)).find_map(|p| {
        let reason = chain(&extract(p.extractor, &decoded, p.args()).err()?);
        let recorded = readings.get(&p.criterion.id)?.get(&run)?;
        recorded
            .detail
            .strip_prefix(&format!("{reason} ("))?
            .strip_suffix(')')
            .map(str::to_owned)
    })
}

/// The files a visit stored in `dir`, by name, and the failed step's reason if it left one.
/// Every file there counts, so a file added to the folder shows in the rebuilt report; a
/// missing folder is a visit that gathered nothing.
fn stored(dir: &Path, out: &Path) -> Result<Gathered, Diagnostic> {
    let mut files = Files::new();
    let mut failure = None;
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(Gathered {
            files,
            failure: Some(format!("no evidence was kept in `{}`", dir.display())),
        });
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        // Half-written pulls and atomic-write temporaries are not evidence.
        if name.starts_with('.') {
            continue;
        }
        inside(&path, out)?;
        if name == FAILED_STEP {
            failure = crate::input::read_text(&path, 64 * 1024, "a failed step's reason").ok();
        }
        files.insert(name, path);
    }
    Ok(Gathered { files, failure })
}
