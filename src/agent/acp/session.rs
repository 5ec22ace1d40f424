//! One ACP dispatch: the agent started, initialized, its session made and put in its mode, the
//! brief sent as a prompt, the conversation read to its end.

use super::super::deveco::export;
use super::super::{AgentError, AgentRun, Claim, spec};
use super::client::Client;
use super::ending::{Shown, Turn, ending};
use crate::config::{Agent, AgentKind};
use crate::process::{Cancel, Stdin, stdin_feed};
use serde_json::{Value, json};
use std::fmt::Write;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio::sync::watch;

/// How long the agent may take to answer `initialize`, `session/new` and a mode change (a
/// first start may fetch its provider packages).
pub(super) const SETUP_LIMIT: Duration = Duration::from_secs(120);
/// How long the agent may take to exit once its stdin closed after the turn.
pub(super) const CLOSE_WAIT: Duration = Duration::from_secs(10);
/// The protocol version dwpipe speaks.
pub(super) const PROTOCOL: u64 = 1;

/// Locks the client (a panic elsewhere does not make its records unreadable).
pub(super) fn lock(client: &Mutex<Client>) -> std::sync::MutexGuard<'_, Client> {
    client.lock().unwrap_or_else(PoisonError::into_inner)
}

/// One request and its reply, bounded by `limit` and by the process's end.
pub(super) async fn call(
    client: &Mutex<Client>,
    method: &'static str,
    params: Value,
    limit: Option<Duration>,
    exited: &mut watch::Receiver<bool>,
) -> Result<Value, Turn> {
    let replied = lock(client).request(method, params);
    let waiting = async {
        match limit {
            Some(limit) => tokio::time::timeout(limit, replied)
                .await
                .map_err(|_| limit),
            None => Ok(replied.await),
        }
    };
    tokio::select! {
        // A reply printed just before the process exited is read before its end is known.
        biased;
        reply = waiting => match reply {
            Ok(Ok(Ok(result))) => Ok(result),
            Ok(Ok(Err(error))) => Err(Turn::Refused { method, error }),
            Ok(Err(_)) => Err(Turn::Gone { method }),
            Err(after) => Err(Turn::Silent { method, after }),
        },
        _ = exited.wait_for(|gone| *gone) => Err(Turn::Gone { method }),
    }
}

/// The conversation: initialize, open a session in the workspace (in `mode`, if one is asked
/// for), send the brief and wait for the turn's end.
pub(super) async fn converse(
    client: &Mutex<Client>,
    workspace: &Path,
    mode: Option<&str>,
    (brief, armed): (&str, &AtomicBool),
    exited: &mut watch::Receiver<bool>,
) -> Result<String, Turn> {
    let hello = json!({
        "protocolVersion": PROTOCOL,
        "clientCapabilities": {"fs": {"readTextFile": true, "writeTextFile": true}, "terminal": false},
        "clientInfo": {"name": "dwpipe", "version": env!("CARGO_PKG_VERSION")},
    });
    let init = call(client, "initialize", hello, Some(SETUP_LIMIT), exited).await?;
    if init["protocolVersion"].as_u64() != Some(PROTOCOL) {
        return Err(Turn::Refused {
            method: "initialize",
            error: format!(
                "it speaks protocol version {}, dwpipe speaks {PROTOCOL}",
                init["protocolVersion"]
            ),
        });
    }
    let cwd = std::path::absolute(workspace).unwrap_or_else(|_| workspace.to_owned());
    let params = json!({"cwd": cwd, "mcpServers": []});
    let opened = call(client, "session/new", params, Some(SETUP_LIMIT), exited).await?;
    let Some(session) = opened["sessionId"].as_str().map(str::to_owned) else {
        return Err(Turn::Refused {
            method: "session/new",
            error: "its answer names no sessionId".to_owned(),
        });
    };
    lock(client).session = Some(session.clone());
    if let Some(mode) = mode {
        set_mode(client, &session, &opened, mode, exited).await?;
    }
    let prompt = json!({"sessionId": session, "prompt": [{"type": "text", "text": brief}]});
    // The turn begins: from now on a silence is the idle watchdog's to judge.
    armed.store(true, Ordering::Relaxed);
    let answered = call(client, "session/prompt", prompt, None, exited).await?;
    Ok(answered["stopReason"]
        .as_str()
        .unwrap_or("(no stopReason)")
        .to_owned())
}

