//! The checks of what a run needs that are there or not before anything opens: the agent's,
//! the verification commands' and the reviewer's programs, hdc, a playbook for every probe, a
//! writable folder, a usable history — each with what was looked for and how to get it.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::config::{AgentKind, Config};
use crate::diagnostic::Diagnostic;
use crate::pack::Pack;
use crate::playbook::Playbooks;

/// One thing a run needs, and whether it is there.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct Check {
    /// What it is (`agent`, `verify: build`, `hdc`, `device FMR0223C13000649`, …).
    pub(crate) what: String,
    /// What was looked for (a program name, a serial, a folder).
    pub(crate) looked_for: String,
    /// Where it was found (a path, a model and density), when it was.
    pub(crate) found: Option<String>,
    /// Its version, for the tools dwpipe knows how to ask.
    pub(crate) version: Option<String>,
    /// When it is missing: why, and how to get it.
    pub(crate) problem: Option<Problem>,
}

/// Why a check failed, with the fix.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct Problem {
    /// The stable code.
    pub(crate) code: &'static str,
    /// What is wrong, and where it was looked for.
    pub(crate) message: String,
    /// How to install or configure it.
    pub(crate) fix: String,
    /// What it is, in a word or two (`missing`, `unauthorized`, `offline`, `not answering`):
    /// the doctor table's STATUS.
    pub(crate) status: &'static str,
}

/// The STATUS word of a problem's code: a device is called by what it is, never "missing".
fn status_of(code: &str) -> &'static str {
    match code {
        "E_DEVICE_UNAUTHORIZED" => "unauthorized",
        "E_DEVICE_NOT_FOUND" => "not connected",
        "E_DEVICE_TIMEOUT" => "not answering",
        "E_DEVICE_LEASED" => "leased",
        "E_DEVICE_LEASE" => "lease refused",
        "E_HDC_SERVER_UNREACHABLE" => "unreachable",
        "E_HDC_SERVER_BROKEN" => "not hdc",
        "E_PREFLIGHT_FOLDER" => "not writable",
        "E_HDC_NOT_FOUND"
        | "E_PREFLIGHT_AGENT"
        | "E_PREFLIGHT_VERIFY"
        | "E_PREFLIGHT_REVIEWER"
        | "E_PREFLIGHT_PLAYBOOK" => "missing",
        _ => "failed",
    }
}

impl Check {
    pub(super) fn ok(
        what: impl Into<String>,
        looked_for: impl Into<String>,
        found: String,
    ) -> Check {
        Check {
            what: what.into(),
            looked_for: looked_for.into(),
            found: Some(found),
            version: None,
            problem: None,
        }
    }

    pub(super) fn missing(
        what: impl Into<String>,
        looked_for: impl Into<String>,
        code: &'static str,
        message: String,
        fix: impl Into<String>,
    ) -> Check {
        Check {
            what: what.into(),
            looked_for: looked_for.into(),
            found: None,
            version: None,
            problem: Some(Problem {
                code,
                message,
                fix: fix.into(),
                status: status_of(code),
            }),
        }
    }

    /// The same check, its STATUS `status` (what was learned beyond its code).
    pub(super) fn called(mut self, status: &'static str) -> Check {
        if let Some(problem) = &mut self.problem {
            problem.status = status;
        }
        self
    }

    /// Its STATUS word: `ok`, or what is wrong in a word or two.
    pub(crate) fn status(&self) -> &'static str {
        self.problem.as_ref().map_or("ok", |p| p.status)
    }

    /// The diagnostic of a failed check.
    pub(crate) fn diagnostic(&self) -> Option<Diagnostic> {
        let problem = self.problem.as_ref()?;
        Some(
            Diagnostic::error(problem.code, format!("{}: {}", self.what, problem.message))
                .fix(problem.fix.clone()),
        )
    }
}

/// The failed checks as diagnostics (empty: everything is there).
pub(crate) fn problems(checks: &[Check]) -> Vec<Diagnostic> {
    checks.iter().filter_map(Check::diagnostic).collect()
}

/// Where `program` resolves the way the OS will start it: a name on `PATH`, a path with a
/// slash (or, on Windows, a backslash) relative to `cwd` (the child's working folder). On
/// Windows a name without an extension is looked up as `NAME.exe`, as std starts it (a batch
/// file is named with its `.bat` or `.cmd`).
pub(crate) fn find_program(program: &str, cwd: &Path) -> Result<PathBuf, String> {
    if program.contains('/') || (cfg!(windows) && program.contains('\\')) {
        let path = cwd.join(program);
        return if executable(&path) {
            Ok(path)
        } else {
            Err(format!("no executable file at `{}`", path.display()))
        };
    }
    let name = if cfg!(windows) && Path::new(program).extension().is_none() {
        format!("{program}.exe")
    } else {
        program.to_owned()
    };
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join(&name))
        .find(|candidate| executable(candidate))
        .ok_or_else(|| {
            let dirs: Vec<String> = std::env::split_paths(&path)
                .map(|p| p.display().to_string())
                .collect();
            format!(
                "`{name}` is not on PATH ({})",
                dirs.join(if cfg!(windows) { ";" } else { ":" })
            )
        })
}

/// Whether `path` is a file the OS would start: executable by someone (Unix), any file
/// (Windows, where the extension decides how it starts).
fn executable(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| {
        #[cfg(unix)]
        let runnable = std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o111 != 0;
        #[cfg(not(unix))]
        let runnable = true;
        m.is_file() && runnable
    })
}

fn program(what: &str, program: &str, cwd: &Path, code: &'static str, fix: &str) -> Check {
    match find_program(program, cwd) {
        Ok(path) => Check::ok(what, program, path.display().to_string()),
        Err(message) => Check::missing(what, program, code, message, fix),
    }
}

