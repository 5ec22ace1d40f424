//! `dwpipe.yaml`: the project configuration (kebab-case keys, durations like `10m`, unknown
//! keys are errors naming their path). `dwpipe init` writes a commented one.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::device::Server;
use crate::diagnostic::Diagnostic;
use crate::history::Store;
use crate::input::{parse_duration, parse_yaml, read_bounded};
use crate::pack::Condition;
use crate::target::Target;
use crate::words::words;

use doc::ConfigDoc;

mod doc;

/// The bundled example's config.
#[cfg(test)]
const EXAMPLE_CONFIG: &str = include_str!("../../examples/notes/dwpipe.yaml");

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

words! {
    /// How a verification command's outcome is read.
    pub(crate) enum VerifyKind {
        /// By its exit code.
        Command = "command",
        /// By hvigor's own conclusion lines, on both streams (never its exit code).
        Hvigor = "hvigor",
    }
}

/// A declared verification command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct VerifyCommand {
    /// Its name in reports.
    pub(crate) name: String,
    /// Its argv (never a shell string).
    pub(crate) argv: Vec<String>,
    /// Wall-clock limit.
    pub(crate) timeout: Duration,
    /// How its outcome is read.
    pub(crate) kind: VerifyKind,
    /// The HAPs it builds, relative to the workspace.
    pub(crate) haps: Vec<PathBuf>,
}

words! {
    /// What a failed or exhausted review does.
    pub(crate) enum FailMode {
        /// Continue and record.
        Open = "open",
        /// Continue; the brief and the reports say the pack's verification did not complete.
        Warn = "warn",
        /// Stop before dispatch.
        Closed = "closed",
    }
}

/// Review settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Review {
    /// Revise rounds before the review is exhausted.
    pub(crate) max_rounds: u32,
    /// What a failed or exhausted review does.
    pub(crate) fail_mode: FailMode,
    /// The outside reviewer (argv) and its time limit.
    pub(crate) reviewer: Option<(Vec<String>, Duration)>,
    /// Whether `--no-review` is honoured under `closed`.
    pub(crate) allow_waiver_when_closed: bool,
}

/// Repair-loop bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Repair {
    /// Repair rounds at most.
    pub(crate) max_rounds: u32,
    /// The same failure at most this many times.
    pub(crate) max_same_failure: u32,
}

/// Device defaults.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct DeviceDefaults {
    /// A device's connect key.
    pub(crate) serial: Option<String>,
    /// Its hdc server.
    pub(crate) server: Option<Server>,
    /// A capture to replay instead.
    pub(crate) replay: Option<PathBuf>,
    /// The lab's preconditions on a device's state before its runs (`device.require`),
    /// validated and written as a condition shows itself.
    pub(crate) require: Vec<String>,
}

impl DeviceDefaults {
    /// The target these defaults name: the capture, else the device, else none.
    pub(crate) fn target(&self) -> Option<Target> {
        if let Some(capture) = &self.replay {
            return Some(Target::Replay {
                capture: capture.clone(),
                realtime: false,
            });
        }
        Some(Target::Device {
            serial: self.serial.clone()?,
            server: self.server.clone(),
            record: None,
        })
    }
}

/// A validated `dwpipe.yaml`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// The app's source tree (relative paths resolve against the config's folder).
    pub(crate) workspace: PathBuf,
    /// The agent, if one is configured.
    pub(crate) agent: Option<Agent>,
    /// Verification commands (at least one is required for `deliver`).
    pub(crate) verify: Vec<VerifyCommand>,
    /// Review settings.
    pub(crate) review: Review,
    /// Repair bounds.
    pub(crate) repair: Repair,
    /// Device defaults.
    pub(crate) device: DeviceDefaults,
    /// Where deliveries record their audits (`history:`; default `.dwpipe/history.sqlite`
    /// beside the runs).
    pub(crate) history: Option<Store>,
}

impl Default for Repair {
    /// Four repair rounds, the same failure at most twice.
    fn default() -> Repair {
        Repair {
            max_rounds: 4,
            max_same_failure: 2,
        }
    }
}

