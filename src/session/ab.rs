//! Same-device A/B: the last release (the baseline) and the candidate measured on one device
//! in one session, so that thermal state, background work and DVFS drift hit both arms alike.
//! The builds are switched by uninstalling and installing (the app's data is reset; an older
//! build over a newer one would be refused as `install version downgrade`), each install
//! judged by hdc's text; the first run after each install is a discarded warm-up; the arms are
//! measured alternately in blocks (A B A B …, at least two alternations); a criterion the
//! comparison still calls `unknown` after N runs per arm gets more (doubling, up to M), then
//! ends `inconclusive`. The device is left with the candidate installed, after an error or a
//! signal too, and the record says when it could not be.

use std::path::{Path, PathBuf};

use crate::audit::{AuditError, AuditSpec, Ongoing, Prepared};
use crate::compare::compare;
use crate::device::{Device, DeviceError};
use crate::diagnostic::chain;
use crate::output::{dir_or_dot, relative_to};
use crate::report::publish;
use crate::schema::{
    AbRecord, Arm, AuditReport, Block, Comparison, Outcome, Restored, Side, files,
};
use crate::shell::ShellValue;

use super::builds::Builds;
use super::error::AbError;
use super::{AuditPlan, Event, Reporter};

/// The bundle manager's code for uninstalling an app that is not installed.
const NOT_INSTALLED: &str = "9568386";

/// Both arms, in the order each round measures them (the candidate last, so that the
/// device ends with it).
const ARMS: [Arm; 2] = [Arm::Baseline, Arm::Candidate];

/// What the device holds, as far as this session knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Holds {
    /// Nothing was installed yet: the device is as it was.
    Untouched,
    /// A switch began and did not finish: which build it has is unknown.
    Switching,
    /// This arm's build.
    Build(Arm),
}

/// A finished A/B session: the comparison and the record (each arm's audit is published in
/// its folder).
#[derive(Debug)]
pub(crate) struct AbSession {
    /// The candidate held against the baseline.
    pub(crate) comparison: Comparison,
    /// `ab.json`.
    pub(crate) record: AbRecord,
    /// The candidate's audit.
    pub(crate) candidate: AuditReport,
    /// Every file written.
    pub(crate) written: Vec<PathBuf>,
}

/// Runs the A/B session on `device` into `out` (`baseline/`, `candidate/`, `warm-up/`, the
/// comparison and `ab.json`); after an error the candidate is put back through `sheltered`
/// (the same device on a signal a first SIGINT does not fire; none for a replay). Returns the
/// session or why it stopped, and whether the device was left with the candidate.
pub(crate) async fn run<D: Device, S: Device>(
    device: &D,
    sheltered: Option<&S>,
    plan: &AuditPlan<'_>,
    builds: &Builds,
    out: &Path,
    reporter: &dyn Reporter,
) -> (Result<AbSession, AbError>, Restored) {
    let bundle = match ShellValue::bundle(&plan.frozen.pack.doc.app.bundle.value) {
        Ok(bundle) => bundle,
        Err(e) => {
            let error = AbError::Audit {
                arm: Arm::Baseline,
                source: AuditError::Unsafe(e),
            };
            return (Err(error), Restored::Untouched);
        }
    };
    let mut holds = Holds::Untouched;
    let result = session(device, &bundle, (plan, builds), out, reporter, &mut holds).await;
    let restored = match holds {
        Holds::Untouched => Restored::Untouched,
        Holds::Build(Arm::Candidate) => Restored::Candidate,
        Holds::Switching | Holds::Build(Arm::Baseline) => match sheltered {
            None => Restored::Failed("a replay has no device to put the candidate back on".into()),
            Some(sheltered) => match switch(sheltered, &bundle, &builds.candidate.path).await {
                Ok(()) => Restored::Candidate,
                Err(e) => Restored::Failed(chain(&e)),
            },
        },
    };
    let result = match result {
        Ok(mut session) => {
            session.record.left_installed = restored.clone();
            match publish::ab_record(&session.record, &session.comparison, out) {
                Ok(paths) => {
                    session.written.extend(paths);
                    Ok(session)
                }
                Err(e) => Err(AbError::Publish(e)),
            }
        }
        Err(e) => Err(e),
    };
    (result, restored)
}

