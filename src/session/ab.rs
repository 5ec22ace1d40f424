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
use crate::compare::{CompareError, compare};
use crate::device::{Device, DeviceError};
use crate::diagnostic::chain;
use crate::output::{PublishError, relative_to};
use crate::report::publish;
use crate::schema::{AbRecord, Arm, AuditReport, Block, Comparison, Outcome, Restored, Side};
use crate::shell::ShellValue;

use super::plan::Builds;
use super::{AuditPlan, Event, Reporter};

/// The bundle manager's code for uninstalling an app that is not installed.
const NOT_INSTALLED: &str = "9568386";
/// Where the warm-up runs' evidence is kept (not read, not counted).
pub(super) const WARM_UP: &str = "warm-up";

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

/// Why an A/B session has no result.
#[derive(Debug, thiserror::Error)]
pub(crate) enum AbError {
    /// A build could not be installed (or the previous one uninstalled).
    #[error("switching the device to the {arm} build `{hap}` failed")]
    Switch {
        /// The arm.
        arm: Arm,
        /// Its HAP.
        hap: String,
        /// hdc's or the bundle manager's reason.
        #[source]
        source: DeviceError,
    },
    /// An arm's audit stopped (the device, a signal, the evidence folder).
    #[error("the {arm} audit stopped")]
    Audit {
        /// The arm.
        arm: Arm,
        /// Why.
        #[source]
        source: AuditError,
    },
    /// The arms' audits cannot be compared (the device changed its identity mid-session).
    #[error("the arms cannot be compared")]
    Compare(#[source] CompareError),
    /// A report could not be written.
    #[error(transparent)]
    Publish(#[from] PublishError),
}

impl AbError {
    /// The stable code.
    pub(crate) fn code(&self) -> &str {
        match self {
            AbError::Switch { source, .. } => source.code(),
            AbError::Audit { source, .. } => source.code(),
            AbError::Compare(e) => e.code(),
            AbError::Publish(PublishError::Write(_)) => "E_WRITE",
            AbError::Publish(PublishError::Render(_)) => "E_RENDER",
        }
    }

    /// Whether a signal stopped the session.
    pub(crate) fn is_interrupted(&self) -> bool {
        match self {
            AbError::Switch { source, .. } => matches!(source, DeviceError::Cancelled),
            AbError::Audit { source, .. } => source.is_interrupted(),
            AbError::Compare(_) | AbError::Publish(_) => false,
        }
    }
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
        frozen: Some(plan.frozen),
        require: plan.require.clone(),
        ..AuditSpec::new(pack, plan.playbooks)
    });
    let prepared = [Prepared::new(&specs[0]), Prepared::new(&specs[1])];
    let [Ok(base), Ok(cand)] = &prepared else {
        let [a, b] = prepared;
        let source = a.err().or(b.err()).expect("one arm failed to plan");
        return Err(AbError::Audit {
            arm: Arm::Baseline,
            source,
        });
    };
    let folder = |arm: Arm| out.join(arm.as_str());
    let mut arms = [
        begin(device, base, Arm::Baseline, &folder(Arm::Baseline)).await?,
        begin(device, cand, Arm::Candidate, &folder(Arm::Candidate)).await?,
    ];
    let block = builds.runs.first.div_ceil(2).max(1);
    let mut target = builds.runs.first.min(builds.runs.max);
    let mut blocks = Vec::new();
    let comparison = loop {
        while arms.iter().any(|a| a.done() < target) {
            for (arm, ongoing) in ARMS.into_iter().zip(arms.iter_mut()) {
                if ongoing.done() >= target {
                    continue;
                }
                let build = builds.of(arm);
                reporter.event(Event::Installing(arm));
                *holds = Holds::Switching;
                switch(device, bundle, &build.path)
                    .await
                    .map_err(|source| AbError::Switch {
                        arm,
                        hap: build.hap.path.clone(),
                        source,
                    })?;
                *holds = Holds::Build(arm);
                let warm_up = out
                    .join(WARM_UP)
                    .join(format!("{}-{arm}", blocks.len() + 1));
                let to_audit = |source| AbError::Audit { arm, source };
                ongoing.warm_up(device, &warm_up).await.map_err(to_audit)?;
                let from = ongoing.done() + 1;
                let to = (ongoing.done() + block).min(target);
                ongoing
                    .measure(device, to, &|e| reporter.event(Event::Audit(e)))
                    .await
                    .map_err(to_audit)?;
                blocks.push(Block {
                    arm,
                    runs: [from, to],
                    warm_up: relative_to(&warm_up, out),
                });
            }
        }
        let [a, c] = &arms;
        let so_far = |ongoing: &Ongoing<'_, '_, '_>| {
            AuditReport::of_audit(
                &plan.frozen.lock.sha256,
                &ongoing.snapshot(device).gate(pack),
                None,
            )
        };
        let (baseline, candidate) = (so_far(a), so_far(c));
        let comparison = compare_arms(plan, (&baseline, &candidate), out)?;
        let unknown: Vec<String> = comparison
            .criteria
            .iter()
            .filter(|c| c.outcome == Some(Outcome::Unknown))
            .map(|c| c.criterion_id.clone())
            .collect();
        if unknown.is_empty() || target >= builds.runs.max {
            break comparison;
        }
        target = (target * 2).min(builds.runs.max);
        reporter.event(Event::Escalated {
            runs: target,
            unknown: &unknown,
        });
    };
    let [mut a, mut c] = arms;
    for (arm, ongoing) in [(Arm::Baseline, &mut a), (Arm::Candidate, &mut c)] {
        ongoing
            .settle(device)
            .await
            .map_err(|source| AbError::Audit { arm, source })?;
    }
    let mut written = Vec::new();
    let mut publish = |arm: Arm, ongoing: Ongoing<'_, '_, '_>| {
        let dir = folder(arm);
        let audited = ongoing
            .finish(device)
            .map_err(|source| AbError::Audit { arm, source })?
            .gate(pack);
        let lock = Some(relative_to(&plan.lock, &dir));
        let report = AuditReport::of_audit(&plan.frozen.lock.sha256, &audited, lock);
        let forms = publish::audit(&report, pack, &audited.figures, &dir)?;
        let json = relative_to(&forms.json, out);
        // The comparison is bound to the bytes it compared.
        let sha256 = publish::json(&report);
        written.extend(forms.paths());
        Ok::<_, AbError>((report, (json, crate::hash::sha256_hex(sha256.as_bytes()))))
    };
    let (baseline, base_json) = publish(Arm::Baseline, a)?;
    let (candidate, cand_json) = publish(Arm::Candidate, c)?;
    // The last round's comparison stands (its snapshots held the runs the published reports
    // hold, so `verify-evidence` recomputes the same numbers); it now names their files.
    let ((base_json, base_sha), (cand_json, cand_sha)) = (base_json, cand_json);
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
    let compared = publish::comparison(&comparison, out)?;
    // The history was opened before the device was touched; a failure now leaves the
    // session whole and says what was not recorded.
    let mut unrecorded = None;
    if let Some(history) = &plan.history {
        let reports = [
            (
                out.join(&comparison.baseline.report),
                Some(Arm::Baseline.as_str()),
            ),
            (
                out.join(&comparison.candidate.report),
                Some(Arm::Candidate.as_str()),
            ),
            (compared[0].clone(), None),
        ];
        for (i, (path, arm)) in reports.iter().enumerate() {
            if let Err(e) = super::one::record(history, path, *arm).await {
                let missed: Vec<String> = reports[i..]
                    .iter()
                    .map(|(path, _)| relative_to(path, out))
                    .collect();
                unrecorded = Some(format!("{} ({})", chain(&e), missed.join(", ")));
                break;
            }
        }
    }
    written.extend(compared);
    let record = AbRecord::new(
        [
            (&builds.baseline.hap, &builds.baseline.version),
            (&builds.candidate.hap, &builds.candidate.version),
        ],
        [builds.runs.first, builds.runs.max],
        blocks,
        (&baseline, &candidate),
        &comparison,
    );
    let record = AbRecord {
        unrecorded,
        ..record
    };
    Ok(AbSession {
        comparison,
        record,
        candidate,
        written,
    })
}

/// Begins an arm's audit in its folder `dir`.
async fn begin<'p, 's, 'a>(
    device: &impl Device,
    prepared: &'p Prepared<'s, 'a>,
    arm: Arm,
    dir: &Path,
) -> Result<Ongoing<'p, 's, 'a>, AbError> {
    let to_audit = |source| AbError::Audit { arm, source };
    std::fs::create_dir_all(dir).map_err(|source| {
        to_audit(AuditError::Keep {
            path: dir.to_owned(),
            source,
        })
    })?;
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
        plan.frozen,
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
