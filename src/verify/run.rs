//! Each verification command run in the workspace, in order, until one fails; the built HAPs
//! shown fresh; the report with every command's outcome.

use super::hvigor::{HvigorLog, HvigorOutcome};
use super::{OUTPUT_TAIL_CHARS, VerifyError};
use super::{StatCache, failure_fingerprint, fingerprint, newest_change};
use crate::config::{VerifyCommand, VerifyKind};
use crate::hash::sha256_hex;
use crate::process::{Cancel, Completion, Line, ProcessSpec, SpawnError, run};
use crate::schema::{CommandOutcome, CommandStatus, VerifyReport};
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

pub(super) fn tail(text: &str) -> String {
    let count = text.chars().count();
    text.chars()
        .skip(count.saturating_sub(OUTPUT_TAIL_CHARS))
        .collect()
}

pub(super) async fn run_command(
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
pub(super) fn haps_fresh(workspace: &Path, haps: &[std::path::PathBuf]) -> Result<(), String> {
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
pub(super) async fn verify_once(
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
