//! The verification gate (DESIGN §6): the declared commands run in the workspace (argv, own
//! process group, timeout), bracketed by workspace fingerprints. A pass is only evidence for
//! the fingerprint it was taken at; a workspace that changed during verification is verified
//! once more; failures get a normalized fingerprint so the repair loop can tell repeats.

mod failure;
mod fingerprint;
mod hvigor;

use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use crate::config::{VerifyCommand, VerifyKind};
use crate::hash::sha256_hex;
use crate::process::{Cancel, Completion, Line, ProcessSpec, SpawnError, run};
use crate::words::words;

pub(crate) use failure::fingerprint as failure_fingerprint;
pub(crate) use fingerprint::{FingerprintError, StatCache, fingerprint, newest_change};
pub(crate) use hvigor::CompileError;
use hvigor::{HvigorLog, HvigorOutcome};

/// How much of a command's output a report keeps (its tail).
const OUTPUT_TAIL_CHARS: usize = 8000;

words! {
    /// How one command ended.
    pub(crate) enum CommandStatus {
        /// Exit 0.
        Pass = "pass",
        /// Any other exit, or a signal.
        Fail = "fail",
        /// Stopped at its time limit.
        Timeout = "timeout",
        /// Its output shows neither a pass nor a failure (`kind: hvigor`): never a pass.
        Inconclusive = "inconclusive",
    }
}

/// One verification command's record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct CommandOutcome {
    /// Its configured name.
    pub(crate) name: String,
    /// The argv, shown.
    pub(crate) command: String,
    /// How it ended.
    pub(crate) status: CommandStatus,
    /// Its exit code, when it exited.
    pub(crate) exit_code: Option<i32>,
    /// Wall-clock time.
    pub(crate) duration_ms: u64,
    /// The end of its output (stdout, then stderr).
    pub(crate) output_tail: String,
    /// SHA-256 of the output kept.
    pub(crate) output_sha256: String,
    /// The normalized failure fingerprint, for failures.
    pub(crate) failure_fingerprint: Option<String>,
    /// It left processes running when it exited (they were stopped).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) leaked: bool,
    /// Why it is inconclusive (or why a `kind: hvigor` command failed despite its exit code).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) reason: Option<String>,
    /// The compiler errors its output named (`kind: hvigor`), as structured items.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) errors: Vec<CompileError>,
}

/// `verify-<n>.json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct VerifyReport {
    /// Report format.
    pub(crate) format_version: u32,
    /// The repair round (0 for the first dispatch).
    pub(crate) round: u32,
    /// The workspace fingerprint before the commands ran.
    pub(crate) fingerprint_before: String,
    /// After them (equal to before, or the commands ran again).
    pub(crate) fingerprint_after: String,
    /// The workspace changed during the first verification, so it ran once more.
    pub(crate) rerun: bool,
    /// `pass` only when every command passed.
    pub(crate) verdict: CommandStatus,
    /// Every command.
    pub(crate) commands: Vec<CommandOutcome>,
}

impl VerifyReport {
    /// Whether this pass still stands for the workspace as it is now.
    pub(crate) fn is_fresh(&self, current_fingerprint: &str) -> bool {
        self.verdict == CommandStatus::Pass && self.fingerprint_after == current_fingerprint
    }

    /// One fingerprint for the round's failures (`None` when it passed).
    pub(crate) fn failure_fingerprint(&self) -> Option<String> {
        let mut failed: Vec<&str> = self
            .commands
            .iter()
            .filter_map(|c| c.failure_fingerprint.as_deref())
            .collect();
        failed.sort_unstable();
        (!failed.is_empty()).then(|| sha256_hex(failed.join("\n").as_bytes()))
    }
}

/// Why verification could not run.
#[derive(Debug, thiserror::Error)]
pub(crate) enum VerifyError {
    /// A command's program does not exist.
    #[error("verification command `{name}`: `{program}` not found")]
    CommandNotFound {
        /// The command's name.
        name: String,
        /// The program tried.
        program: String,
    },
    /// The workspace could not be fingerprinted.
    #[error(transparent)]
    Fingerprint(#[from] FingerprintError),
    /// Another spawn failure.
    #[error("verification command `{name}` could not start")]
    Spawn {
        /// The command's name.
        name: String,
        /// Why.
        #[source]
        source: SpawnError,
    },
    /// Ctrl-C.
    #[error("cancelled")]
    Cancelled,
}

impl VerifyError {
    /// The stable code.
    pub(crate) fn code(&self) -> &'static str {
        match self {
            VerifyError::CommandNotFound { .. } => "E_VERIFY_COMMAND_NOT_FOUND",
            VerifyError::Fingerprint(_) => "E_VERIFY_FINGERPRINT",
            VerifyError::Spawn { .. } => "E_VERIFY_SPAWN",
            VerifyError::Cancelled => "E_INTERRUPTED",
        }
    }
}

fn tail(text: &str) -> String {
    let count = text.chars().count();
    text.chars()
        .skip(count.saturating_sub(OUTPUT_TAIL_CHARS))
        .collect()
}

