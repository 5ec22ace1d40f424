//! DevEco Code as it really behaves (research/field-2026-12.md §3.1–3.2): its JSON stream has
//! no terminal event, Goal-mode subagents can hang on a permission nobody answers, and an
//! auto-rejected tool still exits 0. So dwpipe derives the run's **ending** itself: `finished`
//! only when the process exited 0, the last step finished with reason `stop`, no `error`
//! event was seen and no tool ended in a permission rejection; `incomplete` otherwise, with
//! the reason. Beside the wall-clock timeout, a watchdog stops a run that went idle (Goal's
//! subagents work off the stream, so a quiet stream alone is not idleness), and the session is
//! exported afterwards as evidence of what the agent did.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime};

use serde_json::Value;

use crate::process::{Cancel, Completion, ProcessSpec, run};
use crate::verify::newest_change;

use super::AgentEnd;

/// How long `deveco export` may take.
const EXPORT_TIMEOUT: Duration = Duration::from_secs(120);

/// How a DevEco Code run ended, by dwpipe's reading of its stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Ending {
    /// Shown to have finished.
    Finished,
    /// Not shown to have finished: why.
    Incomplete(String),
}

impl std::fmt::Display for Ending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Ending::Finished => f.write_str("finished"),
            Ending::Incomplete(why) => write!(f, "incomplete ({why})"),
        }
    }
}

/// What the stream said about how the run went, gathered event by event.
#[derive(Clone, Debug, Default)]
pub(crate) struct Stream {
    /// The root session's id (`sessionID` of the envelope).
    pub(crate) session: Option<String>,
    /// The last `step_finish` reason (`stop`, `tool-calls`, …).
    last_finish: Option<String>,
    /// Whether an event came after the last `step_finish`.
    after_finish: bool,
    /// `error` events' messages (the first [`KEPT`]; `error_count` counts them all).
    errors: Vec<String>,
    error_count: usize,
    /// Tools whose call was rejected for want of a permission (the first [`KEPT`]).
    rejected: Vec<String>,
    rejected_count: usize,
    /// Event lines too long to read whole.
    unreadable: usize,
}

/// Messages and names kept of each kind; the counts go on.
const KEPT: usize = 20;

impl Stream {
    /// Reads one parsed event.
    pub(crate) fn event(&mut self, event: &Value) {
        if self.session.is_none()
            && let Some(id) = event["sessionID"].as_str()
        {
            self.session = Some(id.to_owned());
        }
        match event["type"].as_str() {
            Some("step_finish") => {
                self.last_finish = event["part"]["reason"].as_str().map(str::to_owned);
                self.after_finish = false;
                return;
            }
            Some("error") => {
                self.error_count += 1;
                if self.errors.len() < KEPT {
                    self.errors.push(
                        event["error"]["data"]["message"]
                            .as_str()
                            .or(event["error"]["name"].as_str())
                            .unwrap_or("error")
                            .to_owned(),
                    );
                }
            }
            // The runtime gives the model only the tools its permission config allows: a call
            // to any other one comes back as the `invalid` tool, naming the tool it wanted.
            Some("tool_use") if event["part"]["tool"] == "invalid" => {
                self.rejected_count += 1;
                let wanted = event["part"]["state"]["input"]["tool"]
                    .as_str()
                    .unwrap_or("a tool");
                let tool = format!("{wanted} (not available to the agent)");
                if self.rejected.len() < KEPT && !self.rejected.contains(&tool) {
                    self.rejected.push(tool);
                }
            }
            Some("tool_use")
                if event["part"]["state"]["status"] == "error"
                    && refused_permission(event["part"]["state"]["error"].as_str()) =>
            {
                self.rejected_count += 1;
                let tool = event["part"]["tool"].as_str().unwrap_or("a tool");
                if self.rejected.len() < KEPT && !self.rejected.iter().any(|t| t == tool) {
                    self.rejected.push(tool.to_owned());
                }
            }
            _ => {}
        }
        self.after_finish = true;
    }

    /// An event line too long to read whole went by: what it said is unknown.
    pub(crate) fn unreadable(&mut self) {
        self.unreadable += 1;
        self.after_finish = true;
    }

    /// The `error` events' messages (the first ones).
    pub(crate) fn errors(&self) -> &[String] {
        &self.errors
    }

