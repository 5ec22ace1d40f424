//! The argv of one dispatch: DevEco Code's Goal mode, or a command with its placeholders
//! filled; paths made absolute (the agent runs inside the workspace).

use crate::config::{Agent, AgentKind};
use regex::Regex;
use std::path::Path;
use std::sync::LazyLock;

pub(super) static CLAIM: LazyLock<Regex> = LazyLock::new(|| {
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