impl Default for Review {
    fn default() -> Review {
        Review {
            max_rounds: 3,
            fail_mode: FailMode::Warn,
            reviewer: None,
            allow_waiver_when_closed: false,
        }
    }
}

fn invalid(path: &Path, message: impl Into<String>) -> Diagnostic {
    Diagnostic::error(
        "E_CONFIG_INVALID",
        format!("{}: {}", path.display(), message.into()),
    )
    .fix("see the commented dwpipe.yaml that `dwpipe init` writes")
}

fn duration(
    path: &Path,
    text: Option<&str>,
    default: Duration,
    what: &str,
) -> Result<Duration, Diagnostic> {
    match text {
        None => Ok(default),
        Some(text) => parse_duration(text).map_err(|e| invalid(path, format!("{what}: {e}"))),
    }
}

fn argv(path: &Path, argv: Vec<String>, what: &str) -> Result<Vec<String>, Diagnostic> {
    if argv.is_empty() || argv.iter().any(|a| a.is_empty() || a.contains('\0')) {
        return Err(invalid(
            path,
            format!("{what}: argv must be a non-empty list of non-empty strings"),
        ));
    }
    Ok(argv)
}

impl Config {
    /// Reads and validates a config file.
    pub fn load(path: &Path) -> Result<Config, Diagnostic> {
        let bytes = read_bounded(path, 1024 * 1024, "a config").map_err(|e| {
            e.diagnostic(
                "E_CONFIG_INVALID",
                "see the commented dwpipe.yaml that `dwpipe init` writes",
            )
        })?;
        let text = String::from_utf8(bytes).map_err(|_| invalid(path, "not UTF-8"))?;
        Config::parse(path, &text)
    }

