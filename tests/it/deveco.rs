//! DevEco Code as it really behaves, through the real binary: scripted `deveco` programs
//! replay realistic `--format json` streams (research/field-2026-12.md §3.2) — a clean run, a
//! run killed mid-stream, one ending on `tool-calls`, one with a rejected permission and
//! exit 0, one that goes silent, one whose `export` fails — and each delivery's ledger line,
//! `deliver.json` and exit code are checked.

use dwpipe::schema::{DeliverReport, TerminalReason};
use std::fs;
use std::path::Path;

use crate::support::delivery::{PAGE, SPACING, deliver_with_path, project, run_dir};
use serde_json::Value;

const START: &str =
    r#"{"type":"step_start","timestamp":1,"sessionID":"ses_7f3a","part":{"type":"step-start"}}"#;
const PASS: &str = r#"{"type":"text","timestamp":2,"sessionID":"ses_7f3a","part":{"type":"text","text":"Verification report\nResult: PASS"}}"#;
const STOP: &str = r#"{"type":"step_finish","timestamp":3,"sessionID":"ses_7f3a","part":{"type":"step-finish","reason":"stop"}}"#;
const TOOL_CALLS: &str = r#"{"type":"step_finish","timestamp":3,"sessionID":"ses_7f3a","part":{"type":"step-finish","reason":"tool-calls"}}"#;
const REJECTED: &str = r#"{"type":"tool_use","timestamp":2,"sessionID":"ses_7f3a","part":{"type":"tool","tool":"external_directory","state":{"status":"error","error":"The user rejected permission to use this specific tool call."}}}"#;

/// The edit that makes the example pass.
const FIX: &str =
    "sed -i 's/List({ space: 8 })/List({ space: 12 })/' entry/src/main/ets/pages/Index.ets";

/// A project whose agent is DevEco Code, with `deveco` a script in `bin/`: `run` does
/// `work` (shell) and prints `events`; `export` does `export`.
fn deveco_project(work: &str, events: &[&str], export: &str) -> tempfile::TempDir {
    let dir = project("[]", SPACING, "notes-pass", "");
    let config = fs::read_to_string(dir.path().join("dwpipe.yaml"))
        .unwrap()
        .replace(
            "kind: command\n  argv: []",
            "kind: deveco\n  argv: []\n  idle-timeout: 1s",
        );
    fs::write(dir.path().join("dwpipe.yaml"), config).unwrap();
    let printed: String = events.iter().map(|e| format!("echo '{e}'\n")).collect();
    fs::create_dir_all(dir.path().join("bin")).unwrap();
    crate::support::executable(
        &dir.path().join("bin/deveco"),
        &format!(
            "#!/bin/sh\ncase \"$1\" in\n  run)\n{work}\n{printed};;\n  export) {export};;\nesac\n"
        ),
    );
    dir
}

/// `dwpipe deliver --pack pack.yaml --json` with the scripted `deveco` on PATH.
fn deliver(dir: &Path) -> (i32, DeliverReport) {
    deliver_with_path(dir, &["--pack", "pack.yaml"])
}

