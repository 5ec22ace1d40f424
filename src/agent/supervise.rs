//! One dispatch of a command agent or DevEco Code, supervised: its stdout read line by line in
//! bounded memory (the claim, the events, the stream's own judgement), stopped when it stalls,
//! its session exported as evidence.

use super::deveco::{Stream, watchdog};
use super::{AgentEnd, AgentError, CLAIM};
use crate::agent::Claim;
use crate::config::{Agent, AgentKind};
use crate::process::{
    Cancel, Completion, Line, Pipe, ProcessOutcome, ProcessSpec, SpawnError, run,
};
use std::fmt::Write;
use std::future::Future;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};
use tokio::sync::watch;

/// The longest line of the agent's stdout read whole: an event carrying a large file's diff
/// is still one event. Longer lines arrive in windows, and an event that cannot be read whole
/// leaves the run not shown to have finished.
pub(super) const AGENT_LINE: usize = 16 * 1024 * 1024;
/// Tools named in the record at most (the count goes on).
pub(super) const MAX_TOOLS: usize = 200;

/// What the agent's stdout said, read line by line as it arrived — every line, whatever the
/// kept log drops — in bounded memory: counts, the claim, the tools' names up to a bound, and
/// the stream's own judgement ([`Stream`]).
#[derive(Debug, Default)]
pub(super) struct Reading {
    pub(super) claim: Option<Claim>,
    pub(super) events: usize,
    pub(super) unparsed: usize,
    pub(super) tools: Vec<String>,
    pub(super) stream: Stream,
}

impl Reading {
    /// One line of the agent's stdout: JSON events of `{type, part: {...}}` (DevEco Code /
    /// OpenCode), or plain text from a command agent. The last `Result: …` found wins.
    pub(crate) fn line(&mut self, line: Line<'_>) {
        if line.pipe != Pipe::Out {
            return;
        }
        let trimmed = line.text.trim();
        if trimmed.is_empty() {
            return;
        }
        let text = if trimmed.starts_with('{') || line.cut {
            if line.cut {
                self.stream.unreadable();
                return;
            }
            match serde_json::from_str::<serde_json::Value>(trimmed) {
                Ok(event) => {
                    self.events += 1;
                    self.stream.event(&event);
                    if event["type"] == "tool_use" && self.tools.len() < MAX_TOOLS {
                        self.tools
                            .push(event["part"]["tool"].as_str().unwrap_or("?").to_owned());
                    }
                    // Text parts, and the output of a tool (the spec-verify report arrives there).
                    event["part"]["text"]
                        .as_str()
                        .or(event["part"]["state"]["output"].as_str())
                        .unwrap_or("")
                        .to_owned()
                }
                Err(_) => {
                    self.unparsed += 1;
                    return;
                }
            }
        } else {
            trimmed.to_owned()
        };
        if let Some(claim) = last_claim(&text) {
            self.claim = Some(claim);
        }
    }
}

/// The last `Result: PASS|FAIL|INCOMPLETE` in `text`, if any.
pub(crate) fn last_claim(text: &str) -> Option<Claim> {
    let found = CLAIM.captures_iter(text).last()?;
    Some(match found[1].to_uppercase().as_str() {
        "PASS" => Claim::Pass,
        "FAIL" => Claim::Fail,
        _ => Claim::Incomplete,
    })
}

/// Why a stalled run was stopped.
pub(super) fn stalled(idle: Duration) -> String {
    format!("stalled: no event and no change in the workspace for {idle:?}")
}

/// The process spec of one dispatch: argv, the workspace as its directory, the configured
/// environment and, for DevEco Code, its inline configuration.
pub(super) fn spec(
    agent: &Agent,
    workspace: &Path,
    argv: &[String],
) -> Result<ProcessSpec, AgentError> {
    let (program, args) = argv.split_first().ok_or(AgentError::NoArgv)?;
    let mut spec = ProcessSpec::new(program, args)
        .timeout(agent.timeout)
        .grace(Duration::from_secs(5));
    spec.cwd = Some(workspace.to_owned());
    spec.env = agent
        .env
        .iter()
        .map(|(k, v)| (k.into(), v.into()))
        .collect();
    // The runtime's own configuration, inline (a provider, a model, its permissions).
    if let (AgentKind::Deveco, Some(config)) = (agent.kind, &agent.config) {
        spec.env
            .push((agent.config_env.clone().into(), config.clone().into()));
    }
    spec.line_limit = AGENT_LINE;
    Ok(spec)
}