    /// The run's ending, from its stream and how the process ended.
    pub(crate) fn ending(&self, end: AgentEnd) -> Ending {
        let incomplete = |why: String| Ending::Incomplete(why);
        let error = self.errors.first().map(|error| {
            let more = match self.error_count {
                0 | 1 => String::new(),
                n => format!(" (and {} more)", n - 1),
            };
            format!("session error: {error}{more}")
        });
        match end {
            AgentEnd::Exited(0) => {}
            AgentEnd::Exited(code) => {
                return incomplete(match error {
                    Some(error) => format!("the agent exited {code}; {error}"),
                    None => format!("the agent exited {code}"),
                });
            }
            AgentEnd::Signalled(signal) => {
                return incomplete(format!("killed mid-stream by signal {signal}"));
            }
            AgentEnd::TimedOut(after) => {
                return incomplete(format!("stopped at its time limit ({after:?})"));
            }
        }
        if let Some(error) = error {
            return incomplete(error);
        }
        if !self.rejected.is_empty() {
            return incomplete(format!(
                "permission rejected for {} (the run went on without it)",
                self.rejected.join(", ")
            ));
        }
        if self.unreadable > 0 {
            return incomplete(format!(
                "{} event line(s) too long to read whole: what they said is unknown",
                self.unreadable
            ));
        }
        match (self.last_finish.as_deref(), self.after_finish) {
            (Some("stop"), false) => Ending::Finished,
            (Some("stop"), true) => {
                incomplete("the stream went on after its last step finished".to_owned())
            }
            (Some(reason), _) => {
                incomplete(format!("the last step ended on `{reason}`, not `stop`"))
            }
            (None, _) => incomplete("no step finished: the stream ended mid-run".to_owned()),
        }
    }
}

/// Whether a tool's error says it was refused a permission (the runtime's words for it).
pub(super) fn refused_permission(error: Option<&str>) -> bool {
    let error = error.unwrap_or("").to_lowercase();
    ["permission", "rejected", "denied"]
        .iter()
        .any(|w| error.contains(w))
}

/// Watches a DevEco Code run until `done`: it is idle when for `idle` neither a line of
/// output arrived nor a file of the workspace changed; then `stop` fires and `stalled` is set.
/// Nothing counts before `armed` (over ACP, the session's setup has limits of its own and the
/// watch begins with the prompt).
pub(super) async fn watchdog(
    workspace: &Path,
    idle: Duration,
    (last_line, armed): (&Mutex<Instant>, &AtomicBool),
    done: &AtomicBool,
    stop: &Cancel,
    stalled: &AtomicBool,
) {
    let tick = (idle / 10).clamp(Duration::from_millis(50), Duration::from_secs(5));
    let started = SystemTime::now();
    let mut seen_change = newest_change(workspace, &[]).unwrap_or(started);
    let mut last_change = Instant::now();
    while !done.load(Ordering::Relaxed) {
        tokio::time::sleep(tick).await;
        if !armed.load(Ordering::Relaxed) {
            last_change = Instant::now();
            continue;
        }
        let silent = last_line
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .elapsed();
        if silent < idle || last_change.elapsed() < idle {
            continue;
        }
        // Silent that long: has the workspace changed meanwhile?
        match newest_change(workspace, &[]) {
            Some(newest) if newest > seen_change => {
                seen_change = newest;
                last_change = Instant::now();
            }
            _ => {
                stalled.store(true, Ordering::Relaxed);
                stop.cancel();
                return;
            }
        }
    }
}

/// `deveco export <session>` (`program` is `deveco`, or OpenCode's) beside the agent's `log`
/// (`agent-<n>.session.json`): the session as the runtime stored it, child sessions included.
pub(super) async fn export(
    (program, env): (&str, &[(std::ffi::OsString, std::ffi::OsString)]),
    session: &str,
    log: &Path,
    cancel: &Cancel,
) -> Result<(), String> {
    let path = &log.with_extension("session.json");
    let valid = !session.is_empty()
        && session.len() <= 128
        && session
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if !valid {
        return Err(format!(
            "the stream's session id {session:?} is not a plain id"
        ));
    }
    let mut spec = ProcessSpec::new(program, ["export", session]).timeout(EXPORT_TIMEOUT);
    // In the run's environment: where the runtime keeps its sessions is set there.
    spec.env = env.to_vec();
    // The session is kept whole or not at all: a cut JSON document is no evidence.
    spec.head_limit = crate::input::MAX_REPORT_BYTES as usize;
    let outcome = run(&spec, cancel).await.map_err(|e| e.to_string())?;
    let bytes = outcome.stdout.to_bytes();
    match outcome.completion {
        Completion::Exited(0) if outcome.stdout.is_complete() && !bytes.trim_ascii().is_empty() => {
            crate::output::write_atomic(path, &bytes).map_err(|e| e.to_string())
        }
        Completion::Exited(0) => Err(format!("`{program} export` printed nothing whole")),
        other => Err(format!(
            "`{program} export` ended {other:?}: {}",
            outcome.stderr.to_string_lossy().trim()
        )),
    }
}

#[cfg(test)]
mod tests;