/// The session itself; `holds` follows what the device has.
async fn session<D: Device>(
    device: &D,
    bundle: &ShellValue,
    (plan, builds): (&AuditPlan<'_>, &Builds),
    out: &Path,
    reporter: &dyn Reporter,
    holds: &mut Holds,
) -> Result<AbSession, AbError> {
    let pack = &plan.frozen.pack;
    let specs = ARMS.map(|arm| AuditSpec {
        runs: Some(builds.runs.max),
        installed: std::slice::from_ref(&builds.of(arm).hap),
        frozen: Some(&plan.frozen),
        require: plan.require.clone(),
        ..AuditSpec::new(pack, &plan.playbooks)
    });
    let (base, cand) = match [Prepared::new(&specs[0]), Prepared::new(&specs[1])] {
        [Ok(base), Ok(cand)] => (base, cand),
        [Err(source), _] | [_, Err(source)] => {
            return Err(AbError::Audit {
                arm: Arm::Baseline,
                source,
            });
        }
    };
    let mut arms = [
        begin(
            device,
            &base,
            Arm::Baseline,
            &out.join(Arm::Baseline.as_str()),
        )
        .await?,
        begin(
            device,
            &cand,
            Arm::Candidate,
            &out.join(Arm::Candidate.as_str()),
        )
        .await?,
    ];
    let switching = Switching {
        device,
        bundle,
        builds,
        out,
        reporter,
    };
    let (comparison, blocks) = alternate(&switching, plan, &mut arms, holds).await?;
    let [mut a, mut c] = arms;
    for (arm, ongoing) in [(Arm::Baseline, &mut a), (Arm::Candidate, &mut c)] {
        ongoing
            .settle(device)
            .await
            .map_err(|source| AbError::Audit { arm, source })?;
    }
    let (reports, comparison, mut written) = publish_arms(device, plan, out, [a, c], comparison)?;
    let compared = publish::comparison(&comparison, out)?;
    let unrecorded = record_history(plan, out, &comparison, &compared).await;
    written.extend(compared);
    let [baseline, candidate] = reports;
    let record = AbRecord {
        unrecorded,
        ..AbRecord::new(
            [
                (&builds.baseline.hap, &builds.baseline.version),
                (&builds.candidate.hap, &builds.candidate.version),
            ],
            [builds.runs.first, builds.runs.max],
            blocks,
            (&baseline, &candidate),
            &comparison,
        )
    };
    Ok(AbSession {
        comparison,
        record,
        candidate,
        written,
    })
}

/// What switching the device between the builds needs.
struct Switching<'s, D> {
    device: &'s D,
    bundle: &'s ShellValue,
    builds: &'s Builds,
    out: &'s Path,
    reporter: &'s dyn Reporter,
}

/// Measures the arms alternately in blocks (each after its build's install and a warm-up)
/// until every criterion's comparison is known or the runs reach their bound: the last
/// comparison, and the blocks measured.
async fn alternate<D: Device>(
    on: &Switching<'_, D>,
    plan: &AuditPlan<'_>,
    arms: &mut [Ongoing<'_, '_, '_>; 2],
    holds: &mut Holds,
) -> Result<(Comparison, Vec<Block>), AbError> {
    let (device, builds, out) = (on.device, on.builds, on.out);
    let block = builds.runs.first.div_ceil(2).max(1);
    let mut target = builds.runs.first.min(builds.runs.max);
    let mut blocks = Vec::new();
    loop {
        while arms.iter().any(|a| a.done() < target) {
            for (arm, ongoing) in ARMS.into_iter().zip(arms.iter_mut()) {
                if ongoing.done() >= target {
                    continue;
                }
                let build = builds.of(arm);
                on.reporter.event(Event::Installing(arm));
                *holds = Holds::Switching;
                switch(device, on.bundle, &build.path)
                    .await
                    .map_err(|source| AbError::Switch {
                        arm,
                        hap: build.hap.path.clone(),
                        source,
                    })?;
                *holds = Holds::Build(arm);
                let warm_up = out
                    .join(files::WARM_UP)
                    .join(format!("{}-{arm}", blocks.len() + 1));
                let to_audit = |source| AbError::Audit { arm, source };
                ongoing.warm_up(device, &warm_up).await.map_err(to_audit)?;
                let from = ongoing.done() + 1;
                let to = (ongoing.done() + block).min(target);
                ongoing
                    .measure(device, to, &|e| on.reporter.event(Event::Audit(e)))
                    .await
                    .map_err(to_audit)?;
                blocks.push(Block {
                    arm,
                    runs: [from, to],
                    warm_up: relative_to(&warm_up, out),
                });
            }
        }
        let so_far = |ongoing: &Ongoing<'_, '_, '_>| {
            AuditReport::of_audit(
                &plan.frozen.lock.sha256,
                &ongoing.snapshot(device).gate(&plan.frozen.pack),
                None,
            )
        };
        let (baseline, candidate) = (so_far(&arms[0]), so_far(&arms[1]));
        let comparison = compare_arms(plan, (&baseline, &candidate), out)?;
        let unknown: Vec<String> = comparison
            .criteria
            .iter()
            .filter(|c| c.outcome == Some(Outcome::Unknown))
            .map(|c| c.criterion_id.clone())
            .collect();
        if unknown.is_empty() || target >= builds.runs.max {
            return Ok((comparison, blocks));
        }
        target = (target * 2).min(builds.runs.max);
        on.reporter.event(Event::Escalated {
            runs: target,
            unknown: &unknown,
        });
    }
}

