//! Agent adapters: dispatch a brief to DevEco Code in Goal mode (`deveco run --agent goal
//! --format json --dir <workspace> "<brief>"`) or to any command (`{brief}`, `{workspace}`,
//! `{round}` placeholders), through the process runner (own process group, timeout, bounded
//! output). The event stream is stored in `agent-<n>.log`; the agent's `PASS`/`FAIL`/
//! `INCOMPLETE` is extracted as a claim only: verification and the audit decide. For DevEco
//! Code dwpipe also derives how the run ended ([`deveco`]), stops it when it stalls (no event
//! and no change in the workspace for `agent.idle-timeout`), and keeps `deveco export` of its
//! session as evidence of what it did.

mod acp;
mod deveco;
pub(crate) mod permissions;
mod policy;

use std::fmt::Write;
use std::future::Future;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, LazyLock, Mutex, PoisonError};
use std::time::{Duration, Instant};

use regex::Regex;

use crate::config::{Agent, AgentKind};
use crate::output::WriteError;
use tokio::sync::watch;

use crate::process::{
    Cancel, Completion, Line, Pipe, ProcessOutcome, ProcessSpec, SpawnError, run,
};
pub(crate) use crate::schema::Claim;

pub(crate) use deveco::Ending;
use deveco::{Stream, export, watchdog};

/// How the agent's process ended (a signal from dwpipe itself is a cancellation, never this).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AgentEnd {
    /// It exited with this code.
    Exited(i32),
    /// A signal from elsewhere ended it.
    Signalled(i32),
    /// It ran past its time limit and was stopped.
    TimedOut(Duration),
}

impl AgentEnd {
    /// The stable code of an end that is not a finished run.
    pub(crate) fn code(self) -> &'static str {
        match self {
            AgentEnd::Exited(_) => "E_AGENT_EXIT",
            AgentEnd::Signalled(_) => "E_AGENT_SIGNALLED",
            AgentEnd::TimedOut(_) => "E_AGENT_TIMEOUT",
        }
    }

    /// Only an exit 0 within the time limit is a finished run, whatever the agent claims.
    pub(crate) fn is_clean(self) -> bool {
        self == AgentEnd::Exited(0)
    }
}

impl std::fmt::Display for AgentEnd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AgentEnd::Exited(code) => write!(f, "exited {code}"),
            AgentEnd::Signalled(signal) => write!(f, "killed by signal {signal}"),
            AgentEnd::TimedOut(after) => write!(f, "timed out after {after:?}"),
        }
    }
}

impl std::str::FromStr for AgentEnd {
    type Err = ();

    /// Reads what [`Display`](std::fmt::Display) wrote (the ledger's agent outcomes).
    fn from_str(text: &str) -> Result<AgentEnd, ()> {
        if let Some(code) = text.strip_prefix("exited ") {
            return code.parse().map(AgentEnd::Exited).map_err(drop);
        }
        if let Some(signal) = text.strip_prefix("killed by signal ") {
            return signal.parse().map(AgentEnd::Signalled).map_err(drop);
        }
        text.strip_prefix("timed out after ")
            .and_then(|after| crate::input::parse_duration(after).ok())
            .map(AgentEnd::TimedOut)
            .ok_or(())
    }
}

/// One dispatch's record.
#[derive(Clone, Debug)]
pub(crate) struct AgentRun {
    /// The claim (never the verdict).
    pub(crate) claim: Claim,
    /// How the process ended.
    pub(crate) end: AgentEnd,
    /// JSON event lines read.
    pub(crate) events: usize,
    /// Lines that looked like JSON events but did not parse.
    pub(crate) unparsed_lines: usize,
    /// `error` events' messages.
    pub(crate) errors: Vec<String>,
    /// Tools the agent used (`tool_use` events), in order.
    pub(crate) tools: Vec<String>,
    /// It left processes running when it exited (they were stopped).
    pub(crate) leaked: bool,
    /// For DevEco Code: how the run ended, by its stream (`None` for a command agent).
    pub(crate) ending: Option<Ending>,
    /// For DevEco Code: what became of `deveco export <session>`.
    pub(crate) export: Option<Result<(), String>>,
    /// Over ACP: the stop reason the agent answered the prompt with, if it answered.
    pub(crate) stop_reason: Option<String>,
    /// Over ACP: the answers dwpipe gave the agent's requests (how many, how many denied),
    /// recorded beside the log.
    pub(crate) answers: Option<(usize, usize)>,
}

/// The agent could not be run at all.
#[derive(Debug, thiserror::Error)]
pub(crate) enum AgentError {
    /// Its program is not installed.
    #[error("agent `{0}` not found")]
    NotFound(String),
    /// The configuration gives no program to run.
    #[error("the agent has no argv")]
    NoArgv,
    /// The OS refused to start it.
    #[error(transparent)]
    Spawn(SpawnError),
    /// Its log could not be written.
    #[error("cannot store the agent's output")]
    Log(#[source] WriteError),
    /// A signal stopped it.
    #[error("interrupted")]
    Cancelled,
}

impl AgentError {
    /// The stable code of the failure.
    pub(crate) fn code(&self) -> &'static str {
        match self {
            AgentError::NotFound(_) => "E_AGENT_NOT_FOUND",
            AgentError::NoArgv => "E_AGENT_NO_ARGV",
            AgentError::Spawn(_) => "E_AGENT_SPAWN",
            AgentError::Log(_) => "E_AGENT_LOG",
            AgentError::Cancelled => "E_INTERRUPTED",
        }
    }
}

