//! The two builds of an A/B session: each HAP resolved, hashed and its version read before
//! anything is installed, and how many runs each arm gets.

use std::path::{Path, PathBuf};

use crate::audit::InstalledHap;
use crate::diagnostic::{Diagnostic, chain};
use crate::input::resolve_hap;
use crate::schema::{Arm, BuildVersion};

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

#[cfg(test)]
mod tests;