    /// Validates config text; `path` names it and anchors relative paths.
    pub(crate) fn parse(path: &Path, text: &str) -> Result<Config, Diagnostic> {
        let doc: ConfigDoc = parse_yaml(path, text).map_err(|d| {
            d.recode(
                "E_CONFIG_INVALID",
                "see the commented dwpipe.yaml that `dwpipe init` writes",
            )
        })?;
        let base = crate::output::dir_or_dot(path.parent());
        let agent = doc
            .agent
            .map(|a| -> Result<Agent, Diagnostic> {
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
                        format!("agent.program, mode, config-env, config and transport are for `kind: deveco`; a{} {kind} agent is its argv", if kind == AgentKind::Acp { "n" } else { "" }),
                    ));
                }
                let transport = match a.transport.as_deref() {
                    None => Transport::Run,
                    Some(word) => Transport::parse(word).ok_or_else(|| {
                        invalid(path, format!("agent.transport `{word}` is not run or acp"))
                    })?,
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
                        format!("agent.config-env `{config_env}` is not an environment variable's name (A-Z, 0-9, _)"),
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
            })
            .transpose()?;
        let mut names = Vec::new();
        let verify = doc
            .verify
            .into_iter()
            .map(|c| {
                if c.name.trim().is_empty() || names.contains(&c.name) {
                    return Err(invalid(
                        path,
                        format!("verify: `{}` is empty or used twice", c.name),
                    ));
                }
                names.push(c.name.clone());
                let kind = match c.kind.as_deref() {
                    None => VerifyKind::Command,
                    Some(kind) => VerifyKind::parse(kind).ok_or_else(|| {
                        invalid(
                            path,
                            format!(
                                "verify `{}`: kind `{kind}` is not `command` or `hvigor`",
                                c.name
                            ),
                        )
                    })?,
                };
                let haps: Vec<PathBuf> = c
                    .hap
                    .map(doc::OneOrMany::into_vec)
                    .unwrap_or_default()
                    .into_iter()
                    .map(PathBuf::from)
                    .collect();
                if let Some(bad) = haps.iter().find(|h| {
                    h.as_os_str().is_empty()
                        || h.is_absolute()
                        || h.components()
                            .any(|c| matches!(c, std::path::Component::ParentDir))
                        || h.extension().is_none_or(|e| e != "hap")
                }) {
                    return Err(invalid(
                        path,
                        format!(
                            "verify `{}`: hap `{}` is not a `.hap` path inside the workspace",
                            c.name,
                            bad.display()
                        ),
                    ));
                }
                Ok(VerifyCommand {
                    timeout: duration(
                        path,
                        c.timeout.as_deref(),
                        Duration::from_secs(10 * 60),
                        "verify timeout",
                    )?,
                    argv: argv(path, c.argv, &format!("verify `{}`", c.name))?,
                    name: c.name,
                    kind,
                    haps,
                })
            })
            .collect::<Result<_, _>>()?;
        let review = match doc.review {
            None => Review::default(),
            Some(r) => Review {
                max_rounds: r.max_rounds.unwrap_or(3).clamp(1, 10),
                fail_mode: match r.fail_mode.as_deref() {
                    None => FailMode::Warn,
                    Some(word) => FailMode::parse(word).ok_or_else(|| {
                        invalid(
                            path,
                            format!("review.fail-mode `{word}` is not open, warn or closed"),
                        )
                    })?,
                },
                reviewer: r
                    .reviewer
                    .map(|rv| -> Result<_, Diagnostic> {
                        Ok((
                            argv(path, rv.argv, "review.reviewer")?,
                            duration(
                                path,
                                rv.timeout.as_deref(),
                                Duration::from_secs(300),
                                "review.reviewer.timeout",
                            )?,
                        ))
                    })
                    .transpose()?,
                allow_waiver_when_closed: r.allow_waiver_when_closed.unwrap_or(false),
            },
        };
        let defaults = Repair::default();
        let repair = Repair {
            max_rounds: doc
                .repair
                .as_ref()
                .and_then(|r| r.max_rounds)
                .unwrap_or(defaults.max_rounds),
            max_same_failure: doc
                .repair
                .as_ref()
                .and_then(|r| r.max_same_failure)
                .unwrap_or(defaults.max_same_failure)
                .max(1),
        };
        let device = match doc.device {
            None => DeviceDefaults::default(),
            Some(d) => DeviceDefaults {
                serial: d.serial,
                server: d
                    .server
                    .map(|text| {
                        Server::parse(&text)
                            .map_err(|e| invalid(path, format!("device.server: {e}")))
                    })
                    .transpose()?,
                replay: d.replay.map(|r| base.join(r)),
                require: d
                    .require
                    .iter()
                    .map(|text| {
                        Condition::parse(text)
                            .map(|c| c.to_string())
                            .map_err(|e| invalid(path, format!("device.require: {e}")))
                    })
                    .collect::<Result<_, _>>()?,
            },
        };
        let history = doc
            .history
            .map(|text| match Store::parse(&text) {
                Ok(Store::Sqlite(file)) => Ok(Store::Sqlite(base.join(file))),
                Ok(server) => Ok(server),
                Err(e) => Err(invalid(path, format!("history: {e} ({})", e.fix()))),
            })
            .transpose()?;
        Ok(Config {
            workspace: base.join(doc.workspace.unwrap_or_else(|| PathBuf::from("."))),
            agent,
            verify,
            review,
            repair,
            device,
            history,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_history_is_a_file_beside_the_config_or_a_server_without_a_password() {
        let config =
            Config::parse(Path::new("proj/dwpipe.yaml"), "history: lab/h.sqlite\n").unwrap();
        assert_eq!(
            config.history,
            Some(Store::Sqlite("proj/lab/h.sqlite".into()))
        );
        let config = Config::parse(
            Path::new("dwpipe.yaml"),
            "history: postgres://lab@db/dwpipe\n",
        )
        .unwrap();
        assert_eq!(
            config.history.unwrap().to_string(),
            "postgres://lab@db/dwpipe"
        );
        let refused = Config::parse(
            Path::new("dwpipe.yaml"),
            "history: postgres://lab:s3cret@db/dwpipe\n",
        )
        .unwrap_err();
        assert!(
            refused.message.contains("carries a password"),
            "{}",
            refused.message
        );
        assert!(!refused.message.contains("s3cret"), "{}", refused.message);
    }

    #[test]
    fn the_example_config_parses() {
        let config = Config::parse(Path::new("proj/dwpipe.yaml"), EXAMPLE_CONFIG).unwrap();
        assert_eq!(config.workspace, Path::new("proj/project"));
        assert_eq!(config.agent.as_ref().unwrap().kind, AgentKind::Command);
        assert!(!config.verify.is_empty());
        assert_eq!(
            (config.repair.max_rounds, config.repair.max_same_failure),
            (4, 2)
        );
        assert_eq!(config.review.fail_mode, FailMode::Warn);
        let init = Config::parse(Path::new("dwpipe.yaml"), crate::template::INIT_CONFIG).unwrap();
        assert_eq!(init.agent.unwrap().kind, AgentKind::Deveco);
        assert_eq!(init.verify[0].argv[0], "hvigorw");
    }

    #[test]
    fn mistakes_are_errors_with_their_path() {
        let rows = [
            (
                "agent:\n  kind: command\n  argv: [x]\n  timout: 5m\n",
                "agent.timout",
            ),
            ("verify:\n  - name: build\n    argv: []\n", "non-empty list"),
            (
                "verify:\n  - name: a\n    argv: [x]\n  - name: a\n    argv: [y]\n",
                "used twice",
            ),
            ("review:\n  fail-mode: strict\n", "not open, warn or closed"),
            ("agent:\n  kind: copilot\n", "not deveco, acp or command"),
            (
                "agent:\n  kind: deveco\n  transport: http\n",
                "agent.transport `http` is not run or acp",
            ),
            (
                "agent:\n  kind: acp\n  argv: [gemini, --experimental-acp]\n  transport: acp\n",
                "an acp agent is its argv",
            ),
            (
                "verify:\n  - name: a\n    argv: [x]\n    timeout: soon\n",
                "verify timeout",
            ),
            ("repair:\n  maxRounds: 3\n", "maxRounds"),
            (
                "agent:\n  kind: command\n  argv: [x]\n  program: opencode\n",
                "are for `kind: deveco`",
            ),
            (
                "agent:\n  kind: deveco\n  config-env: \"OPENCODE CONFIG\"\n",
                "not an environment variable's name",
            ),
            (
                "agent:\n  kind: deveco\n  config: [model]\n",
                "agent.config must be a mapping",
            ),
        ];
        let opencode = Config::parse(
            Path::new("dwpipe.yaml"),
            "agent:\n  kind: deveco\n  program: opencode\n  mode: build\n  config-env: OPENCODE_CONFIG_CONTENT\n  config: { model: scripted/scripted }\n",
        )
        .unwrap()
        .agent
        .unwrap();
        assert_eq!(
            (
                opencode.program.as_str(),
                opencode.mode.as_str(),
                opencode.config_env.as_str()
            ),
            ("opencode", "build", "OPENCODE_CONFIG_CONTENT")
        );
        assert_eq!(
            opencode.config.as_deref(),
            Some(r#"{"model":"scripted/scripted"}"#)
        );
        assert!(!opencode.speaks_acp(), "`run` unless asked");
        for (text, speaks) in [
            ("agent:\n  kind: deveco\n  transport: acp\n", true),
            (
                "agent:\n  kind: acp\n  argv: [gemini, --experimental-acp]\n",
                true,
            ),
            ("agent:\n  kind: command\n  argv: [x]\n", false),
        ] {
            let agent = Config::parse(Path::new("dwpipe.yaml"), text)
                .unwrap()
                .agent
                .unwrap();
            assert_eq!(agent.speaks_acp(), speaks, "{text}");
        }
        for (text, expected) in rows {
            let error = Config::parse(Path::new("dwpipe.yaml"), text).unwrap_err();
            assert_eq!(error.code, "E_CONFIG_INVALID");
            assert!(error.to_string().contains(expected), "{text}: {error}");
        }
        let defaults = Config::parse(
            Path::new("dwpipe.yaml"),
            "verify:\n  - name: t\n    argv: [true]\n",
        )
        .unwrap();
        assert_eq!(defaults.verify[0].timeout, Duration::from_secs(600));
        assert_eq!(defaults.review.max_rounds, 3);
    }
}