/// A program's name without its folder and extension (`/opt/bin/opencode.exe` → `opencode`).
fn runtime_name(program: &str) -> String {
    Path::new(program)
        .file_stem()
        .map_or_else(String::new, |n| n.to_string_lossy().to_ascii_lowercase())
}

/// The programs of the config: the agent, each verification command, the outside reviewer.
pub(crate) fn programs(config: &Config) -> Vec<Check> {
    let workspace = &config.workspace;
    let mut checks = Vec::new();
    if let Some(agent) = &config.agent {
        checks.push(match agent.kind {
            // The runtime configured by its program's name: OpenCode's runtime is not DevEco Code.
            AgentKind::Deveco if runtime_name(&agent.program) == "opencode" => program(
                "agent (OpenCode)",
                &agent.program,
                workspace,
                "E_PREFLIGHT_AGENT",
                "install OpenCode's runtime (`npm install -g opencode-ai`, or the version \
                 `.ci/agent-deps` pins) and put `opencode` on PATH, or set `agent.program` to \
                 where it is",
            ),
            AgentKind::Deveco => program(
                "agent (DevEco Code)",
                &agent.program,
                workspace,
                "E_PREFLIGHT_AGENT",
                "install DevEco Code, Huawei's coding agent for Windows and macOS (not on npm; its \
                 source and install notes: gitcode.com/openharmony-sig/deveco-code), and put \
                 `deveco` on PATH; on Linux, or to gate without it, configure `agent: { kind: \
                 command, argv: [...] }` in dwpipe.yaml (README: Gating a change without DevEco \
                 Code)",
            ),
            AgentKind::Acp => program(
                "agent (ACP)",
                &agent.argv[0],
                workspace,
                "E_PREFLIGHT_AGENT",
                "install the agent, or fix `agent.argv` in dwpipe.yaml (the command that starts \
                 it speaking ACP on stdin and stdout; relative paths are relative to the \
                 workspace)",
            ),
            AgentKind::Command => program(
                "agent",
                &agent.argv[0],
                workspace,
                "E_PREFLIGHT_AGENT",
                "install the agent, or fix `agent.argv` in dwpipe.yaml (relative paths are \
                 relative to the workspace)",
            ),
        });
    }
    for command in &config.verify {
        checks.push(program(
            &format!("verify: {}", command.name),
            &command.argv[0],
            workspace,
            "E_PREFLIGHT_VERIFY",
            "install the tool, or fix its `argv` in dwpipe.yaml (relative paths are relative to \
             the workspace: a project's own wrapper is `./hvigorw`; the command-line tools put \
             `hvigorw` in their `bin/`)",
        ));
    }
    if let Some((argv, _)) = &config.review.reviewer {
        checks.push(program(
            "outside reviewer",
            &argv[0],
            Path::new("."),
            "E_PREFLIGHT_REVIEWER",
            "install the reviewer, fix `review.reviewer.argv`, or run with --no-review",
        ));
    }
    checks
}

/// The hdc client.
pub(crate) fn hdc(binary: &Path) -> Check {
    program(
        "hdc",
        &binary.display().to_string(),
        Path::new("."),
        "E_HDC_NOT_FOUND",
        "install the HarmonyOS command-line tools (hdc is in `sdk/default/openharmony/toolchains/` \
         of Huawei's Command Line Tools for HarmonyOS, or of DevEco Studio's SDK) and put that \
         folder on PATH, set DEVECO_SDK_HOME to the `sdk` folder, or pass --hdc PATH (DWPIPE_HDC)",
    )
}

/// A playbook for every probe of the pack.
pub(crate) fn playbooks(pack: &Pack, playbooks: &Playbooks) -> Vec<Check> {
    let mut probes: Vec<&str> = pack
        .criteria
        .iter()
        .filter_map(|c| c.assertion.as_ref()?.probe.as_ref())
        .map(|p| p.kind.id)
        .collect();
    probes.sort_unstable();
    probes.dedup();
    probes
        .into_iter()
        .map(|probe| match playbooks.probes.get(probe) {
            Some(playbook) => Check::ok(
                format!("playbook {probe}"),
                probe,
                format!("session `{}`", playbook.session),
            ),
            None => Check::missing(
                format!("playbook {probe}"),
                probe,
                "E_PREFLIGHT_PLAYBOOK",
                "no playbook measures it".to_owned(),
                "add it to the --playbooks folder, or drop the override that removed it",
            ),
        })
        .collect()
}

/// A folder the run can write into: created if need be, and a file written and removed.
pub(crate) fn writable(what: &str, folder: &Path) -> Check {
    let probe = folder.join(format!(".dwpipe-preflight-{}", std::process::id()));
    let result = std::fs::create_dir_all(folder)
        .and_then(|()| std::fs::write(&probe, b""))
        .and_then(|()| std::fs::remove_file(&probe));
    match result {
        Ok(()) => Check::ok(what, folder.display().to_string(), "writable".to_owned()),
        Err(e) => Check::missing(
            what,
            folder.display().to_string(),
            "E_PREFLIGHT_FOLDER",
            format!("cannot write into `{}`: {e}", folder.display()),
            "pass --out a folder you can write to",
        ),
    }
}

/// The history the run records into: opened (created if missing, migrated) and closed, so
/// that a history that cannot be used is found before anything is dispatched.
pub(crate) fn history(store: &crate::history::Store) -> Check {
    match crate::history::Recorder::at(store).prepare() {
        Ok(()) => Check::ok("history", store.to_string(), "usable".to_owned()),
        Err(e) => Check::missing(
            "history",
            store.to_string(),
            e.code(),
            crate::diagnostic::chain(&e),
            e.fix(),
        ),
    }
}

#[cfg(test)]
mod tests;