/// The agent's process as it ran, under its time limit and, where watched, the idle watchdog.
pub(super) struct Supervised {
    pub(super) outcome: ProcessOutcome,
    pub(super) end: AgentEnd,
    /// The watchdog stopped it.
    pub(super) stalled: bool,
}

impl Supervised {
    /// Stores stdout, stderr and dwpipe's own notes about the run as the agent's log.
    pub(crate) fn keep_log(
        &self,
        log: &Path,
        agent: &Agent,
        notes: &[String],
    ) -> Result<(), AgentError> {
        let mut text = self.outcome.stdout.to_string_lossy();
        let stderr = self.outcome.stderr.to_string_lossy();
        if !stderr.is_empty() {
            text.push_str("\n--- stderr ---\n");
            text.push_str(&stderr);
        }
        if self.outcome.leaked {
            // Stopped with its group (or, if it left the group, still running): whoever reads
            // the log should know.
            text.push_str(
                "\n--- dwpipe: the agent left processes running when it exited; they were stopped ---\n",
            );
        }
        if self.stalled {
            let _ = write!(
                text,
                "\n--- dwpipe: no event and no change in the workspace for {:?}: the run was stopped ---\n",
                agent.idle_timeout
            );
        }
        for note in notes {
            let _ = write!(text, "\n--- dwpipe: {note} ---\n");
        }
        crate::output::write_atomic(log, text.as_bytes()).map_err(AgentError::Log)
    }
}

/// Runs the agent's process with `observe` seeing each line, `beside` running alongside (given
/// a flag that turns true once the process has ended, and the process's own stop), and, when
/// `watched`, the idle watchdog once `armed`.
pub(super) async fn supervise<F, T>(
    agent: &Agent,
    workspace: &Path,
    spec: &mut ProcessSpec,
    mut observe: impl FnMut(Line<'_>) + Send + 'static,
    (watched, armed): (bool, &AtomicBool),
    beside: impl FnOnce(watch::Receiver<bool>, Cancel) -> F,
    cancel: &Cancel,
) -> Result<(Supervised, T), AgentError>
where
    F: Future<Output = T>,
{
    let last_line = Arc::new(Mutex::new(Instant::now()));
    let seen = Arc::clone(&last_line);
    spec.lines = Some(Arc::new(Mutex::new(move |line: Line<'_>| {
        *seen.lock().unwrap_or_else(PoisonError::into_inner) = Instant::now();
        observe(line);
    })));
    let (stop, done, stalled) = (
        cancel.child(),
        AtomicBool::new(false),
        AtomicBool::new(false),
    );
    let (ended, exited) = watch::channel(false);
    let spec = &*spec;
    let running = async {
        let outcome = run(spec, &stop).await;
        done.store(true, Ordering::Relaxed);
        let _ = ended.send(true);
        outcome
    };
    let watching = async {
        if watched {
            watchdog(
                workspace,
                agent.idle_timeout,
                (&last_line, armed),
                &done,
                &stop,
                &stalled,
            )
            .await;
        }
    };
    let (outcome, (), alongside) = tokio::join!(running, watching, beside(exited, stop.clone()));
    let outcome = outcome.map_err(|e| match e {
        SpawnError::NotFound { program } => AgentError::NotFound(program.display().to_string()),
        other => AgentError::Spawn(other),
    })?;
    let stalled = stalled.load(Ordering::Relaxed);
    let end = match outcome.completion {
        Completion::Exited(code) => AgentEnd::Exited(code),
        Completion::Signalled(signal) => AgentEnd::Signalled(signal),
        Completion::TimedOut => AgentEnd::TimedOut(agent.timeout),
        // Stopped by dwpipe itself, not by a signal to dwpipe: the watchdog, or a channel
        // that closed the agent after its turn.
        Completion::Cancelled if !cancel.is_cancelled() => AgentEnd::Signalled(15),
        Completion::Cancelled => return Err(AgentError::Cancelled),
    };
    Ok((
        Supervised {
            outcome,
            end,
            stalled,
        },
        alongside,
    ))
}
