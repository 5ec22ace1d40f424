//! One dispatch of the configured agent: ACP agents through their protocol, DevEco Code and
//! command agents through their argv, the run supervised either way.

use super::deveco::export;
use super::supervise::Reading;
use super::{AgentError, AgentRun, argv};
use super::{spec, stalled, supervise};
use crate::agent::Claim;
use crate::agent::Ending;
use crate::config::{Agent, AgentKind};
use crate::process::Cancel;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, PoisonError};

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
        return super::acp::dispatch(agent, workspace, brief, log, cancel).await;
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
