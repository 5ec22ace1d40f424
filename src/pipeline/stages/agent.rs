//! The agent stage: dispatch the brief, and tell whether the agent changed the workspace.
//! Its claim is recorded as a claim, never as a verdict.

use std::fmt::Write;
use std::path::Path;

use crate::agent::{AgentError, Claim, Ending, dispatch};
use crate::diagnostic::chain;
use crate::process::Cancel;
use crate::verify::{StatCache, fingerprint};

use super::super::halt::Staged;
use super::super::ledger::{Input, Outcome, Stage};
use super::super::{Delivery, DeliveryError, Note};

/// What the agent did.
pub(in crate::pipeline) struct Dispatched {
    /// What it said about its work.
    pub(in crate::pipeline) claim: Claim,
    /// The workspace's fingerprint after it.
    pub(in crate::pipeline) after: String,
    /// Whether it changed anything.
    pub(in crate::pipeline) changed: bool,
    /// For DevEco Code: how its run ended.
    pub(in crate::pipeline) ending: Option<Ending>,
}

impl Delivery<'_> {
    /// Dispatches the agent on the round's brief; it must exit cleanly and keep the
    /// workspace's history.
    pub(in crate::pipeline) async fn agent(
        &self,
        round: u32,
        brief_path: &Path,
        brief: &str,
        cache: &mut StatCache,
        cancel: &Cancel,
    ) -> Staged<Dispatched> {
        let agent = self
            .config
            .agent
            .as_ref()
            .expect("preflight refuses a config without an agent");
        let workspace = self.config.workspace.as_path();
        let was_git = workspace.join(".git").exists();
        let before = fingerprint(workspace, cache, cancel)
            .await
            .map_err(DeliveryError::Fingerprint)?;
        let clock = self.begin(Stage::Agent, round);
        let log = self.run_dir.agent_log(round);
        let inputs = [(Input::Workspace, before.as_str())];
        let run = match dispatch(agent, workspace, brief_path, brief, round, &log, cancel).await {
            Ok(run) => run,
            Err(AgentError::Cancelled) => return Err(self.interrupted(&clock, &inputs)),
            Err(e) => {
                let detail = format!("{}: the agent failed: {}", e.code(), chain(&e));
                return Err(self.environment(&clock, &inputs, detail));
            }
        };
        if run.leaked {
            clock.leaked();
        }
        // DevEco Code's ending is its own fact (an incomplete run is not the machine failing);
        // a command agent that does not exit 0 is an environment error.
        if run.ending.is_none() && !run.end.is_clean() {
            let detail = format!(
                "{}: the agent {} (its output is in {})",
                run.end.code(),
                run.end,
                log.display()
            );
            return Err(self.environment(&clock, &inputs, detail));
        }
        if was_git && !workspace.join(".git").exists() {
            // Without its history the workspace's fingerprint means something else: no verdict
            // about this change can be trusted.
            let detail = "E_AGENT_DELETED_GIT: the agent deleted the workspace's .git".to_owned();
            return Err(self.environment(&clock, &inputs, detail));
        }
        let after = fingerprint(workspace, cache, cancel)
            .await
            .map_err(DeliveryError::Fingerprint)?;
        let mut reason = format!("claim: {}", run.claim);
        if let Some(ending) = &run.ending {
            let _ = write!(reason, "; ending: {ending}");
        }
        if let Some(stop) = &run.stop_reason {
            let _ = write!(reason, "; stop reason: {stop}");
        }
        if let Some((answered, refused)) = run.answers {
            let _ = write!(
                reason,
                "; {answered} request(s) of the agent answered, {refused} not allowed (in {})",
                log.with_extension("answers.jsonl")
                    .file_name()
                    .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
            );
        }
        match &run.export {
            Some(Ok(())) => reason.push_str("; session exported beside the log"),
            Some(Err(why)) => {
                let _ = write!(reason, "; session not exported: {why}");
            }
            None => {}
        }
        // What the whole stream held, counted as it arrived (the log keeps a head and a tail).
        if run.events > 0 || run.unparsed_lines > 0 {
            let _ = write!(
                reason,
                "; {} event(s), {} unparsed line(s), {} tool call(s) named",
                run.events,
                run.unparsed_lines,
                run.tools.len()
            );
        }
        if !run.errors.is_empty() {
            let _ = write!(reason, "; {} error event(s)", run.errors.len());
        }
        self.end(
            &clock,
            Outcome::Agent(run.end),
            &[(Input::Workspace, &after)],
            Some(reason),
            Note::Claim(run.end, run.claim),
            Some(log),
        )?;
        Ok(Dispatched {
            claim: run.claim,
            changed: before != after,
            after,
            ending: run.ending,
        })
    }
}
