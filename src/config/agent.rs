//! `agent:`: which adapter dispatches the brief (DevEco Code, an ACP agent, any command),
//! with its limits, environment and DevEco Code's own settings.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use crate::diagnostic::Diagnostic;
use crate::words::words;

use super::doc::AgentDoc;
use super::value::{argv, duration, invalid};

words! {
    /// Which agent adapter dispatches the brief.
    pub(crate) enum AgentKind {
        /// `deveco run --agent goal --format json --dir <workspace> "<brief>"` plus the
        /// configured flags.
        Deveco = "deveco",
        /// Any agent that speaks the Agent Client Protocol on its stdin and stdout: its argv
        /// (`{workspace}` placeholder), the brief sent as the session's prompt.
        Acp = "acp",
        /// Any argv with `{brief}`, `{workspace}` and `{round}` placeholders.
        Command = "command",
    }
}

words! {
    /// How dwpipe talks to DevEco Code.
    pub(crate) enum Transport {
        /// `deveco run --format json`: the brief as an argument, the ending read from the
        /// event stream.
        Run = "run",
        /// `deveco acp`: the Agent Client Protocol, the ending the prompt's own stop reason,
        /// permission requests answered by dwpipe's policy.
        Acp = "acp",
    }
}

/// The agent to dispatch to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Agent {
    /// The adapter.
    pub(crate) kind: AgentKind,
    /// For `command`: the argv; for `deveco`: extra flags.
    pub(crate) argv: Vec<String>,
    /// Wall-clock limit of one round.
    pub(crate) timeout: Duration,
    /// For `deveco`: how long neither an event nor a change in the workspace may come before
    /// the run is called stalled and stopped.
    pub(crate) idle_timeout: Duration,
    /// Extra environment.
    pub(crate) env: BTreeMap<String, String>,
    /// For `deveco`: the program (`deveco`, or OpenCode's `opencode`, whose command line
    /// DevEco Code keeps).
    pub(crate) program: String,
    /// For `deveco`: the agent it runs as (`--agent`: DevEco Code's `goal`, OpenCode's `build`).
    pub(crate) mode: String,
    /// For `deveco`: the variable that carries inline configuration (`DEVECO_CONFIG_CONTENT`,
    /// OpenCode's `OPENCODE_CONFIG_CONTENT`), and the configuration it carries (JSON), if any.
    pub(crate) config_env: String,
    pub(crate) config: Option<String>,
    /// For `deveco`: the channel (`run`, or `acp`).
    pub(crate) transport: Transport,
}

impl Agent {
    /// Whether dwpipe drives it through the Agent Client Protocol.
    pub(crate) fn speaks_acp(&self) -> bool {
        self.kind == AgentKind::Acp || self.transport == Transport::Acp
    }
}

/// `agent:`, validated.
pub(super) fn agent(path: &Path, a: AgentDoc) -> Result<Agent, Diagnostic> {
    let kind = AgentKind::parse(&a.kind).ok_or_else(|| {
        invalid(
            path,
            format!("agent.kind `{}` is not deveco, acp or command", a.kind),
        )
    })?;
    let argv = match kind {
        AgentKind::Command | AgentKind::Acp => argv(path, a.argv, "agent")?,
        AgentKind::Deveco => a.argv,
    };
    if kind != AgentKind::Deveco
        && (a.program.is_some()
            || a.mode.is_some()
            || a.config_env.is_some()
            || a.config.is_some()
            || a.transport.is_some())
    {
        return Err(invalid(
            path,
            format!(
                "agent.program, mode, config-env, config and transport are for `kind: deveco`; a{} {kind} agent is its argv",
                if kind == AgentKind::Acp { "n" } else { "" }
            ),
        ));
    }
    let transport = match a.transport.as_deref() {
        None => Transport::Run,
        Some(word) => Transport::parse(word)
            .ok_or_else(|| invalid(path, format!("agent.transport `{word}` is not run or acp")))?,
    };
    let config_env = a
        .config_env
        .unwrap_or_else(|| "DEVECO_CONFIG_CONTENT".to_owned());
    if !config_env
        .bytes()
        .enumerate()
        .all(|(i, b)| b == b'_' || b.is_ascii_uppercase() || (i > 0 && b.is_ascii_digit()))
        || config_env.is_empty()
    {
        return Err(invalid(
            path,
            format!(
                "agent.config-env `{config_env}` is not an environment variable's name (A-Z, 0-9, _)"
            ),
        ));
    }
    let config = match a.config {
        None => None,
        Some(value @ serde_json::Value::Object(_)) => Some(value.to_string()),
        Some(_) => {
            return Err(invalid(
                path,
                "agent.config must be a mapping (the agent's own configuration, passed inline)",
            ));
        }
    };
    let program = a.program.unwrap_or_else(|| "deveco".to_owned());
    if program.is_empty() || program.contains('\0') {
        return Err(invalid(path, "agent.program must name a program"));
    }
    Ok(Agent {
        kind,
        argv,
        timeout: duration(
            path,
            a.timeout.as_deref(),
            Duration::from_secs(30 * 60),
            "agent.timeout",
        )?,
        idle_timeout: duration(
            path,
            a.idle_timeout.as_deref(),
            Duration::from_secs(20 * 60),
            "agent.idle-timeout",
        )?,
        env: a.env,
        program,
        mode: a.mode.unwrap_or_else(|| "goal".to_owned()),
        config_env,
        config,
        transport: if kind == AgentKind::Acp {
            Transport::Acp
        } else {
            transport
        },
    })
}