/// The agent stage's ledger line.
fn agent_line(run: &Path) -> Value {
    fs::read_to_string(run.join("ledger.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|l| l["stage"] == "agent")
        .unwrap()
}

const EXPORTED: &str = r#"echo '{"info":{"id":"ses_7f3a"},"messages":[]}'"#;

#[test]
fn a_clean_run_is_finished_and_its_session_is_kept() {
    let dir = deveco_project(FIX, &[START, PASS, STOP], EXPORTED);
    let (code, summary) = deliver(dir.path());
    assert_eq!(code, 0, "{summary:?}");
    assert_eq!(summary.terminal_reason, TerminalReason::Verified);
    assert_eq!(summary.agent_ending.as_deref(), Some("finished"));
    let run = run_dir(&summary, dir.path());
    let session: Value =
        serde_json::from_slice(&fs::read(run.join("agent-1.session.json")).unwrap()).unwrap();
    assert_eq!(session["info"]["id"], "ses_7f3a");
    let line = agent_line(&run);
    assert!(
        line["reason"]
            .as_str()
            .unwrap()
            .contains("ending: finished; session exported"),
        "{line}"
    );
}

#[test]
fn a_run_that_did_not_finish_and_changed_nothing_is_agent_incomplete() {
    for (events, kill, why) in [
        (&[START][..], "kill -9 $$", "killed mid-stream"),
        (&[START, TOOL_CALLS][..], "", "ended on `tool-calls`"),
    ] {
        // `kill` runs after the events are printed.
        let dir = deveco_project("", events, EXPORTED);
        if !kill.is_empty() {
            let script = fs::read_to_string(dir.path().join("bin/deveco"))
                .unwrap()
                .replace(";;\n  export)", &format!("{kill}\n;;\n  export)"));
            crate::support::executable(&dir.path().join("bin/deveco"), &script);
        }
        let (code, summary) = deliver(dir.path());
        assert_eq!(code, 1, "{summary:?}");
        assert_eq!(
            summary.terminal_reason,
            TerminalReason::AgentIncomplete,
            "{summary:?}"
        );
        let detail = summary.detail.as_deref().unwrap();
        assert!(detail.contains(why), "{detail}");
        let run = run_dir(&summary, dir.path());
        let line = agent_line(&run);
        assert!(
            line["reason"]
                .as_str()
                .unwrap()
                .contains("ending: incomplete"),
            "{line}"
        );
    }
}

#[test]
fn a_rejected_permission_with_exit_0_is_incomplete_and_the_evidence_decides() {
    // It edits the wrong thing, reports PASS and exits 0 after a rejected tool call.
    let dir = deveco_project(
        "echo x >> notes.txt",
        &[START, REJECTED, PASS, STOP],
        EXPORTED,
    );
    let (code, summary) = deliver(dir.path());
    assert_eq!(code, 1, "{summary:?}");
    assert_ne!(
        summary.terminal_reason,
        TerminalReason::AgentIncomplete,
        "it changed files"
    );
    assert!(
        summary
            .agent_ending
            .as_deref()
            .unwrap()
            .starts_with("incomplete (permission rejected for external_directory"),
        "{summary:?}"
    );
    let run = run_dir(&summary, dir.path());
    let brief = fs::read_to_string(run.join("repair-brief-1.md")).unwrap();
    assert!(
        brief
            .contains("Your last run ended incomplete (permission rejected for external_directory"),
        "{brief}"
    );
    assert!(
        !fs::read_to_string(dir.path().join(PAGE))
            .unwrap()
            .contains("space: 12")
    );
}

#[test]
fn a_run_that_goes_silent_is_stopped_as_stalled() {
    let dir = deveco_project("", &[START], EXPORTED);
    let script = fs::read_to_string(dir.path().join("bin/deveco"))
        .unwrap()
        .replace(";;\n  export)", "sleep 60\n;;\n  export)");
    crate::support::executable(&dir.path().join("bin/deveco"), &script);
    let started = std::time::Instant::now();
    let (code, summary) = deliver(dir.path());
    assert!(
        started.elapsed().as_secs() < 50,
        "the watchdog stopped it, not sleep's end"
    );
    assert_eq!(code, 1, "{summary:?}");
    assert_eq!(summary.terminal_reason, TerminalReason::AgentIncomplete);
    assert!(
        summary.detail.as_deref().unwrap().contains("stalled"),
        "{summary:?}"
    );
    let run = run_dir(&summary, dir.path());
    let log = fs::read_to_string(run.join("agent-1.log")).unwrap();
    assert!(
        log.contains("step_start") && log.contains("the run was stopped"),
        "{log}"
    );
}

#[test]
fn a_failed_export_is_recorded_not_fatal() {
    let dir = deveco_project(
        FIX,
        &[START, PASS, STOP],
        "echo 'no such session' >&2; exit 1",
    );
    let (code, summary) = deliver(dir.path());
    assert_eq!(code, 0, "{summary:?}");
    let run = run_dir(&summary, dir.path());
    assert!(!run.join("agent-1.session.json").exists());
    let line = agent_line(&run);
    assert!(
        line["reason"]
            .as_str()
            .unwrap()
            .contains("session not exported"),
        "{line}"
    );
}

/// The whole stream is judged, not the log's head and tail: a permission rejected 4.5 MiB into
/// a 6 MiB stream (past the 4 MiB head the log keeps, before its 1 MiB tail) leaves the run
/// incomplete. Here the workspace already met the pack and the
/// agent changed nothing, so a run that ended badly must not be `verified`.
#[test]
fn a_rejection_deep_in_a_long_stream_is_seen() {
    let dir = deveco_project("cat bin/events.jsonl", &[], EXPORTED);
    let page = dir.path().join(PAGE);
    let fixed = fs::read_to_string(&page)
        .unwrap()
        .replace("List({ space: 8 })", "List({ space: 12 })");
    fs::write(&page, fixed).unwrap();
    let chatter = format!(
        "{{\"type\":\"text\",\"timestamp\":2,\"sessionID\":\"ses_7f3a\",\"part\":{{\"type\":\"text\",\"text\":\"{}\"}}}}\n",
        "thinking ".repeat(100)
    );
    let mib = |n: usize| chatter.repeat(n * 1024 * 1024 / 2 / chatter.len() + 1);
    let events = format!("{START}\n{}{REJECTED}\n{}{PASS}\n{STOP}\n", mib(9), mib(3));
    assert!(events.len() > 6 * 1024 * 1024);
    fs::create_dir_all(dir.path().join("project/bin")).unwrap();
    fs::write(dir.path().join("project/bin/events.jsonl"), &events).unwrap();
    let (code, summary) = deliver(dir.path());
    assert_eq!(code, 1, "{summary:?}");
    assert_eq!(
        summary.terminal_reason,
        TerminalReason::AgentIncomplete,
        "{summary:?}"
    );
    assert!(
        summary
            .detail
            .as_deref()
            .unwrap()
            .contains("permission rejected for external_directory"),
        "{summary:?}"
    );
    // The kept log is bounded; the judgement was not.
    let run = run_dir(&summary, dir.path());
    let log = fs::metadata(run.join("agent-1.log")).unwrap().len();
    assert!(log < events.len() as u64, "{log}");
}
