//! An audit decided before anything starts: what it is held against, where it measures, in
//! which mode (an audit with its runs, or a same-device A/B of two builds with its runs per
//! arm), where it reports and what it records. Every default and every refusal of the audit's
//! shapes lives here, so a command only translates its arguments, and `deliver` builds the
//! same plan for each round.

use std::num::NonZeroU32;
use std::path::{Path, PathBuf};

use crate::attest::Signing;
use crate::audit::Required;
use crate::audit::{InstalledHap, Workspace};
use crate::diagnostic::{Diagnostic, chain};
use crate::gate::AuditorFile;
use crate::history::Recorder;
use crate::input::resolve_hap;
use crate::pack::Frozen;
use crate::playbook::Playbooks;
use crate::schema::BuildVersion;
use crate::schema::{Arm, files};
use crate::target::Target;

/// Runs per arm of an A/B session when none are asked for.
const AB_RUNS: u32 = 10;
/// Runs per arm at most of an A/B session when no bound is asked for.
const AB_MAX_RUNS: u32 = 40;

/// A build to install: its file on this host and what the audit records of it.
#[derive(Clone, Debug)]
pub(crate) struct Build {
    /// The HAP on this host.
    pub(crate) path: PathBuf,
    /// What the audit records of it (its file name, the SHA-256).
    pub(crate) hap: InstalledHap,
    /// Its version, as its `module.json` names it.
    pub(crate) version: BuildVersion,
}

impl Build {
    /// The HAP at `path`, resolved and hashed (the file hashed is the file installed);
    /// `what` names it in the refusal (`the baseline HAP`).
    pub(crate) fn hashed(path: &Path, what: &str) -> Result<Build, Diagnostic> {
        let hap = resolve_hap(path, None).map_err(|e| {
            Diagnostic::error(
                "E_AB_NO_HAP",
                format!("{what} cannot be installed: {}", chain(&e)),
            )
            .fix("pass the signed .hap files of both builds")
        })?;
        let version = std::fs::File::open(&hap.resolved)
            .map_err(|e| e.to_string())
            .and_then(|file| {
                crate::probe::hap::version(std::io::BufReader::new(file)).map_err(|e| chain(&e))
            })
            .map_or_else(
                |reason| BuildVersion::Unread { reason },
                |v| BuildVersion::Read {
                    name: v.name,
                    code: v.code,
                },
            );
        Ok(Build {
            version,
            path: hap.resolved,
            // Named by its file and digest wherever it is published: the host's path to it
            // says how the runner is laid out, and nothing about the build.
            hap: InstalledHap {
                path: path.file_name().map_or_else(
                    || path.display().to_string(),
                    |n| n.to_string_lossy().into_owned(),
                ),
                sha256: hap.sha256,
            },
        })
    }
}

/// Runs per arm of an A/B session: at least two (two blocks each), escalated up to `max`
/// while criteria stay unknown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ArmRuns {
    /// Runs per arm before any escalation.
    pub(crate) first: u32,
    /// Runs per arm at most.
    pub(crate) max: u32,
}

impl ArmRuns {
    /// `--runs` and `--max-runs` as given (defaults 10 and 40, the bound never below the
    /// runs asked for).
    pub(crate) fn new(runs: Option<u32>, max_runs: Option<u32>) -> Result<ArmRuns, Diagnostic> {
        let first = runs.unwrap_or(AB_RUNS);
        let max = max_runs.unwrap_or(AB_MAX_RUNS.max(first));
        if first < 2 || max < first {
            return Err(Diagnostic::error(
                "E_AB_RUNS",
                format!(
                    "--runs {first} --max-runs {max}: an A/B session needs at least 2 runs per \
                     arm (two blocks each), and --max-runs at least --runs"
                ),
            )
            .fix(format!(
                "the defaults are --runs {AB_RUNS} --max-runs {AB_MAX_RUNS}"
            )));
        }
        Ok(ArmRuns { first, max })
    }
}

/// The last release and the candidate, alternated on each device.
#[derive(Clone, Debug)]
pub(crate) struct Builds {
    /// The last release.
    pub(crate) baseline: Build,
    /// The candidate (left installed when the session ends).
    pub(crate) candidate: Build,
    /// How many runs per arm.
    pub(crate) runs: ArmRuns,
}

impl Builds {
    /// The build of `arm`.
    pub(crate) fn of(&self, arm: Arm) -> &Build {
        match arm {
            Arm::Baseline => &self.baseline,
            Arm::Candidate => &self.candidate,
        }
    }
}