async fn run_command(
    workspace: &Path,
    command: &VerifyCommand,
    cancel: &Cancel,
) -> Result<CommandOutcome, VerifyError> {
    let (program, args) = command
        .argv
        .split_first()
        .expect("validated: argv is never empty");
    let mut spec = ProcessSpec::new(program, args).timeout(command.timeout);
    spec.cwd = Some(workspace.to_owned());
    let hvigor =
        (command.kind == VerifyKind::Hvigor).then(|| Arc::new(Mutex::new(HvigorLog::default())));
    if let Some(log) = &hvigor {
        let log = Arc::clone(log);
        spec.lines = Some(Arc::new(Mutex::new(move |line: Line<'_>| {
            log.lock()
                .unwrap_or_else(PoisonError::into_inner)
                .observe(line);
        })));
    }
    let outcome = run(&spec, cancel).await.map_err(|e| match e {
        SpawnError::NotFound { .. } => VerifyError::CommandNotFound {
            name: command.name.clone(),
            program: program.clone(),
        },
        source => VerifyError::Spawn {
            name: command.name.clone(),
            source,
        },
    })?;
    let output = format!(
        "{}{}",
        outcome.stdout.to_string_lossy(),
        outcome.stderr.to_string_lossy()
    );
    let (mut status, exit_code) = match outcome.completion {
        Completion::Exited(0) => (CommandStatus::Pass, Some(0)),
        Completion::Exited(code) => (CommandStatus::Fail, Some(code)),
        Completion::Signalled(_) => (CommandStatus::Fail, None),
        Completion::TimedOut => (CommandStatus::Timeout, None),
        Completion::Cancelled => return Err(VerifyError::Cancelled),
    };
    let (mut reason, mut errors) = (None, Vec::new());
    if let Some(log) = hvigor
        && status != CommandStatus::Timeout
    {
        // hvigor's exit code says nothing either way: its conclusion lines do.
        let mut log = log.lock().unwrap_or_else(PoisonError::into_inner);
        let is_test = command
            .argv
            .iter()
            .any(|a| a == "test" || a == "onDeviceTest");
        let fresh = (!command.haps.is_empty()).then(|| haps_fresh(workspace, &command.haps));
        (status, reason) = match log.outcome(is_test, fresh) {
            HvigorOutcome::Pass => (CommandStatus::Pass, None),
            HvigorOutcome::Fail => (
                CommandStatus::Fail,
                (exit_code == Some(0))
                    .then(|| "hvigor exited 0, but its output shows a failure".to_owned()),
            ),
            HvigorOutcome::Inconclusive(why) => (CommandStatus::Inconclusive, Some(why)),
        };
        errors = log.errors().to_vec();
    }
    // The first release hashed the status's Debug name; kept, so fingerprints stay comparable.
    let exit_text = exit_code.map_or_else(|| format!("{status:?}"), |c| c.to_string());
    Ok(CommandOutcome {
        name: command.name.clone(),
        command: command.argv.join(" "),
        status,
        exit_code,
        duration_ms: u64::try_from(outcome.duration.as_millis()).unwrap_or(u64::MAX),
        failure_fingerprint: (status != CommandStatus::Pass)
            .then(|| failure_fingerprint(&exit_text, &output)),
        output_sha256: sha256_hex(output.as_bytes()),
        output_tail: tail(&output),
        leaked: outcome.leaked,
        reason,
        errors,
    })
}

/// Whether every declared HAP exists and is not older than the workspace's newest source
/// file (an up-to-date build does not rewrite it, so an old HAP is not this code's).
fn haps_fresh(workspace: &Path, haps: &[std::path::PathBuf]) -> Result<(), String> {
    let modified = |path: &Path| std::fs::metadata(path).and_then(|m| m.modified()).ok();
    // The previewer's output is not source either.
    let newest_source = newest_change(workspace, &[".preview"]).unwrap_or(SystemTime::UNIX_EPOCH);
    for hap in haps {
        match modified(&workspace.join(hap)) {
            None => {
                return Err(format!(
                    "the declared HAP `{}` was not built",
                    hap.display()
                ));
            }
            Some(built) if built < newest_source => {
                return Err(format!(
                    "the declared HAP `{}` is older than the newest source file: it is not this code's build",
                    hap.display()
                ));
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// Runs every command once, fingerprinting the workspace before and after.
async fn verify_once(
    workspace: &Path,
    commands: &[VerifyCommand],
    cache: &mut StatCache,
    cancel: &Cancel,
) -> Result<(String, String, Vec<CommandOutcome>), VerifyError> {
    let before = fingerprint(workspace, cache, cancel).await?;
    let mut outcomes = Vec::with_capacity(commands.len());
    for command in commands {
        outcomes.push(run_command(workspace, command, cancel).await?);
    }
    let after = fingerprint(workspace, cache, cancel).await?;
    Ok((before, after, outcomes))
}

/// The verification gate for one round.
pub(crate) async fn verify(
    workspace: &Path,
    commands: &[VerifyCommand],
    round: u32,
    cache: &mut StatCache,
    cancel: &Cancel,
) -> Result<VerifyReport, VerifyError> {
    let (mut before, mut after, mut outcomes) =
        verify_once(workspace, commands, cache, cancel).await?;
    let rerun = before != after;
    if rerun {
        // The workspace moved under the commands: their results describe neither state.
        (before, after, outcomes) = verify_once(workspace, commands, cache, cancel).await?;
    }
    let verdict = if outcomes.iter().all(|o| o.status == CommandStatus::Pass) {
        CommandStatus::Pass
    } else {
        CommandStatus::Fail
    };
    Ok(VerifyReport {
        format_version: crate::format::VERIFY,
        round,
        fingerprint_before: before,
        fingerprint_after: after,
        rerun,
        verdict,
        commands: outcomes,
    })
}

#[cfg(test)]
mod tests;