static CLAIM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\bresult\s*:\s*\**\s*(PASS|FAIL|INCOMPLETE)\b").expect("static regex")
});

/// The argv for one dispatch. `brief_file` holds the brief; `deveco` gets the text itself.
/// Paths are made absolute: the agent runs inside the workspace, not where dwpipe was started.
pub(crate) fn argv(
    agent: &Agent,
    workspace: &Path,
    brief_file: &Path,
    brief: &str,
    round: u32,
) -> Vec<String> {
    let absolute = |path: &Path| std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    let (workspace, brief_file) = (absolute(workspace), absolute(brief_file));
    match agent.kind {
        AgentKind::Deveco => {
            let mut argv: Vec<String> = vec![
                agent.program.clone(),
                "run".into(),
                "--agent".into(),
                agent.mode.clone(),
                "--format".into(),
                "json".into(),
                "--dir".into(),
            ];
            argv.push(workspace.display().to_string());
            argv.extend(agent.argv.iter().cloned());
            argv.push(brief.to_owned());
            argv
        }
        // An ACP agent is started by its own argv ([`acp`]); a command agent's fills these in.
        AgentKind::Command | AgentKind::Acp => agent
            .argv
            .iter()
            .map(|arg| {
                arg.replace("{brief}", &brief_file.display().to_string())
                    .replace("{workspace}", &workspace.display().to_string())
                    .replace("{round}", &round.to_string())
            })
            .collect(),
    }
}

/// The longest line of the agent's stdout read whole: an event carrying a large file's diff
/// is still one event. Longer lines arrive in windows, and an event that cannot be read whole
/// leaves the run not shown to have finished.
const AGENT_LINE: usize = 16 * 1024 * 1024;
/// Tools named in the record at most (the count goes on).
const MAX_TOOLS: usize = 200;

/// What the agent's stdout said, read line by line as it arrived — every line, whatever the
/// kept log drops — in bounded memory: counts, the claim, the tools' names up to a bound, and
/// the stream's own judgement ([`Stream`]).
#[derive(Debug, Default)]
struct Reading {
    claim: Option<Claim>,
    events: usize,
    unparsed: usize,
    tools: Vec<String>,
    stream: Stream,
}

impl Reading {
    /// One line of the agent's stdout: JSON events of `{type, part: {...}}` (DevEco Code /
    /// OpenCode), or plain text from a command agent. The last `Result: …` found wins.
    fn line(&mut self, line: Line<'_>) {
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

/// Dispatches one round and stores the agent's output as `log` (and, for DevEco Code, its
/// exported session beside it; for an ACP agent, the answers dwpipe gave its requests).
pub(crate) async fn dispatch(
    agent: &Agent,
    workspace: &Path,
    brief_file: &Path,
    brief: &str,
    round: u32,
    log: &Path,
    cancel: &Cancel,
) -> Result<AgentRun, AgentError> {
    if agent.speaks_acp() {
        return acp::dispatch(agent, workspace, brief, log, cancel).await;
    }
    let argv = argv(agent, workspace, brief_file, brief, round);
    let mut spec = spec(agent, workspace, &argv)?;
    // The whole stream is judged as it arrives; the log keeps a bounded head and tail.
    let reading = Arc::new(Mutex::new(Reading::default()));
    let observed = Arc::clone(&reading);
    let deveco = agent.kind == AgentKind::Deveco;
    let (supervised, ()) = supervise(
        agent,
        workspace,
        &mut spec,
        move |line| {
            observed
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .line(line);
        },
        (deveco, &AtomicBool::new(true)),
        |_, _| async {},
        cancel,
    )
    .await?;
    supervised.keep_log(log, agent, &[])?;
    let reading = std::mem::take(&mut *reading.lock().unwrap_or_else(PoisonError::into_inner));
    let stream = reading.stream;
    let end = supervised.end;
    let mut record = AgentRun {
        claim: reading.claim.unwrap_or(Claim::None),
        end,
        events: reading.events,
        unparsed_lines: reading.unparsed,
        errors: stream.errors().to_vec(),
        tools: reading.tools,
        leaked: supervised.outcome.leaked,
        ending: None,
        export: None,
        stop_reason: None,
        answers: None,
    };
    if deveco {
        record.ending = Some(if supervised.stalled {
            Ending::Incomplete(stalled(agent.idle_timeout))
        } else {
            stream.ending(end)
        });
        if let Some(session) = &stream.session {
            record.export = Some(export((&agent.program, &spec.env), session, log, cancel).await);
        }
    }
    Ok(record)
}

/// Why a stalled run was stopped.
fn stalled(idle: Duration) -> String {
    format!("stalled: no event and no change in the workspace for {idle:?}")
}

/// The process spec of one dispatch: argv, the workspace as its directory, the configured
/// environment and, for DevEco Code, its inline configuration.
fn spec(agent: &Agent, workspace: &Path, argv: &[String]) -> Result<ProcessSpec, AgentError> {
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
struct Supervised {
    outcome: ProcessOutcome,
    end: AgentEnd,
    /// The watchdog stopped it.
    stalled: bool,
}

impl Supervised {
    /// Stores stdout, stderr and dwpipe's own notes about the run as the agent's log.
    fn keep_log(&self, log: &Path, agent: &Agent, notes: &[String]) -> Result<(), AgentError> {
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
async fn supervise<F, T>(
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

#[cfg(test)]
mod tests;
