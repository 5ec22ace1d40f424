//! Preflight: everything a run will need, resolved before anything is dispatched — the
//! agent's program, every verification command's program, the outside reviewer's, the hdc
//! client, the target (the one device reachable, identified, its density known; or the
//! capture), a playbook for every probe of the pack, a writable run folder. Every missing
//! piece is found in one pass and reported together, each with what was looked for, where,
//! and how to get it; `dwpipe doctor` prints the same checks as a table, with the versions of
//! the tools dwpipe knows (never a user's verification command: running it is not asking).

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use crate::config::{AgentKind, Config};
use crate::device::{AnyDevice, Device, DeviceError};
use crate::diagnostic::Diagnostic;
use crate::pack::Pack;
use crate::playbook::Playbooks;
use crate::process::{Cancel, Completion, ProcessSpec, run};
use crate::target::{HdcClient, Opened, Target};

/// How long a tool may take to say its version.
const VERSION_TIMEOUT: Duration = Duration::from_secs(15);

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
    fn ok(what: impl Into<String>, looked_for: impl Into<String>, found: String) -> Check {
        Check {
            what: what.into(),
            looked_for: looked_for.into(),
            found: Some(found),
            version: None,
            problem: None,
        }
    }

    fn missing(
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
    fn called(mut self, status: &'static str) -> Check {
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
/// slash relative to `cwd` (the child's working folder).
pub(crate) fn find_program(program: &str, cwd: &Path) -> Result<PathBuf, String> {
    let executable = |path: &Path| {
        std::fs::metadata(path).is_ok_and(|m| {
            m.is_file() && std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o111 != 0
        })
    };
    if program.contains('/') {
        let path = cwd.join(program);
        return if executable(&path) {
            Ok(path)
        } else {
            Err(format!("no executable file at `{}`", path.display()))
        };
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| executable(candidate))
        .ok_or_else(|| {
            format!(
                "`{program}` is not on PATH ({})",
                std::env::split_paths(&path)
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(":")
            )
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
         of Huawei's Command Line Tools for HarmonyOS, or of DevEco Studio's SDK) and put `hdc` \
         on PATH, or pass --hdc PATH (DWPIPE_HDC)",
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

/// The one device (or capture): it answers, says who it is, and knows its density. A signal
/// meanwhile is not a missing device: it ends the run.
async fn device(device: &AnyDevice) -> Result<Check, DeviceError> {
    let what = match device {
        AnyDevice::Replay(_) => "capture",
        _ => "device",
    };
    Ok(match device.identity().await {
        Err(DeviceError::Cancelled) => return Err(DeviceError::Cancelled),
        Ok(info) => match info.virtual_pixel_ratio {
            Some(vpr) => Check::ok(
                what,
                info.serial.clone(),
                format!(
                    "{} ({}), {vpr} px/vp",
                    info.model.as_deref().unwrap_or("model unknown"),
                    info.software_version
                        .as_deref()
                        .unwrap_or("software unknown")
                ),
            ),
            None => {
                // A shell that names neither model nor release has none of the phone's tools
                // (`param`, `hidumper`): a Linux box or an emulator's bare shell.
                let toolless = info.model.is_none() && info.software_version.is_none();
                Check::missing(
                    what,
                    info.serial.clone(),
                    "E_PREFLIGHT_DEVICE",
                    if toolless {
                        "its density (VirtualPixelRatio) is unknown: vp cannot be measured; its shell answers without the phone's tools (no `param`, no `hidumper`)".to_owned()
                    } else {
                        "its density (VirtualPixelRatio) is unknown: vp cannot be measured"
                            .to_owned()
                    },
                    "check `hdc shell hidumper -s DisplayManagerService -a -a` on the device",
                )
                .called(if toolless { "no tools" } else { "no density" })
            }
        },
        // Another job drives it: not a device that is missing.
        Err(e @ DeviceError::Leased { .. }) => Check::missing(
            what,
            "the target",
            e.code(),
            crate::diagnostic::chain(&e),
            "let the job that holds it end, or wait longer with --lease-wait DURATION (leases live in $DWPIPE_LEASES, else the temporary folder, or in the PostgreSQL history)",
        ),
        // The lease cannot be asked for: its folder, a planted lock file, its server.
        Err(DeviceError::Lease { serial, source }) => Check::missing(
            what,
            "the target",
            "E_DEVICE_LEASE",
            format!(
                "the lease on device {serial} cannot be taken: {}",
                crate::diagnostic::chain(&source)
            ),
            source.fix(),
        ),
        // hdc says "not found or connected" alike for a device its server lists Offline and
        // one it has never seen: the listing tells which.
        Err(e @ DeviceError::DeviceNotFound { .. }) => {
            let listed = match device {
                AnyDevice::Hdc(live) => live.listed_status().await,
                AnyDevice::Recording(recording) => recording.inner().listed_status().await,
                AnyDevice::Replay(_) => None,
            };
            let (status, said) = match listed.as_deref() {
                Some("Offline") => ("offline", "its server lists it Offline".to_owned()),
                Some(other) => ("not connected", format!("its server lists it {other}")),
                None => ("not listed", "its server does not list it".to_owned()),
            };
            Check::missing(
                what,
                "the target",
                e.code(),
                format!("{}; {said}", crate::diagnostic::chain(&e)),
                e.fix().unwrap_or_default(),
            )
            .called(status)
        }
        // The server has it connected, and nothing answers on it: a hung phone, not a
        // missing one.
        Err(e @ DeviceError::Timeout { .. }) => Check::missing(
            what,
            "the target",
            e.code(),
            crate::diagnostic::chain(&e),
            format!(
                "the phone is connected but does not answer: try `hdc -t {} shell echo ok`, and restart the phone (or its hdcd) if that hangs too",
                device.serial()
            ),
        ),
        // What hdc said of the server or the device is its own error, with its own fix.
        Err(e) => match e.fix() {
            Some(fix) => Check::missing(
                what,
                "the target",
                e.code(),
                crate::diagnostic::chain(&e),
                fix,
            ),
            None => Check::missing(
                what,
                "the target",
                "E_PREFLIGHT_DEVICE",
                crate::diagnostic::chain(&e),
                "check `dwpipe devices` (is it connected and authorized?), or pass --replay CAPTURE",
            ),
        },
    })
}

/// Why a run was not started.
#[derive(Debug)]
pub(crate) enum Refusal {
    /// What it needs is missing: every problem, at once.
    Missing(Vec<Diagnostic>),
    /// The target could not be opened (a broken capture, a lab whose servers all failed).
    Device(DeviceError),
}

/// Adds the target's checks to `checks` (the hdc client when it drives a live device or a
/// lab; the one device's identity) and opens it, unless something is missing. In a lab only
/// a missing hdc is fatal: devices that cannot be reached are seats in the matrix.
pub(crate) async fn open(
    mut checks: Vec<Check>,
    target: &Target,
    hdc: &HdcClient,
    cancel: &Cancel,
) -> (Vec<Check>, Result<Opened, Refusal>) {
    if !matches!(target, Target::Replay { .. }) {
        checks.push(self::hdc(&hdc.binary));
    }
    let hdc_missing = checks.iter().any(|c| {
        c.problem
            .as_ref()
            .is_some_and(|p| p.code == "E_HDC_NOT_FOUND")
    });
    if hdc_missing {
        let problems = problems(&checks);
        return (checks, Err(Refusal::Missing(problems)));
    }
    let opened = match target.open(hdc, cancel).await {
        Ok(opened) => opened,
        Err(e) => return (checks, Err(Refusal::Device(e))),
    };
    if let Opened::One(one) = &opened {
        match device(one).await {
            Ok(check) => checks.push(check),
            Err(cancelled) => return (checks, Err(Refusal::Device(cancelled))),
        }
    }
    let problems = problems(&checks);
    let result = if problems.is_empty() {
        Ok(opened)
    } else {
        Err(Refusal::Missing(problems))
    };
    (checks, result)
}

/// Asks the tools dwpipe knows their version (`hdc -v`, `deveco --version`, `hvigorw -v`).
pub(crate) async fn versions(checks: &mut [Check], cancel: &Cancel) {
    for check in checks.iter_mut().filter(|c| c.problem.is_none()) {
        let Some(found) = &check.found else { continue };
        let name = Path::new(&check.looked_for)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let flag = match name.as_str() {
            "hdc" => "-v",
            "deveco" | "opencode" => "--version",
            "hvigorw" | "hvigorw.js" => "-v",
            _ => continue,
        };
        let spec = ProcessSpec::new(found, [flag]).timeout(VERSION_TIMEOUT);
        if let Ok(outcome) = run(&spec, cancel).await
            && matches!(outcome.completion, Completion::Exited(_))
        {
            let text = outcome.stdout.to_string_lossy() + &outcome.stderr.to_string_lossy();
            check.version = text
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .map(|l| l.chars().take(80).collect());
        }
    }
}

#[cfg(test)]
mod tests;
