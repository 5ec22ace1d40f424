//! The agent stage against a real agent runtime: OpenCode's (which DevEco Code is built from
//! and whose command line it keeps), installed pinned from the npm registry by
//! `.ci/agent-deps`, driven by `dwpipe deliver` as `agent.kind: deveco` with `program:` pointed
//! at it, and played by a scripted model (`tests/agents/model_server.py`, an OpenAI-compatible
//! server on loopback). Each scenario ends as `deliver` promises: a clean edit finishes and is
//! verified; an edit the permission config withholds, a model that fails mid-answer and a model
//! that stalls end the run `incomplete (why)`; a tool error is finished but fixes nothing, and
//! the repair brief says how the run ended; a subagent's edit counts.
//!
//! Outside CI a missing runtime (no `.ci/agent-deps` run) skips with a line; inside CI it fails.

use dwpipe::schema::{Claim, DeliverReport, TerminalReason};
use std::fs;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};

use crate::support::Group;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::delivery::{PAGE, SPACING, deliver, project, run_dir};

/// OpenCode's runtime as `.ci/agent-deps` installs it, or `$DWPIPE_OPENCODE`.
#[track_caller]
fn runtime() -> Option<PathBuf> {
    let path = std::env::var_os("DWPIPE_OPENCODE").map_or_else(
        || {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("target/agent-deps/node_modules/.bin/opencode")
        },
        PathBuf::from,
    );
    if path.is_file() {
        return Some(path);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "OpenCode's runtime is missing at {} (run .ci/agent-deps)",
        path.display()
    );
    crate::support::skipped!(
        "the agent runtime tests (no OpenCode at {}; run .ci/agent-deps)",
        path.display()
    );
    None
}

/// The scripted model, stopped when dropped.
struct Model {
    child: Child,
    port: u16,
}

impl Model {
    /// Serves `turns` (see model_server.py) on a free port of 127.0.0.1.
    #[track_caller]
    fn start(dir: &Path, turns: &Value) -> Model {
        let scenario = dir.join("scenario.json");
        fs::write(&scenario, turns.to_string()).unwrap();
        let port_file = dir.join("model.port");
        let child = Command::new("python3")
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/agents/model_server.py"))
            .arg(&scenario)
            .arg(&port_file)
            .spawn()
            .expect("python3 runs the scripted model");
        let started = Instant::now();
        while !port_file.is_file() {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "the model never listened"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        let port = fs::read_to_string(&port_file).unwrap().parse().unwrap();
        Model { child, port }
    }
}

impl Drop for Model {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// How dwpipe talks to the runtime.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Channel {
    /// `kind: deveco` over `run --format json`.
    Run,
    /// `kind: deveco` with `transport: acp`.
    Acp,
    /// `kind: acp` with the runtime's own argv, as any ACP agent is driven.
    AnyAcp,
}

/// A delivery of the example whose agent is OpenCode's runtime playing `turns`, with `edit`
/// allowed or not and `idle` as the idle watchdog's limit: (exit code, deliver.json, run
/// folder, project folder).
fn delivered(
    opencode: &Path,
    turns: impl FnOnce(&Path) -> Value,
    edit: &str,
    idle: &str,
) -> (i32, DeliverReport, PathBuf, tempfile::TempDir) {
    delivered_on(opencode, turns, (edit, idle), "notes-pass")
}

/// [`delivered`], audited on the capture `replay`.
fn delivered_on(
    opencode: &Path,
    turns: impl FnOnce(&Path) -> Value,
    (edit, idle): (&str, &str),
    replay: &str,
) -> (i32, DeliverReport, PathBuf, tempfile::TempDir) {
    delivered_over(Channel::Run, opencode, turns, (edit, idle), replay)
}

/// [`delivered_on`] over `channel`.
#[track_caller]
fn delivered_over(
    channel: Channel,
    opencode: &Path,
    turns: impl FnOnce(&Path) -> Value,
    (edit, idle): (&str, &str),
    replay: &str,
) -> (i32, DeliverReport, PathBuf, tempfile::TempDir) {
    let dir = project("[true]", SPACING, replay, "");
    let page = dir.path().join(PAGE);
    let model = Model::start(dir.path(), &turns(&page));
    let cache = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/agent-deps/cache");
    let state = dir.path().join("agent-home");
    let config = json!({
        "provider": {"scripted": {
            "npm": "@ai-sdk/openai-compatible",
            "name": "Scripted",
            "options": {"baseURL": format!("http://127.0.0.1:{}/v1", model.port), "apiKey": "none"},
            "models": {"scripted": {"name": "Scripted", "tool_call": true}}
        }},
        "model": "scripted/scripted",
        "permission": {"edit": edit, "bash": "deny", "external_directory": if edit == "ask" { "ask" } else { "deny" }}
    });
    let yaml = fs::read_to_string(dir.path().join("dwpipe.yaml")).unwrap();
    let rest = yaml.split_once("verify:").unwrap().1;
    let agent = match channel {
        Channel::Run | Channel::Acp => format!(
            "  kind: deveco\n  program: {}\n  mode: build\n  config-env: OPENCODE_CONFIG_CONTENT\n  config: {config}\n{}",
            opencode.display(),
            if channel == Channel::Acp {
                "  transport: acp\n"
            } else {
                ""
            }
        ),
        // Any ACP agent: its argv, its configuration through its environment.
        Channel::AnyAcp => format!(
            "  kind: acp\n  argv: [{}, acp, --cwd, '{{workspace}}']\n",
            opencode.display()
        ),
    };
    let config_env = match channel {
        Channel::AnyAcp => format!("    OPENCODE_CONFIG_CONTENT: '{config}'\n"),
        Channel::Run | Channel::Acp => String::new(),
    };
    fs::write(
        dir.path().join("dwpipe.yaml"),
        format!(
            "workspace: project\nagent:\n{agent}  timeout: 2m\n  idle-timeout: {idle}\n  env:\n{config_env}    XDG_DATA_HOME: {home}/data\n    XDG_STATE_HOME: {home}/state\n    XDG_CONFIG_HOME: {home}/config\n    XDG_CACHE_HOME: {cache}\nrepair:\n  max-rounds: 1\nverify:{rest}",
            home = state.display(),
            cache = cache.display(),
        ),
    )
    .unwrap();
    let (code, report, stderr) = deliver(dir.path(), &["--no-review"]);
    drop(model);
    assert!(!stderr.contains("panicked"), "{stderr}");
    let run = run_dir(&report, dir.path());
    (code, report, run, dir)
}

/// The run's ledger says the agent's first run finished, by dwpipe's reading of its stream.
#[track_caller]
fn ledger_says_finished(run: &Path) {
    let reason = agent_reason(run);
    assert!(reason.contains("ending: finished"), "{reason}");
}

/// What the ledger's agent line says.
fn agent_reason(run: &Path) -> String {
    let ledger = fs::read_to_string(run.join("ledger.jsonl")).unwrap();
    let agent: Value = ledger
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|l| l["stage"] == "agent")
        .expect("an agent line");
    agent["reason"].as_str().unwrap().to_owned()
}

