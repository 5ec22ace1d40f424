//! A delivery decided before anything starts: what `deliver` or a stop hook's gate was asked
//! (a [`DeliverRequest`]), validated into everything the run needs — the config, the target,
//! the pack, the playbooks, the run to start or pick up, the history, the preflight checks —
//! with the workspace claimed. The project's defaults (the pack beside the config, the history
//! beside the runs) are spelled here once; a command only translates its arguments.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::config::Config;
use crate::diagnostic::Diagnostic;
use crate::history::Store;
use crate::output::dir_or_dot;
use crate::pack::Frozen;
use crate::playbook::Playbooks;
use crate::preflight::{self, Check};
use crate::target::{HdcClient, Target};

use super::claim::{Claim, ClaimError, claim};
use super::run_dir::{RUNS_FOLDER, default_history};
use super::run_dir::{RunDir, RunDirError};
use crate::schema::RunTarget;

/// The pack a delivery takes when none is named (as `dwpipe init` writes it).
pub(crate) const DEFAULT_PACK: &str = "pack.yaml";

/// What a delivery was asked, as the command line said it.
#[derive(Debug)]
pub(crate) struct DeliverRequest {
    /// `dwpipe.yaml`.
    pub(crate) config: PathBuf,
    /// The pack (default: [`DEFAULT_PACK`] in the current folder).
    pub(crate) pack: Option<PathBuf>,
    /// The folder holding `.dwpipe/` (default: the config's folder).
    pub(crate) out: Option<PathBuf>,
    /// Where to measure (default: the config's `device:`).
    pub(crate) target: Option<Target>,
    /// Playbooks overriding the embedded ones.
    pub(crate) playbooks: Option<PathBuf>,
    /// A replay that leaves recorded exchanges unserved fails the audit.
    pub(crate) strict: bool,
    /// A delivery, or a stop hook's gate.
    pub(crate) mode: Mode,
    /// The private key to attest the audits with, over dwpipe.yaml's `attest: { key }`.
    pub(crate) sign_key: Option<PathBuf>,
}

/// Which door the delivery came in by.
#[derive(Clone, Debug)]
pub(crate) enum Mode {
    /// `dwpipe deliver`: every stage, in a new run or one picked up again (`resume`: its
    /// folder, or its id as `dwpipe runs` lists it).
    Deliver {
        /// The run to continue.
        resume: Option<PathBuf>,
        /// Waive the outside reviewer.
        waive_review: bool,
    },
    /// A stop hook's gate: the agent ran in its harness; its work is verified and audited
    /// as `round` of the session (another gate on the workspace waited for up to `wait`).
    Gate {
        /// The session's round.
        round: u32,
        /// How long another session's gate is waited for.
        wait: Duration,
    },
}

/// What a planned delivery runs once its target is open: the request's [`Mode`], decided.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Door {
    /// Every stage (or what is left of a resumed run).
    Deliver {
        /// Waive the outside reviewer.
        waive_review: bool,
    },
    /// A stop hook's gate: the session's round `round`, on one device or one capture.
    Gate {
        /// The session's round.
        round: u32,
    },
}

/// The run the delivery writes into.
#[derive(Debug)]
pub(crate) enum Run {
    /// A new run, created under `base` once preflight passed.
    New {
        /// The folder holding `.dwpipe/`.
        base: PathBuf,
    },
    /// A run picked up again.
    Resumed(RunDir),
}

/// A delivery, validated: everything it needs, and the workspace claimed for it.
#[derive(Debug)]
pub(crate) struct DeliverPlan {
    /// The project's config, ready to deliver (its workspace absolute).
    pub(crate) config: Config,
    /// The pack, frozen.
    pub(crate) frozen: Frozen,
    /// The playbooks.
    pub(crate) playbooks: Playbooks,
    /// Where the audits measure.
    pub(crate) target: Target,
    /// The run it writes into.
    pub(crate) run: Run,
    /// Where every audit of the delivery is recorded.
    pub(crate) history: Store,
    /// What must be there before anything starts (the target's own checks come when it opens).
    pub(crate) checks: Vec<Check>,
    /// What it runs once the target is open.
    pub(crate) door: Door,
    /// A replay that leaves recorded exchanges unserved fails the audit.
    pub(crate) strict: bool,
    /// Held while the delivery lives: a second one on this workspace is refused (or waits).
    pub(crate) claim: Claim,
    /// The hdc client the target opens with (its leases beside the history when that is a
    /// server's, so every host sees them).
    pub(crate) hdc: HdcClient,
}