/// What the session does on each device.
#[derive(Clone, Debug)]
pub(crate) enum Mode {
    /// An audit; its runs override every probe's when given.
    Audit {
        /// `--runs`.
        runs: Option<NonZeroU32>,
    },
    /// A same-device A/B of two builds.
    Ab(Box<Builds>),
}

/// The build a delivery verified, installed on each device before it is audited.
#[derive(Clone, Debug, Default)]
pub(crate) struct BuildUnderTest {
    /// The verified HAPs (path on this host, record).
    pub(crate) haps: Vec<(PathBuf, InstalledHap)>,
    /// The workspace they were built from.
    pub(crate) workspace: Option<Workspace>,
}

impl BuildUnderTest {
    /// What the audits record of the HAPs installed.
    pub(crate) fn installed(&self) -> Vec<InstalledHap> {
        self.haps.iter().map(|(_, hap)| hap.clone()).collect()
    }
}

/// What a command asked for, before it is validated into an [`AuditPlan`].
pub(crate) struct Request<'a> {
    /// The frozen pack.
    pub(crate) frozen: &'a Frozen,
    /// Where its lock is (the reports name it relative to their folder).
    pub(crate) lock: PathBuf,
    /// The playbooks.
    pub(crate) playbooks: &'a Playbooks,
    /// Where to measure.
    pub(crate) target: Target,
    /// A capture folder to record a live device into (one device).
    pub(crate) record: Option<PathBuf>,
    /// The reports' folder.
    pub(crate) out: PathBuf,
    /// `--runs` (per arm in an A/B session).
    pub(crate) runs: Option<u32>,
    /// The two builds of an A/B session, and `--max-runs`.
    pub(crate) ab: Option<(PathBuf, PathBuf, Option<u32>)>,
    /// The history to record into.
    pub(crate) history: Option<Recorder>,
    /// A replay that leaves recorded exchanges unserved fails the audit.
    pub(crate) strict: bool,
    /// An outside auditor's report for what no probe measures (one device).
    pub(crate) auditor: Option<AuditorFile>,
    /// The verified build to install first.
    pub(crate) build: BuildUnderTest,
    /// Preconditions on each device's state besides the pack's.
    pub(crate) require: Vec<Required>,
    /// The private key to attest each audit with (`--sign-key`, dwpipe.yaml's `attest:`).
    pub(crate) sign_key: Option<PathBuf>,
    /// The HAPs the attestations name where an audit installed none (`--subject`).
    pub(crate) subjects: Vec<PathBuf>,
}

/// An audit, validated: every shape of it (one device or a capture, a lab, an A/B session on
/// either) runs from one of these.
pub(crate) struct AuditPlan<'a> {
    /// The frozen pack.
    pub(crate) frozen: &'a Frozen,
    /// Where its lock is.
    pub(crate) lock: PathBuf,
    /// The playbooks.
    pub(crate) playbooks: &'a Playbooks,
    /// Where to measure (a live device carries the capture it is recorded into).
    pub(crate) target: Target,
    /// Audit or A/B.
    pub(crate) mode: Mode,
    /// The reports' folder, created.
    pub(crate) out: PathBuf,
    /// The history every audit and comparison is recorded in.
    pub(crate) history: Option<Recorder>,
    /// A replay that leaves recorded exchanges unserved fails the audit.
    pub(crate) strict: bool,
    /// An outside auditor's report for what no probe measures.
    pub(crate) auditor: Option<AuditorFile>,
    /// The verified build installed before each device is audited.
    pub(crate) build: BuildUnderTest,
    /// Preconditions on each device's state besides the pack's.
    pub(crate) require: Vec<Required>,
    /// The key each audit is attested with, read, and the HAPs to name.
    pub(crate) signing: Option<Signing>,
}