/// Each arm's audit finished, gated and published in its folder; the last round's comparison
/// (its snapshots held the runs the published reports hold, so `verify-evidence` recomputes
/// the same numbers) now names their files, bound to their bytes.
fn publish_arms(
    device: &impl Device,
    plan: &AuditPlan<'_>,
    out: &Path,
    arms: [Ongoing<'_, '_, '_>; 2],
    comparison: Comparison,
) -> Result<([AuditReport; 2], Comparison, Vec<PathBuf>), AbError> {
    let pack = &plan.frozen.pack;
    let mut written = Vec::new();
    let mut publish = |arm: Arm, ongoing: Ongoing<'_, '_, '_>| {
        let dir = out.join(arm.as_str());
        let audited = ongoing
            .finish(device)
            .map_err(|source| AbError::Audit { arm, source })?
            .gate(pack);
        let lock = Some(relative_to(&plan.lock, &dir));
        let report = AuditReport::of_audit(&plan.frozen.lock.sha256, &audited, lock);
        let forms = publish::audit(&report, pack, &audited.figures, &dir)?;
        let json = relative_to(&forms.json, out);
        let sha256 = crate::hash::sha256_hex(publish::json(&report).as_bytes());
        written.extend(forms.paths());
        Ok::<_, AbError>((report, json, sha256))
    };
    let [a, c] = arms;
    let (baseline, base_json, base_sha) = publish(Arm::Baseline, a)?;
    let (candidate, cand_json, cand_sha) = publish(Arm::Candidate, c)?;
    let comparison = Comparison {
        baseline: Side {
            report: base_json,
            report_sha256: Some(base_sha),
            ..comparison.baseline
        },
        candidate: Side {
            report: cand_json,
            report_sha256: Some(cand_sha),
            ..comparison.candidate
        },
        ..comparison
    };
    Ok(([baseline, candidate], comparison, written))
}

/// Records both arms' audits and the comparison in the plan's history; what could not be
/// recorded, and why (the history was opened before the device was touched: a failure now
/// leaves the session whole and says so).
async fn record_history(
    plan: &AuditPlan<'_>,
    out: &Path,
    comparison: &Comparison,
    compared: &[PathBuf],
) -> Option<String> {
    let history = plan.history.as_ref()?;
    let mut reports = vec![
        (
            out.join(&comparison.baseline.report),
            Some(Arm::Baseline.as_str()),
        ),
        (
            out.join(&comparison.candidate.report),
            Some(Arm::Candidate.as_str()),
        ),
    ];
    reports.extend(compared.first().map(|path| (path.clone(), None)));
    for (i, (path, arm)) in reports.iter().enumerate() {
        if let Err(e) = super::one::record(history, path, *arm).await {
            let missed: Vec<String> = reports[i..]
                .iter()
                .map(|(path, _)| relative_to(path, out))
                .collect();
            return Some(format!("{} ({})", chain(&e), missed.join(", ")));
        }
    }
    None
}

/// Begins an arm's audit in its folder `dir`.
async fn begin<'p, 's, 'a>(
    device: &impl Device,
    prepared: &'p Prepared<'s, 'a>,
    arm: Arm,
    dir: &Path,
) -> Result<Ongoing<'p, 's, 'a>, AbError> {
    let to_audit = |source| AbError::Audit { arm, source };
    // Made level by level under the session's folder, a link planted at any refused.
    crate::lock_file::own_folder(dir_or_dot(dir.parent()), dir)
        .map_err(|e| to_audit(AuditError::Planted(e)))?;
    prepared.begin(device, dir, None).await.map_err(to_audit)
}

/// The candidate held against the baseline, for `compare.json` in `out` (the reports are
/// named by their arms until they are written).
fn compare_arms(
    plan: &AuditPlan<'_>,
    (baseline, candidate): (&AuditReport, &AuditReport),
    out: &Path,
) -> Result<Comparison, AbError> {
    compare(
        baseline,
        candidate,
        &plan.frozen,
        (Arm::Baseline.as_str(), Arm::Candidate.as_str()),
        &relative_to(&plan.lock, out),
    )
    .map_err(AbError::Compare)
}

/// Puts `hap` on the device in place of whatever build of `bundle` it has: uninstalled first
/// (an app that is not installed is fine), then installed, each judged by hdc's text.
async fn switch(device: &impl Device, bundle: &ShellValue, hap: &Path) -> Result<(), DeviceError> {
    match device.uninstall(bundle).await {
        Err(DeviceError::App {
            code: Some(code), ..
        }) if code == NOT_INSTALLED => {}
        other => other?,
    }
    device.install(hap).await
}