/// The answers dwpipe gave the agent's requests in round 1.
fn answers(run: &Path) -> Vec<Value> {
    fs::read_to_string(run.join("agent-1.answers.jsonl"))
        .expect("every answer is recorded")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn edit(page: &Path, from: &str, to: &str) -> Value {
    json!({"tool": "edit", "arguments": {"filePath": page, "oldString": from, "newString": to}})
}

#[test]
fn a_clean_edit_finishes_and_is_verified() {
    let Some(opencode) = runtime() else { return };
    let (code, report, run, dir) = delivered(
        &opencode,
        |page| json!([edit(page, "space: 8", "space: 12"), {"text": "Set the spacing to 12.\nResult: PASS"}]),
        "allow",
        "1m",
    );
    assert_eq!(code, 0, "{report:?}");
    assert_eq!(report.terminal_reason, TerminalReason::Verified);
    assert_eq!(report.agent_ending.as_deref(), Some("finished"));
    // The claim is recorded as a claim; the verdict is the recomputed one.
    assert_eq!(report.agent_claim, Some(Claim::Pass));
    let page = fs::read_to_string(dir.path().join(PAGE)).unwrap();
    assert!(page.contains("List({ space: 12 })"), "{page}");
    assert!(
        run.join("agent-1.session.json").is_file(),
        "the runtime's own export of the session is kept"
    );
    ledger_says_finished(&run);
}

#[test]
fn an_edit_the_permission_config_withholds_leaves_the_run_incomplete_on_either_channel() {
    let Some(opencode) = runtime() else { return };
    // The runtime answers the call with its `invalid` tool: an event over `run`, a tool call
    // titled `invalid` over ACP.
    for channel in [Channel::Run, Channel::Acp] {
        let (code, report, _, dir) = delivered_over(
            channel,
            &opencode,
            |page| json!([edit(page, "space: 8", "space: 12"), {"text": "Done.\nResult: PASS"}]),
            ("deny", "1m"),
            "notes-pass",
        );
        assert_eq!(code, 1, "{report:?}");
        assert_eq!(report.terminal_reason, TerminalReason::AgentIncomplete);
        assert_eq!(
            report.agent_ending.as_deref(),
            Some(
                "incomplete (permission rejected for edit (not available to the agent) (the run went on without it))"
            )
        );
        let page = fs::read_to_string(dir.path().join(PAGE)).unwrap();
        assert!(page.contains("List({ space: 8 })"), "{page}");
    }
}

#[test]
fn a_model_that_fails_mid_answer_leaves_the_run_incomplete_on_either_channel() {
    let Some(opencode) = runtime() else { return };
    // Over `run` the runtime exits 1 with an `error` event; over ACP it answers the prompt with
    // the error instead of a stop reason.
    for (channel, said) in [
        (
            Channel::Run,
            "incomplete (the agent exited 1; session error: ",
        ),
        (Channel::Acp, "incomplete (session error: "),
    ] {
        let (code, report, _, _) = delivered_over(
            channel,
            &opencode,
            |_| json!([{"fail": "the scripted model failed mid-answer"}]),
            ("ask", "1m"),
            "notes-pass",
        );
        assert_eq!(code, 1, "{report:?}");
        assert_eq!(report.terminal_reason, TerminalReason::AgentIncomplete);
        let ending = report.agent_ending.as_deref().unwrap();
        assert!(
            ending.starts_with(said) && ending.contains("the scripted model failed mid-answer"),
            "{ending}"
        );
    }
}

#[test]
fn a_model_that_stalls_is_stopped_by_the_idle_watchdog() {
    let Some(opencode) = runtime() else { return };
    let started = Instant::now();
    let (code, report, _, _) = delivered(&opencode, |_| json!([{"stall": true}]), "allow", "3s");
    assert_eq!(code, 1, "{report:?}");
    assert_eq!(report.terminal_reason, TerminalReason::AgentIncomplete);
    assert!(
        report
            .agent_ending
            .as_deref()
            .unwrap()
            .starts_with("incomplete (stalled: no event and no change in the workspace for 3s"),
        "{report:?}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "stopped by the watchdog, not the time limit"
    );
}

#[test]
fn a_tool_error_finishes_but_fixes_nothing_and_the_claim_stays_a_claim() {
    let Some(opencode) = runtime() else { return };
    // The project folder lives as long as the test reads it.
    let (code, report, run, _project) = delivered(
        &opencode,
        |page| json!([edit(page, "space: 99", "space: 12"), {"text": "Done.\nResult: PASS"}]),
        "allow",
        "1m",
    );
    // The edit failed inside the runtime and the model claimed PASS anyway: the run finished,
    // nothing changed, and the workspace as it stands fails its verification.
    assert_eq!(code, 1, "{report:?}");
    assert_eq!(report.terminal_reason, TerminalReason::NoChanges);
    assert_eq!(report.agent_ending.as_deref(), Some("finished"));
    assert_eq!(report.agent_claim, Some(Claim::Pass));
    assert_eq!(report.unresolved, ["spacing"]);
    assert_eq!(
        report.detail.as_deref(),
        Some("the agent changed nothing, and the workspace as it stands does not pass")
    );
    ledger_says_finished(&run);
}

#[test]
fn an_incomplete_run_that_changed_the_code_is_audited_and_the_repair_brief_says_how_it_ended() {
    let Some(opencode) = runtime() else { return };
    // The edit lands, then the model fails: the change is verified and audited all the same
    // (the evidence decides), the audit on the failing capture fails, and the agent is sent
    // back with a brief that says its last run did not finish.
    let (code, report, run, _project) = delivered_on(
        &opencode,
        |page| json!([edit(page, "space: 8", "space: 12"), {"fail": "the scripted model failed mid-answer"}]),
        ("allow", "1m"),
        "notes-fail",
    );
    assert_eq!(code, 1, "{report:?}");
    let brief = fs::read_to_string(run.join("repair-brief-1.md")).unwrap();
    assert!(
        brief.contains("incomplete") && brief.contains("the scripted model failed mid-answer"),
        "{brief}"
    );
    let stages = crate::support::delivery::stages(&run);
    assert!(
        stages.contains(&"verify/0/pass".to_owned()) && stages.contains(&"audit/0/fail".to_owned()),
        "{stages:?}"
    );
}

#[test]
fn a_subagents_edit_counts() {
    let Some(opencode) = runtime() else { return };
    let (code, report, _, dir) = delivered(
        &opencode,
        |page| {
            json!([
                {"tool": "task", "arguments": {"description": "Set the spacing", "prompt": "Set the list spacing to 12", "subagent_type": "general"}},
                edit(page, "space: 8", "space: 12"),
                {"text": "The spacing is 12."},
                {"text": "The subagent set the spacing.\nResult: PASS"}
            ])
        },
        "allow",
        "1m",
    );
    assert_eq!(code, 0, "{report:?}");
    assert_eq!(report.agent_ending.as_deref(), Some("finished"));
    let page = fs::read_to_string(dir.path().join(PAGE)).unwrap();
    assert!(page.contains("List({ space: 12 })"), "{page}");
}

// Over ACP: the same runtime as an ACP agent (`transport: acp`), edits asked of dwpipe
// (`permission.edit: ask`) and answered by its policy.

#[test]
fn over_acp_an_edit_inside_the_workspace_is_allowed_and_the_turn_ends_on_its_stop_reason() {
    let Some(opencode) = runtime() else { return };
    let (code, report, run, dir) = delivered_over(
        Channel::Acp,
        &opencode,
        |page| json!([edit(page, "space: 8", "space: 12"), {"text": "Set the spacing to 12.\nResult: PASS"}]),
        ("ask", "1m"),
        "notes-pass",
    );
    assert_eq!(code, 0, "{report:?}");
    assert_eq!(report.terminal_reason, TerminalReason::Verified);
    assert_eq!(report.agent_ending.as_deref(), Some("finished"));
    assert_eq!(
        report.agent_claim,
        Some(Claim::Pass),
        "a claim, read from its messages"
    );
    let page = fs::read_to_string(dir.path().join(PAGE)).unwrap();
    assert!(page.contains("List({ space: 12 })"), "{page}");
    let reason = agent_reason(&run);
    assert!(reason.contains("stop reason: end_turn"), "{reason}");
    let answered = answers(&run);
    let permission = answered
        .iter()
        .find(|a| a["method"] == "session/request_permission")
        .expect("the edit was asked of dwpipe");
    assert_eq!(permission["answer"], "allowed", "{permission}");
    assert_eq!(permission["kind"], "edit");
    assert_eq!(permission["own-session"], true);
    assert!(
        permission["paths"][0].as_str().unwrap().ends_with(PAGE),
        "{permission}"
    );
    assert!(run.join("agent-1.session.json").is_file());
}

#[test]
fn over_acp_an_edit_outside_the_workspace_is_denied_and_the_run_is_incomplete() {
    let Some(opencode) = runtime() else { return };
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("elsewhere.txt");
    fs::write(&target, "space: 8\n").unwrap();
    let (code, report, run, dir) = delivered_over(
        Channel::Acp,
        &opencode,
        |_| json!([edit(&target, "space: 8", "space: 12"), {"text": "Done.\nResult: PASS"}]),
        ("ask", "1m"),
        "notes-pass",
    );
    assert_eq!(code, 1, "{report:?}");
    assert_eq!(report.terminal_reason, TerminalReason::AgentIncomplete);
    let ending = report.agent_ending.as_deref().unwrap();
    assert!(
        ending.starts_with("incomplete (dwpipe's policy denied ")
            && ending.contains("is outside the workspace"),
        "{ending}"
    );
    assert_eq!(fs::read_to_string(&target).unwrap(), "space: 8\n");
    let page = fs::read_to_string(dir.path().join(PAGE)).unwrap();
    assert!(page.contains("List({ space: 8 })"), "{page}");
    let answered = answers(&run);
    assert!(
        answered
            .iter()
            .any(|a| a["answer"] == "denied"
                && a["paths"].as_array().unwrap().contains(&json!(target))),
        "{answered:?}"
    );
}

#[test]
fn over_acp_a_subagent_waiting_on_an_unforwarded_permission_is_named_when_the_watchdog_stops_it() {
    let Some(opencode) = runtime() else { return };
    let (code, report, _, _) = delivered_over(
        Channel::Acp,
        &opencode,
        |page| {
            json!([
                {"tool": "task", "arguments": {"description": "Set the spacing", "prompt": "Set the list spacing to 12", "subagent_type": "general"}},
                edit(page, "space: 8", "space: 12"),
                {"text": "The spacing is 12."},
                {"text": "Result: PASS"}
            ])
        },
        ("ask", "12s"),
        "notes-pass",
    );
    assert_eq!(code, 1, "{report:?}");
    let ending = report.agent_ending.as_deref().unwrap();
    assert!(
        ending.starts_with("incomplete (stalled: ")
            && ending.contains("the subagent task `Set the spacing` was still running"),
        "{ending}"
    );
}

#[test]
fn any_acp_agent_is_driven_by_its_argv_through_the_same_client() {
    let Some(opencode) = runtime() else { return };
    let (code, report, run, dir) = delivered_over(
        Channel::AnyAcp,
        &opencode,
        |page| json!([edit(page, "space: 8", "space: 12"), {"text": "Result: PASS"}]),
        ("ask", "1m"),
        "notes-pass",
    );
    assert_eq!(code, 0, "{report:?}");
    assert_eq!(report.agent_ending.as_deref(), Some("finished"));
    let page = fs::read_to_string(dir.path().join(PAGE)).unwrap();
    assert!(page.contains("List({ space: 12 })"), "{page}");
    assert!(answers(&run).iter().any(|a| a["answer"] == "allowed"));
    assert!(
        !run.join("agent-1.session.json").exists(),
        "no DevEco export for a generic agent"
    );
}

// The gate inside OpenCode's own loop: `integrations/opencode/dwpipe-gate.js`, loaded by the
// real runtime's server, runs `dwpipe hook stop --target opencode` when the session goes idle
// and prompts it again with the repair brief until the gate passes.

/// One POST to the runtime's server on loopback (through Python's urllib, which speaks
/// HTTP/1.1 as the server expects), waiting at most `wait`: the JSON it answered (`null` for
/// none), or `None` when it did not answer in time.
fn post(port: u16, path: &str, body: &Value, wait: Duration) -> Option<Value> {
    let script = "import sys, urllib.request\nrequest = urllib.request.Request(sys.argv[1], data=sys.argv[2].encode(), headers={'Content-Type': 'application/json'})\nprint(urllib.request.urlopen(request, timeout=float(sys.argv[3])).read().decode() or 'null')";
    let output = Command::new("python3")
        .args(["-c", script])
        .arg(format!("http://127.0.0.1:{port}{path}"))
        .arg(body.to_string())
        .arg(wait.as_secs_f64().to_string())
        .output()
        .unwrap();
    output
        .status
        .success()
        .then(|| serde_json::from_slice(&output.stdout).unwrap())
}

/// A session of OpenCode's real server with dwpipe's plugin, in a project whose dwpipe.yaml
/// ends with `extra`, the model playing `turns` (given the page), `DWPIPE_LOOP_LIMIT` set to
/// `limit`: the project and what the hook said, once it said `rounds` things and then `settle`
/// passed with nothing more (or two minutes went by).
#[track_caller]
fn plugin_session(
    opencode: &Path,
    (turns, extra): (impl FnOnce(&Path) -> Value, &str),
    limit: &str,
    (rounds, settle): (usize, Duration),
) -> (tempfile::TempDir, Vec<String>) {
    let dir = project("[true]", SPACING, "notes-pass", extra);
    let page = dir.path().join(PAGE);
    let model = Model::start(dir.path(), &turns(&page));
    let plugin = Path::new(env!("CARGO_MANIFEST_DIR")).join("integrations/opencode/dwpipe-gate.js");
    let config = json!({
        "provider": {"scripted": {
            "npm": "@ai-sdk/openai-compatible",
            "name": "Scripted",
            "options": {"baseURL": format!("http://127.0.0.1:{}/v1", model.port), "apiKey": "none"},
            "models": {"scripted": {"name": "Scripted", "tool_call": true}}
        }},
        "model": "scripted/scripted",
        "permission": {"edit": "allow", "bash": "deny"},
        "plugin": [format!("file://{}", plugin.display())]
    });
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let home = dir.path().join("agent-home");
    // What the runtime installs into its config folder to load a plugin, as .ci/agent-deps
    // prepared it (installed inside the runtime, it costs a minute on every start).
    let prepared = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/agent-deps/opencode-config");
    fs::create_dir_all(home.join("config")).unwrap();
    let copied = Command::new("cp")
        .arg("-r")
        .arg(&prepared)
        .arg(home.join("config/opencode"))
        .status()
        .unwrap();
    assert!(
        copied.success(),
        "{} (run .ci/agent-deps)",
        prepared.display()
    );
    let server = Command::new(opencode)
        .args(["serve", "--port", &port.to_string()])
        .current_dir(dir.path().join("project"))
        .env("OPENCODE_CONFIG_CONTENT", config.to_string())
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_STATE_HOME", home.join("state"))
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env(
            "XDG_CACHE_HOME",
            Path::new(env!("CARGO_MANIFEST_DIR")).join("target/agent-deps/cache"),
        )
        .env("DWPIPE_BIN", env!("CARGO_BIN_EXE_dwpipe"))
        .env("DWPIPE_LEASES", crate::support::own_leases())
        .env("DWPIPE_CONFIG", dir.path().join("dwpipe.yaml"))
        .env("DWPIPE_PACK", dir.path().join("pack.yaml"))
        .env("DWPIPE_LOOP_LIMIT", limit)
        .env_remove("DWPIPE_HDC")
        .arg("--print-logs")
        .stdout(std::process::Stdio::null())
        .stderr(fs::File::create(dir.path().join("serve.log")).unwrap())
        // Its own group: the launcher npm installs starts the runtime as a child, and both go.
        .process_group(0)
        .spawn()
        .unwrap();
    let server = Group(server);
    // OpenCode 1.18.33's server leaves the first request it takes after it starts listening
    // unanswered (seen on every start here): ask, with a short wait, until it answers.
    let started = Instant::now();
    let session = loop {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the server never opened a session: {}",
            fs::read_to_string(dir.path().join("serve.log")).unwrap_or_default()
        );
        if let Some(opened) = post(port, "/session", &json!({}), Duration::from_secs(3)) {
            break opened["id"].as_str().unwrap().to_owned();
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    // Asynchronously, as a user's prompt: the turn, the plugin's gate and its prompt follow.
    post(
        port,
        &format!("/session/{session}/prompt_async"),
        &json!({"parts": [{"type": "text", "text": "Set the list spacing to 12vp."}]}),
        Duration::from_secs(30),
    )
    .expect("the prompt is accepted");
    // The plugin works after the turn: wait for the hook's record to say how it ended.
    let record = dir
        .path()
        .join(format!(".dwpipe/hooks/opencode-{session}.json"));
    let read = || -> Vec<String> {
        fs::read_to_string(&record)
            .ok()
            .and_then(|text| serde_json::from_str::<Value>(&text).ok())
            .map(|kept| {
                kept["rounds"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|r| r["said"].as_str().unwrap().to_owned())
                    .collect()
            })
            .unwrap_or_default()
    };
    while read().len() < rounds && started.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(200));
    }
    // Nothing more may follow (a loop that goes on would).
    std::thread::sleep(settle);
    let said = read();
    drop(server);
    drop(model);
    assert!(
        !said.is_empty(),
        "{}",
        fs::read_to_string(dir.path().join("serve.log")).unwrap_or_default()
    );
    (dir, said)
}

