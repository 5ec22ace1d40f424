//! An audit decided before anything starts: what it is held against, where it measures, in
//! which mode (an audit with its runs, or a same-device A/B of two builds with its runs per
//! arm), where it reports and what it records. Every default and every refusal of the audit's
//! shapes lives here, so a command only translates its arguments, and `deliver` builds the
//! same plan for each round.

use std::borrow::Cow;
use std::num::NonZeroU32;
use std::path::{Path, PathBuf};

use crate::attest::Signing;
use crate::audit::Required;
use crate::audit::{InstalledHap, Workspace};
use crate::diagnostic::Diagnostic;
use crate::gate::AuditorFile;
use crate::history::Recorder;
use crate::pack::Frozen;
use crate::playbook::Playbooks;
use crate::schema::{Arm, files};
use crate::target::Target;

use super::builds::{ArmRuns, Build, Builds};

/// What the session does on each device.
#[derive(Clone, Debug)]
pub(crate) enum Task {
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

/// Where an audit's pack and playbooks come from.
pub(crate) enum PackSource<'a> {
    /// As the user named them (`dwpipe audit`): the plan loads and checks each.
    Named {
        /// The frozen pack (`pack.lock.json`).
        lock: PathBuf,
        /// Playbooks overriding the embedded ones.
        playbooks: Option<PathBuf>,
        /// The config whose `device.require` applies (default: `./dwpipe.yaml` when there is
        /// one).
        config: Option<PathBuf>,
    },
    /// Loaded already by a delivery, which reads its config itself (`require` carries its
    /// `device.require`).
    Loaded {
        /// The frozen pack.
        frozen: &'a Frozen,
        /// Where its lock is (the reports name it relative to their folder).
        lock: PathBuf,
        /// The playbooks.
        playbooks: &'a Playbooks,
    },
}

/// What a command asked for, as it was said, before it is validated into an [`AuditPlan`].
pub(crate) struct Request<'a> {
    /// The pack and the playbooks.
    pub(crate) pack: PackSource<'a>,
    /// Where to measure.
    pub(crate) target: Target,
    /// A capture folder to record a live device into (one device).
    pub(crate) record: Option<PathBuf>,
    /// The reports' folder (default: a new `.dwpipe/audit-<time>/`).
    pub(crate) out: Option<PathBuf>,
    /// `--runs` (per arm in an A/B session).
    pub(crate) runs: Option<u32>,
    /// The two builds of an A/B session, and `--max-runs`.
    pub(crate) ab: Option<(PathBuf, PathBuf, Option<u32>)>,
    /// The history to record into.
    pub(crate) history: Option<Recorder>,
    /// A replay that leaves recorded exchanges unserved fails the audit.
    pub(crate) strict: bool,
    /// An outside auditor's report for what no probe measures (one device).
    pub(crate) auditor: Option<PathBuf>,
    /// The verified build to install first.
    pub(crate) build: BuildUnderTest,
    /// Preconditions on each device's state besides the pack's and the config's (`--require`).
    pub(crate) require: Vec<Required>,
    /// The private key to attest each audit with (`--sign-key`, dwpipe.yaml's `attest:`).
    pub(crate) sign_key: Option<PathBuf>,
    /// The HAPs the attestations name where an audit installed none (`--subject`).
    pub(crate) subjects: Vec<PathBuf>,
}

/// An audit, validated: every shape of it (one device or a capture, a lab, an A/B session on
/// either) runs from one of these.
pub(crate) struct AuditPlan<'a> {
    /// The frozen pack (what loading it found is in its `found`, for the command to show).
    pub(crate) frozen: Cow<'a, Frozen>,
    /// Where its lock is.
    pub(crate) lock: PathBuf,
    /// The playbooks.
    pub(crate) playbooks: Cow<'a, Playbooks>,
    /// Where to measure (a live device carries the capture it is recorded into).
    pub(crate) target: Target,
    /// Audit or A/B.
    pub(crate) task: Task,
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
pub(crate) enum AuditPlanError {
    /// The arguments do not make an audit, or what they name is refused.
    #[error("{}", .0.first().map_or("the audit's input is refused", |d| d.message.as_str()))]
    Invalid(Vec<Diagnostic>),
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

impl From<Diagnostic> for AuditPlanError {
    fn from(diagnostic: Diagnostic) -> AuditPlanError {
        AuditPlanError::Invalid(vec![diagnostic])
    }
}

impl From<Vec<Diagnostic>> for AuditPlanError {
    fn from(found: Vec<Diagnostic>) -> AuditPlanError {
        AuditPlanError::Invalid(found)
    }
}

impl<'a> AuditPlan<'a> {
    /// Validates a request: the options a lab cannot take, the A/B runs and builds, the
    /// reports' folder (created; an A/B session's must hold no earlier session).
    pub(crate) fn new(request: Request<'a>) -> Result<AuditPlan<'a>, AuditPlanError> {
        let Request {
            pack,
            mut target,
            record,
            out,
            runs,
            ab,
            history,
            strict,
            auditor,
            build,
            mut require,
            sign_key,
            subjects,
        } = request;
        // Refused in the order a reader meets them: the lock, the playbooks, the auditor's
        // report, then dwpipe.yaml's preconditions.
        let (frozen, lock, playbooks, config) = match pack {
            PackSource::Named {
                lock,
                playbooks,
                config,
            } => {
                let frozen = crate::pack::load_lock(&lock)?;
                let playbooks = Playbooks::load(playbooks.as_deref())?;
                (
                    Cow::Owned(frozen),
                    lock,
                    Cow::Owned(playbooks),
                    Some(config),
                )
            }
            PackSource::Loaded {
                frozen,
                lock,
                playbooks,
            } => (Cow::Borrowed(frozen), lock, Cow::Borrowed(playbooks), None),
        };
        let auditor = auditor
            .as_deref()
            .map(crate::gate::load_auditor_report)
            .transpose()?;
        if let Some(config) = config {
            require.splice(0..0, config_required(config)?);
        }
        let out = crate::output::default_out(out.as_deref(), "audit");
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
        let task = match ab {
            None => Task::Audit {
                runs: runs.and_then(NonZeroU32::new),
            },
            Some((baseline, candidate, max_runs)) => Task::Ab(Box::new(Builds {
                runs: ArmRuns::new(runs, max_runs)?,
                baseline: Build::hashed(&baseline, "the baseline HAP")?,
                candidate: Build::hashed(&candidate, "the candidate HAP")?,
            })),
        };
        std::fs::create_dir_all(&out).map_err(|source| AuditPlanError::Folder {
            path: out.clone(),
            source,
        })?;
        if matches!(task, Task::Ab(_)) {
            fresh_for_ab(&out)?;
        }
        Ok(AuditPlan {
            frozen,
            lock,
            playbooks,
            target,
            task,
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
        match &self.task {
            Task::Audit { runs } => runs.map(NonZeroU32::get),
            Task::Ab(_) => None,
        }
    }
}

/// The preconditions dwpipe.yaml's `device.require` states (`config`, else `./dwpipe.yaml`
/// when there is one), named as its.
fn config_required(config: Option<PathBuf>) -> Result<Vec<Required>, Diagnostic> {
    let Some(path) = config.or_else(crate::config::in_current_folder) else {
        return Ok(Vec::new());
    };
    Ok(crate::config::Config::load(&path)?
        .device
        .require
        .into_iter()
        .map(|condition| Required {
            condition,
            by: crate::config::CONFIG_FILE.to_owned(),
        })
        .collect())
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