/// Why a plan was refused: the input, or the folder it reports into.
#[derive(Debug, thiserror::Error)]
pub(crate) enum PlanError {
    /// The arguments do not make an audit.
    #[error("{}", .0.message)]
    Invalid(Diagnostic),
    /// The reports' folder cannot be created.
    #[error("cannot create `{}`", path.display())]
    Folder {
        /// The folder.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

impl From<Diagnostic> for PlanError {
    fn from(diagnostic: Diagnostic) -> PlanError {
        PlanError::Invalid(diagnostic)
    }
}

impl<'a> AuditPlan<'a> {
    /// Validates a request: the options a lab cannot take, the A/B runs and builds, the
    /// reports' folder (created; an A/B session's must hold no earlier session).
    pub(crate) fn new(request: Request<'a>) -> Result<AuditPlan<'a>, PlanError> {
        let Request {
            frozen,
            lock,
            playbooks,
            mut target,
            record,
            out,
            runs,
            ab,
            history,
            strict,
            auditor,
            build,
            require,
            sign_key,
            subjects,
        } = request;
        // A lab takes neither a recording nor an outside auditor's report: both are of one
        // device (and a replay is already a recording).
        let one_live_device = matches!(target, Target::Device { .. });
        if (record.is_some() && !one_live_device) || (auditor.is_some() && target.is_lab()) {
            return Err(Diagnostic::error(
                "E_LAB_OPTION",
                "--record and --auditor-report take one device",
            )
            .fix("audit that device on its own")
            .into());
        }
        if let Target::Device { record: kept, .. } = &mut target {
            *kept = record;
        }
        // An attestation is about a HAP: an audit that installs none is told to name one.
        // (A delivery's round, whose workspace is known, may install nothing on a replay:
        // it says so when it attests, rather than refusing the round.)
        if sign_key.is_some()
            && subjects.is_empty()
            && ab.is_none()
            && build.haps.is_empty()
            && build.workspace.is_none()
        {
            return Err(Diagnostic::error(
                "E_ATTEST_SUBJECT",
                "--sign-key on an audit that installs nothing: the attestation names no HAP",
            )
            .fix("name the HAP on the device: --subject entry-default-signed.hap")
            .into());
        }
        let signing = sign_key
            .map(|key| Signing::new(&key, subjects))
            .transpose()?;
        let mode = match ab {
            None => Mode::Audit {
                runs: runs.and_then(NonZeroU32::new),
            },
            Some((baseline, candidate, max_runs)) => Mode::Ab(Box::new(Builds {
                runs: ArmRuns::new(runs, max_runs)?,
                baseline: Build::hashed(&baseline, "the baseline HAP")?,
                candidate: Build::hashed(&candidate, "the candidate HAP")?,
            })),
        };
        std::fs::create_dir_all(&out).map_err(|source| PlanError::Folder {
            path: out.clone(),
            source,
        })?;
        if matches!(mode, Mode::Ab(_)) {
            fresh_for_ab(&out)?;
        }
        Ok(AuditPlan {
            frozen,
            lock,
            playbooks,
            target,
            mode,
            out,
            history,
            strict,
            auditor,
            build,
            require,
            signing,
        })
    }

    /// `--runs`, when it overrides the pack and the playbooks (an audit's, not an A/B's).
    pub(crate) fn runs(&self) -> Option<u32> {
        match &self.mode {
            Mode::Audit { runs } => runs.map(NonZeroU32::get),
            Mode::Ab(_) => None,
        }
    }
}

/// An A/B session writes into a folder that holds no earlier session: its evidence would be
/// mixed with this one's.
fn fresh_for_ab(out: &Path) -> Result<(), Diagnostic> {
    let taken = [
        files::AB,
        Arm::Baseline.as_str(),
        Arm::Candidate.as_str(),
        files::WARM_UP,
    ]
    .iter()
    .map(|name| out.join(name))
    .find(|path| path.exists());
    match taken {
        Some(path) => Err(Diagnostic::error(
            "E_AB_OUT_TAKEN",
            format!(
                "`{}` is there already: an earlier session's evidence would be mixed with this one's",
                path.display()
            ),
        )
        .fix("pass an empty --out")),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arm_runs_take_their_defaults_and_refuse_what_cannot_alternate() {
        assert_eq!(
            ArmRuns::new(None, None).unwrap(),
            ArmRuns { first: 10, max: 40 }
        );
        assert_eq!(
            ArmRuns::new(Some(50), None).unwrap(),
            ArmRuns { first: 50, max: 50 },
            "the bound is never below the runs asked for"
        );
        assert_eq!(
            ArmRuns::new(Some(4), Some(8)).unwrap(),
            ArmRuns { first: 4, max: 8 }
        );
        for (runs, max) in [(Some(1), None), (Some(6), Some(4))] {
            let refused = ArmRuns::new(runs, max).unwrap_err();
            assert_eq!(refused.code, "E_AB_RUNS", "{runs:?} {max:?}");
        }
    }
}