#[test]
fn the_opencode_plugin_sends_the_session_back_with_the_repair_brief_until_the_gate_passes() {
    let Some(opencode) = runtime() else { return };
    // The model first claims PASS without doing anything; sent back, it fixes the spacing.
    let turns = |page: &Path| {
        json!([
            {"text": "All done.\nResult: PASS"},
            edit(page, "space: 8", "space: 12"),
            {"text": "Fixed the spacing.\nResult: PASS"}
        ])
    };
    let (dir, said) = plugin_session(&opencode, (turns, ""), "8", (2, Duration::ZERO));
    assert_eq!(said, ["repair", "verified"]);
    let text = fs::read_to_string(dir.path().join(PAGE)).unwrap();
    assert!(text.contains("List({ space: 12 })"), "{text}");
    // The model was sent the repair brief as the session's next message.
    let requests = fs::read_to_string(dir.path().join("model.port.log")).unwrap();
    assert!(
        requests.contains("Repair round 1"),
        "the brief reached the model"
    );
}

#[test]
fn the_opencode_plugin_stops_prompting_after_its_loop_limit_when_the_gate_keeps_refusing() {
    let Some(opencode) = runtime() else { return };
    // A model that never fixes anything, a gate that is closed once its one round is spent:
    // without the plugin's own limit the session would be prompted for ever.
    let turns = |_: &Path| json!([{"text": "All done.\nResult: PASS"}]);
    let closed = "review:\n  fail-mode: closed\nrepair:\n  max-rounds: 1\n";
    let (_dir, said) = plugin_session(&opencode, (turns, closed), "2", (3, Duration::from_secs(8)));
    // Refused three times; the third was not passed on to the session, so no fourth stop came.
    assert_eq!(said, ["repair", "refused", "refused"]);
}