/// Puts the session in `mode` (DevEco Code's `goal`, OpenCode's `build`): a `mode` config
/// option if the session offers one, else the older session modes.
pub(super) async fn set_mode(
    client: &Mutex<Client>,
    session: &str,
    opened: &Value,
    mode: &str,
    exited: &mut watch::Receiver<bool>,
) -> Result<(), Turn> {
    let option = opened["configOptions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|o| o["id"] == "mode");
    let (method, params) = match (option, opened["modes"]["currentModeId"].as_str()) {
        (Some(option), _) if option["currentValue"] == mode => return Ok(()),
        (Some(_), _) => (
            "session/set_config_option",
            json!({"sessionId": session, "configId": "mode", "value": mode}),
        ),
        (None, Some(current)) if current == mode => return Ok(()),
        (None, Some(_)) => (
            "session/set_mode",
            json!({"sessionId": session, "modeId": mode}),
        ),
        (None, None) => {
            return Err(Turn::Refused {
                method: "session/new",
                error: format!("the session offers no mode to set `{mode}` (agent.mode)"),
            });
        }
    };
    call(client, method, params, Some(SETUP_LIMIT), exited)
        .await
        .map(drop)
}

/// The argv of an ACP agent: `<program> acp --cwd <workspace>` for DevEco Code and OpenCode,
/// the configured argv (`{workspace}` filled in) for any other.
pub(super) fn argv(agent: &Agent, workspace: &Path) -> Vec<String> {
    let workspace = std::path::absolute(workspace)
        .unwrap_or_else(|_| workspace.to_owned())
        .display()
        .to_string();
    match agent.kind {
        AgentKind::Deveco => [agent.program.clone(), "acp".into(), "--cwd".into()]
            .into_iter()
            .chain([workspace])
            .chain(agent.argv.iter().cloned())
            .collect(),
        AgentKind::Acp | AgentKind::Command => agent
            .argv
            .iter()
            .map(|arg| arg.replace("{workspace}", &workspace))
            .collect(),
    }
}

/// Dispatches one round over ACP; stores the agent's output as `log` and dwpipe's answers
/// beside it (`.answers.jsonl`), and for DevEco Code the exported session.
pub(crate) async fn dispatch(
    agent: &Agent,
    workspace: &Path,
    brief: &str,
    log: &Path,
    cancel: &Cancel,
) -> Result<AgentRun, AgentError> {
    let mut spec = spec(agent, workspace, &argv(agent, workspace))?;
    let (sender, feed) = stdin_feed(super::client::MAX_UNREAD);
    spec.stdin = Stdin::Feed(feed);
    let client = Arc::new(Mutex::new(Client::new(sender, workspace)));
    let observed = Arc::clone(&client);
    let deveco = agent.kind == AgentKind::Deveco;
    let mode = deveco.then_some(agent.mode.as_str());
    let armed = &AtomicBool::new(false);
    let talking = |mut exited: watch::Receiver<bool>, stop: Cancel| {
        let client = &client;
        async move {
            // An agent that stops reading dwpipe's replies is stopped with this.
            lock(client).stop = Some(stop.clone());
            let turn = converse(client, workspace, mode, (brief, armed), &mut exited).await;
            // The turn is over: closing stdin asks the agent to exit; one that stays is stopped.
            lock(client).sender = None;
            let exits = exited.wait_for(|gone| *gone);
            let closed = tokio::time::timeout(CLOSE_WAIT, exits).await.is_err();
            if closed {
                stop.cancel();
            }
            (turn, closed)
        }
    };
    let (supervised, (turn, closed)) = super::super::supervise(
        agent,
        workspace,
        &mut spec,
        move |line| lock(&observed).line(line),
        (true, armed),
        talking,
        cancel,
    )
    .await?;
    // The process is gone: what the client gathered is taken whole.
    let client = std::mem::take(&mut *lock(&client));
    let turn = turn.map_or_else(|turn| turn, Turn::Ended);
    let mut notes = Vec::new();
    if closed {
        notes.push(
            "the agent did not exit when its stdin closed after the turn: it was stopped"
                .to_owned(),
        );
    }
    if !client.strangers.is_empty() {
        notes.push(format!(
            "requests came from session(s) dwpipe did not open (a subagent's?): {}",
            client
                .strangers
                .iter()
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if client.answered > client.answers.len() {
        notes.push(format!(
            "the agent made {} requests: the first {} answers are recorded, all were counted",
            client.answered,
            client.answers.len()
        ));
    }
    supervised.keep_log(log, agent, &notes)?;
    let mut answers = String::new();
    for answer in &client.answers {
        let _ = writeln!(
            answers,
            "{}",
            serde_json::to_string(answer).unwrap_or_default()
        );
    }
    crate::output::write_atomic(&log.with_extension("answers.jsonl"), answers.as_bytes())
        .map_err(AgentError::Log)?;
    let shown = Shown {
        tasks: client.tasks.values().cloned().collect(),
        denied: client.denied.clone(),
        rejected: client.rejected.clone(),
        unreadable: client.unreadable,
        unread: client.unread,
    };
    let stalled_after = supervised.stalled.then_some(agent.idle_timeout);
    let export = match (&client.session, deveco) {
        (Some(session), true) => {
            Some(export((&agent.program, &spec.env), session, log, cancel).await)
        }
        _ => None,
    };
    Ok(AgentRun {
        claim: client.claim.unwrap_or(Claim::None),
        end: supervised.end,
        events: client.messages,
        unparsed_lines: client.unparsed,
        errors: Vec::new(),
        tools: client.tools,
        leaked: supervised.outcome.leaked,
        ending: Some(ending(&turn, supervised.end, closed, stalled_after, &shown)),
        export,
        stop_reason: match turn {
            Turn::Ended(reason) => Some(reason),
            _ => None,
        },
        answers: Some((client.answered, client.refused)),
    })
}