/// Why a delivery cannot start.
#[derive(Debug, thiserror::Error)]
pub(crate) enum DeliverPlanError {
    /// The config, the pack, the playbooks or the run to continue are refused.
    #[error("the delivery's input is refused ({} error(s))", .0.len())]
    Invalid(Vec<Diagnostic>),
    /// No device to audit on, said with everything else a first delivery would miss.
    #[error("no device to audit on")]
    NoDevice(Vec<Diagnostic>),
    /// The workspace is being delivered by another run, or cannot be locked.
    #[error(transparent)]
    Claim(#[from] ClaimError),
    /// The run to continue cannot be picked up.
    #[error(transparent)]
    RunDir(#[from] RunDirError),
}

impl From<Vec<Diagnostic>> for DeliverPlanError {
    fn from(found: Vec<Diagnostic>) -> DeliverPlanError {
        DeliverPlanError::Invalid(found)
    }
}

impl From<Diagnostic> for DeliverPlanError {
    fn from(found: Diagnostic) -> DeliverPlanError {
        DeliverPlanError::Invalid(vec![found])
    }
}

impl DeliverPlan {
    /// Validates `request`: everything that can be refused is refused here, before any
    /// process starts; `hdc` is the client the target will be opened with.
    pub(crate) fn new(
        request: &DeliverRequest,
        hdc: &HdcClient,
    ) -> Result<DeliverPlan, DeliverPlanError> {
        // The one place the door is told apart: what it reads, waits for and picks up.
        let (mut config, wait, resume, door) = match &request.mode {
            Mode::Deliver {
                resume,
                waive_review,
            } => (
                delivery_config(&request.config)?,
                Duration::ZERO,
                resume.as_deref(),
                Door::Deliver {
                    waive_review: *waive_review,
                },
            ),
            Mode::Gate { round, wait } => (
                gate_config(Config::load(&request.config).map_err(|d| vec![d])?)?,
                *wait,
                None,
                Door::Gate { round: *round },
            ),
        };
        if let Some(key) = &request.sign_key {
            config.sign_key = Some(key.clone());
        }
        // A key that cannot sign is refused now, not after an hour of agent and device.
        if let Some(key) = &config.sign_key {
            crate::attest::Signing::new(key, Vec::new())?;
        }
        let Some(target) = request.target.clone().or_else(|| config.device.target()) else {
            return Err(DeliverPlanError::NoDevice(no_device(&config, hdc, request)));
        };
        let claim = claim(&config.workspace, wait)?;
        let hdc = crate::history::leases_beside(hdc.clone(), config.history.as_ref());
        let base = request
            .out
            .clone()
            .unwrap_or_else(|| dir_or_dot(request.config.parent()).to_owned());
        let (frozen, run) = match resume {
            Some(run) => {
                // A bare id (as `dwpipe runs` lists it) names a folder of this project's runs.
                let run = if !run.exists() && run.components().count() == 1 {
                    base.join(RUNS_FOLDER).join(run)
                } else {
                    run.to_owned()
                };
                let (dir, frozen) =
                    RunDir::resume(&run, request.out.as_deref(), &RunTarget::of(&target))?;
                (frozen, Run::Resumed(dir))
            }
            None => (Frozen::open(&pack(request)?)?, Run::New { base }),
        };
        let playbooks = Playbooks::load(request.playbooks.as_deref())?;
        let mut checks = preflight::programs(&config);
        checks.extend(preflight::playbooks(&frozen.pack, &playbooks));
        // Every audit of the delivery is recorded in the project's history: it must be usable.
        let history = match &run {
            Run::Resumed(dir) => dir.history(&config),
            Run::New { base } => {
                checks.push(preflight::writable("run folder", base));
                default_history(&config, base)
            }
        };
        checks.push(preflight::history(&history));
        Ok(DeliverPlan {
            config,
            frozen,
            playbooks,
            target,
            run,
            history,
            checks,
            door,
            strict: request.strict,
            claim,
            hdc,
        })
    }
}

/// The pack to deliver: the one named, else [`DEFAULT_PACK`] in the current folder.
fn pack(request: &DeliverRequest) -> Result<PathBuf, Diagnostic> {
    match &request.pack {
        Some(pack) => Ok(pack.clone()),
        None if Path::new(DEFAULT_PACK).is_file() => Ok(PathBuf::from(DEFAULT_PACK)),
        None => Err(Diagnostic::error(
            "E_DELIVER_NO_PACK",
            "nothing to deliver: no --pack, and no pack.yaml in the current folder",
        )
        .fix("pass --pack pack.yaml, or --resume RUN to continue a run")),
    }
}

/// No device to audit on, said together with everything else a first delivery would miss (the
/// agent, the verification commands' programs, hdc, the pack's playbooks), so that one try
/// names every missing piece.
fn no_device(config: &Config, hdc: &HdcClient, request: &DeliverRequest) -> Vec<Diagnostic> {
    let mut checks = preflight::programs(config);
    checks.push(preflight::hdc(&hdc.binary));
    let playbooks = Playbooks::load(request.playbooks.as_deref());
    if let (Ok(pack), Ok(playbooks)) = (pack(request), &playbooks)
        && let Ok(frozen) = Frozen::open(&pack)
    {
        checks.extend(preflight::playbooks(&frozen.pack, playbooks));
    }
    let mut found = preflight::problems(&checks);
    found.insert(
        0,
        Diagnostic::error(
            "E_DELIVER_NO_DEVICE",
            "no device to audit on: neither --device/--replay nor `device:` in dwpipe.yaml",
        )
        .fix("pass --device SERIAL (see `dwpipe devices`) or --replay CAPTURE, or set `device:` in dwpipe.yaml"),
    );
    found
}

/// The config of a delivery: loaded, refused when it cannot deliver (no verification command,
/// no agent), and with its workspace made absolute (the agent and the verification commands
/// run inside it).
fn delivery_config(path: &Path) -> Result<Config, Vec<Diagnostic>> {
    ready(Config::load(path).map_err(|d| vec![d])?, true)
}

/// A loaded config made ready for a stop hook's gate: as a delivery's, but its agent runs
/// outside dwpipe (in the harness whose hook runs it), so none is needed and a configured one
/// is not run.
fn gate_config(config: Config) -> Result<Config, Vec<Diagnostic>> {
    let mut config = ready(config, false)?;
    config.agent = None;
    Ok(config)
}

/// A loaded config refused when it cannot deliver, with its workspace made absolute.
fn ready(mut config: Config, needs_agent: bool) -> Result<Config, Vec<Diagnostic>> {
    let missing = preflight(&config, needs_agent);
    if !missing.is_empty() {
        return Err(missing);
    }
    config.workspace = std::fs::canonicalize(&config.workspace).map_err(|e| {
        vec![
            Diagnostic::error(
                "E_DELIVER_WORKSPACE",
                format!("workspace `{}`: {e}", config.workspace.display()),
            )
            .fix("set `workspace:` in dwpipe.yaml to the app's source tree"),
        ]
    })?;
    Ok(config)
}

/// A diagnostic for a delivery that cannot start (no verification command, no agent).
fn preflight(config: &Config, needs_agent: bool) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    if config.verify.is_empty() {
        found.push(
            Diagnostic::error(
                "E_DELIVER_NO_VERIFY",
                "dwpipe.yaml declares no verification command",
            )
            .fix("add at least one `verify:` command (the build, the unit tests)"),
        );
    }
    if needs_agent && config.agent.is_none() {
        found.push(
            Diagnostic::error("E_DELIVER_NO_AGENT", "dwpipe.yaml configures no agent")
                .fix("add `agent: { kind: deveco }` or a command agent"),
        );
    }
    found
}
