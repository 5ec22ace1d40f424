//! `dwpipe hook stop`, as each harness runs it: its documented JSON on stdin, its answer read
//! from stdout. The gate runs verification and the audit (on the bundled captures) on the
//! workspace as it stands; the hook's own count of rounds, not `stop_hook_active`, bounds the
//! loop, and when the rounds run out each review fail mode answers as the outside reviewer's
//! does.

use crate::support::hook::{answered, stop_started};
use crate::support::{Ran, Test};
use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::Stdio;

use serde_json::{Value, json};

use crate::support::delivery::{FIXING_AGENT, PAGE, SPACING, project, stages};

/// `dwpipe hook stop --target HARNESS` in `dir` with `input` on stdin: (exit code, the JSON it
/// printed, stderr).
fn stop(dir: &Path, harness: &str, input: &Value) -> (i32, Value, String) {
    answered(stop_started(dir, harness, input))
}

/// Claude Code's and Codex's `Stop` input.
fn claude(session: &str, active: bool) -> Value {
    json!({"session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": "/w", "hook_event_name": "Stop", "stop_hook_active": active})
}

/// The project with the spacing fixed, as an agent would leave it.
fn fix(dir: &Path) {
    let page = dir.join(PAGE);
    let text = fs::read_to_string(&page).unwrap();
    fs::write(&page, text.replace("space: 8", "space: 12")).unwrap();
}

/// The session's record.
fn record(dir: &Path, name: &str) -> Value {
    let text = fs::read_to_string(dir.join(".dwpipe/hooks").join(format!("{name}.json"))).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn said(record: &Value) -> Vec<String> {
    record["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["said"].as_str().unwrap().to_owned())
        .collect()
}

/// A project whose config has `fail-mode` and at most one repair round.
fn tight(fail_mode: &str) -> tempfile::TempDir {
    project(
        FIXING_AGENT,
        SPACING,
        "notes-pass",
        &format!("review:\n  fail-mode: {fail_mode}\nrepair:\n  max-rounds: 1\n"),
    )
}

#[test]
fn claude_code_is_sent_back_with_the_repair_brief_until_the_gate_passes() {
    let dir = project(FIXING_AGENT, SPACING, "notes-pass", "");
    // The first stop: `stop_hook_active` true does not end the loop; the hook counts.
    let (code, answer, stderr) = stop(dir.path(), "claude-code", &claude("s1", true));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(answer["decision"], "block", "{answer}");
    let reason = answer["reason"].as_str().unwrap();
    assert!(
        reason.contains("repair round 1 of 4")
            && reason.contains("unresolved: spacing")
            && reason.contains("# Repair round 1"),
        "{reason}"
    );
    // The gate ran as a delivery does, in a run folder of its own.
    let kept = record(dir.path(), "claude-code-s1");
    let run = dir
        .path()
        .join(".dwpipe/runs")
        .join(kept["rounds"][0]["run"].as_str().unwrap());
    assert_eq!(
        stages(&run),
        [
            "verify/0/fail",
            "brief/1/written",
            "deliver/verification_failed"
        ]
    );
    assert!(run.join("repair-brief-1.md").is_file() && run.join("deliver.json").is_file());
    assert_eq!(kept["rounds"][0]["continuing"], true);
    // The agent fixed it: the gate passes, the agent may stop.
    fix(dir.path());
    let (code, answer, _) = stop(dir.path(), "claude-code", &claude("s1", true));
    assert_eq!((code, answer), (0, json!({})));
    let kept = record(dir.path(), "claude-code-s1");
    assert_eq!(said(&kept), ["repair", "verified"]);
    assert_eq!(kept["rounds"][1]["verdict"], "verified");
}

#[test]
fn codex_and_cursor_read_the_same_gate_in_their_own_words() {
    // The spacing fixed, the audit on the failing capture: the gate fails on the device.
    let dir = project(FIXING_AGENT, SPACING, "notes-fail", "");
    fix(dir.path());
    let mut input = claude("019a-x", false);
    input["last_assistant_message"] = json!("The spacing is fixed.\nResult: PASS");
    let (_, codex, _) = stop(dir.path(), "codex", &input);
    assert_eq!(codex["decision"], "block", "{codex}");
    assert!(
        codex["reason"].as_str().unwrap().contains("P-01"),
        "the audit's failing criteria: {codex}"
    );
    // The agent's PASS is kept as what it is: a claim, beside the recomputed verdict.
    let round = &record(dir.path(), "codex-019a-x")["rounds"][0];
    assert_eq!(
        (round["claim"].as_str(), round["verdict"].as_str()),
        (Some("pass"), Some("audit_failed"))
    );
    let cursor_input = json!({"conversation_id": "c1", "generation_id": "g1", "status": "completed", "loop_count": 0, "hook_event_name": "stop", "workspace_roots": ["/w"]});
    let (_, cursor, _) = stop(dir.path(), "cursor", &cursor_input);
    let followup = cursor["followup_message"]
        .as_str()
        .expect("Cursor's follow-up");
    assert!(followup.contains("# Repair round 1"), "{cursor}");
    assert!(cursor.get("decision").is_none(), "{cursor}");
    // A loop the user aborted is not gated, and not sent back.
    let aborted = json!({"conversation_id": "c2", "status": "aborted", "loop_count": 1});
    let (code, answer, _) = stop(dir.path(), "cursor", &aborted);
    assert_eq!((code, answer), (0, json!({})));
    let kept = record(dir.path(), "cursor-c2");
    assert_eq!(said(&kept), ["not-gated"]);
    assert!(kept["rounds"][0]["run"].is_null(), "no gate ran");
}

#[test]
fn when_the_rounds_run_out_open_lets_the_agent_stop_and_records_it() {
    let dir = tight("open");
    let (_, first, _) = stop(dir.path(), "claude-code", &claude("s", false));
    assert_eq!(first["decision"], "block");
    let (code, second, _) = stop(dir.path(), "claude-code", &claude("s", true));
    assert_eq!(code, 0);
    assert!(second.get("decision").is_none(), "{second:?}");
    let message = second["systemMessage"].as_str().unwrap();
    assert!(
        message.contains("NOT verified") && message.contains("repair.max-rounds: 1"),
        "{message}"
    );
    assert_eq!(
        said(&record(dir.path(), "claude-code-s")),
        ["repair", "allowed-unverified"]
    );
    // Let stop, the next stop begins a new loop: sent back with round 1 again.
    let (_, again, _) = stop(dir.path(), "claude-code", &claude("s", false));
    assert!(
        again["reason"]
            .as_str()
            .unwrap()
            .contains("repair round 1 of 1"),
        "{again}"
    );
}

#[test]
fn when_the_rounds_run_out_warn_sends_the_agent_back_once_to_say_it_is_unverified() {
    let dir = tight("warn");
    stop(dir.path(), "codex", &claude("s", false));
    let (_, warned, _) = stop(dir.path(), "codex", &claude("s", true));
    let reason = warned["reason"].as_str().unwrap();
    assert!(
        reason.contains("NOT verified") && reason.contains("say so in your final message"),
        "{reason}"
    );
    // Let stop unverified: Codex's user is told so, never handed a pass's `{}`.
    let (_, allowed, _) = stop(dir.path(), "codex", &claude("s", true));
    assert!(allowed.get("decision").is_none(), "{allowed}");
    assert!(
        allowed["systemMessage"]
            .as_str()
            .unwrap_or_default()
            .contains("NOT verified"),
        "{allowed}"
    );
    assert_eq!(
        said(&record(dir.path(), "codex-s")),
        ["repair", "warned", "allowed-unverified"]
    );
}

#[test]
fn when_the_rounds_run_out_closed_keeps_refusing_and_says_so() {
    let dir = tight("closed");
    stop(
        dir.path(),
        "cursor",
        &json!({"conversation_id": "c", "status": "completed", "loop_count": 0}),
    );
    for _ in 0..2 {
        let (_, refused, _) = stop(
            dir.path(),
            "cursor",
            &json!({"conversation_id": "c", "status": "completed", "loop_count": 1}),
        );
        let followup = refused["followup_message"].as_str().unwrap();
        assert!(followup.contains("keeps refusing"), "{followup}");
    }
    assert_eq!(
        said(&record(dir.path(), "cursor-c")),
        ["repair", "refused", "refused"]
    );
}

#[test]
fn a_gate_that_cannot_run_is_no_pass_and_input_it_cannot_count_is_said() {
    // No capture where dwpipe.yaml points: the gate cannot decide; fail-mode closed refuses.
    let dir = tight("closed");
    let config = fs::read_to_string(dir.path().join("dwpipe.yaml")).unwrap();
    fs::write(
        dir.path().join("dwpipe.yaml"),
        config.replace("notes-pass", "no-such-capture"),
    )
    .unwrap();
    let (code, answer, _) = stop(dir.path(), "claude-code", &claude("s", false));
    assert_eq!(code, 0);
    let reason = answer["reason"].as_str().unwrap();
    assert!(reason.contains("the gate could not decide"), "{reason}");
    // Input with no session, under `closed`: what the hook cannot read, it refuses.
    let (code, answer, stderr) = stop(
        dir.path(),
        "claude-code",
        &json!({"hook_event_name": "Stop"}),
    );
    assert_eq!(code, 0);
    assert_eq!(answer["decision"], "block", "{answer}");
    assert!(
        answer["reason"]
            .as_str()
            .unwrap()
            .contains("cannot read this stop"),
        "{answer}"
    );
    assert!(
        stderr.contains("no `session_id`") && stderr.contains("E_HOOK_INPUT"),
        "{stderr}"
    );
    // Under `warn` its rounds cannot be counted, so the agent is let stop, unverified.
    let dir = tight("warn");
    let (code, answer, stderr) = stop(
        dir.path(),
        "claude-code",
        &json!({"hook_event_name": "Stop"}),
    );
    assert_eq!(code, 0);
    assert!(
        answer["systemMessage"]
            .as_str()
            .unwrap()
            .contains("E_HOOK_INPUT"),
        "{answer}"
    );
    assert!(stderr.contains("no `session_id`"), "{stderr}");
}

/// Codex passes the agent's last message in its input: an agent that makes it too large to
/// read does not stop under `closed`, whatever it claimed.
#[test]
fn an_input_the_agent_made_too_large_is_refused_under_closed() {
    let long = "Result: PASS\n".repeat(200_000);
    for (mode, blocked) in [("closed", true), ("warn", false)] {
        let dir = tight(mode);
        let mut input = claude("019b-y", false);
        input["last_assistant_message"] = json!(long);
        let mut child = crate::support::dwpipe_command()
            .args(["hook", "stop", "--target", "codex", "--pack", "pack.yaml"])
            .current_dir(dir.path())
            .env_remove("DWPIPE_HDC")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        // The hook stops reading past its limit: the rest of the write may find the pipe shut.
        let writer =
            std::thread::spawn(move || drop(stdin.write_all(input.to_string().as_bytes())));
        let (code, answer, stderr) = answered(child);
        writer.join().unwrap();
        assert_eq!(code, 0, "{stderr}");
        assert!(
            stderr.contains("larger than 1048576 bytes"),
            "{mode}: {stderr}"
        );
        if blocked {
            assert_eq!(answer["decision"], "block", "{mode}: {answer}");
        } else {
            assert!(
                answer["systemMessage"]
                    .as_str()
                    .unwrap()
                    .contains("NOT verified"),
                "{mode}: {answer}"
            );
        }
    }
}

/// Cursor's own words for a loop that did not finish (`aborted`, `error`) leave it ungated;
/// any other status is gated, and the repair round the brief names is the one the reason
/// counts, whatever rounds the gate could not decide came before.
#[test]
fn cursor_statuses_it_does_not_document_are_gated_and_rounds_are_counted_alike() {
    let dir = tight("closed");
    let config = fs::read_to_string(dir.path().join("dwpipe.yaml")).unwrap();
    let broken = config.replace("notes-pass", "no-such-capture");
    fs::write(dir.path().join("dwpipe.yaml"), &broken).unwrap();
    for status in ["Completed", "done"] {
        let input = json!({"conversation_id": "c9", "status": status, "loop_count": 1});
        let (_, answer, _) = stop(dir.path(), "cursor", &input);
        let followup = answer["followup_message"].as_str().unwrap_or_default();
        assert!(
            followup.contains("the gate could not decide"),
            "{status}: {answer}"
        );
    }
    fs::write(dir.path().join("dwpipe.yaml"), &config).unwrap();
    let input = json!({"conversation_id": "c9", "status": "completed", "loop_count": 2});
    let (_, answer, _) = stop(dir.path(), "cursor", &input);
    let followup = answer["followup_message"].as_str().unwrap();
    assert!(followup.contains("repair round 1 of 1"), "{followup}");
    assert!(followup.contains("# Repair round 1:"), "{followup}");
    assert_eq!(
        said(&record(dir.path(), "cursor-c9")),
        ["refused", "refused", "repair"]
    );
}

#[test]
fn the_opencode_plugin_is_printed_as_the_repository_keeps_it() {
    let dir = tempfile::tempdir().unwrap();
    let Ran { stdout, .. } = Test::new(dir.path())
        .args(["hook", "plugin"])
        .status(0)
        .run();
    let kept = fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("integrations/opencode/dwpipe-gate.js"),
    )
    .unwrap();
    assert_eq!(stdout, kept);
    assert!(stdout.contains("export const DwpipeGate"));
}

/// The record is the agent's to write: garbage in it, a newer format, or a folder in its
/// place never lets a red gate stop the agent — `closed` refuses (in each harness's words),
/// `open` lets it stop unverified and says so (Codex's user sees it, never a bare `{}`).
#[test]
fn a_record_the_agent_spoiled_never_lets_a_red_gate_stop() {
    let dir = tight("closed");
    let hooks = dir.path().join(".dwpipe/hooks");
    fs::create_dir_all(&hooks).unwrap();
    type Spoil<'a> = &'a dyn Fn(&Path);
    let spoils: [(&str, Spoil<'_>); 3] = [
        ("garbage", &|p: &Path| {
            fs::write(p, "{\"rounds\": [").unwrap();
        }),
        ("newer", &|p: &Path| {
            fs::write(
                p,
                r#"{"format-version": 99, "harness": "claude-code", "session": "s", "rounds": []}"#,
            )
            .unwrap();
        }),
        ("folder", &|p: &Path| fs::create_dir(p).unwrap()),
    ];
    for (i, (what, spoil)) in spoils.iter().enumerate() {
        for harness in ["claude-code", "codex", "cursor"] {
            let session = format!("s{i}{harness}");
            spoil(&hooks.join(format!("{harness}-{session}.json")));
            let input = match harness {
                "cursor" => {
                    json!({"conversation_id": session, "status": "completed", "loop_count": 0})
                }
                _ => claude(&session, false),
            };
            let (code, answer, stderr) = stop(dir.path(), harness, &input);
            assert_eq!(code, 0, "{stderr}");
            let refusal = match harness {
                "cursor" => answer["followup_message"].as_str(),
                _ => {
                    assert_eq!(answer["decision"], "block", "{what} {harness}: {answer}");
                    answer["reason"].as_str()
                }
            };
            let refusal = refusal.unwrap_or_else(|| panic!("{what} {harness}: {answer}"));
            assert!(
                refusal.contains("cannot be counted") && refusal.contains("keeps refusing"),
                "{what} {harness}: {refusal}"
            );
            assert!(stderr.contains("E_HOOK_STATE"), "{what}: {stderr}");
        }
    }
    // A record that says the gate passed is only a count: the gate runs, and is red.
    fs::write(
        hooks.join("claude-code-forged.json"),
        r#"{"format-version": 1, "harness": "claude-code", "session": "forged", "rounds": [{"run": "x", "continuing": false, "verdict": "verified", "failure": null, "said": "verified"}]}"#,
    )
    .unwrap();
    let (_, answer, _) = stop(dir.path(), "claude-code", &claude("forged", true));
    assert_eq!(answer["decision"], "block", "{answer}");
    assert!(
        answer["reason"]
            .as_str()
            .unwrap_or_default()
            .contains("# Repair round 1"),
        "{answer}"
    );
    // Under `open`, the agent is let stop — said to be unverified, in Codex's words too.
    let open = tight("open");
    let hooks = open.path().join(".dwpipe/hooks");
    fs::create_dir_all(&hooks).unwrap();
    fs::write(hooks.join("codex-s.json"), "garbage").unwrap();
    let (_, answer, _) = stop(open.path(), "codex", &claude("s", false));
    let message = answer["systemMessage"].as_str().unwrap_or_default();
    assert!(
        answer.get("decision").is_none() && message.contains("NOT verified"),
        "{answer}"
    );
}

/// Stops that come together: three of one session are counted one after another (three
/// rounds), and two sessions gating one workspace at once each get the gate's answer.
#[test]
fn stops_that_come_together_are_each_answered_and_counted() {
    let dir = project(FIXING_AGENT, SPACING, "notes-fail", "");
    fix(dir.path());
    let same: Vec<_> = (0..3)
        .map(|_| stop_started(dir.path(), "claude-code", &claude("one", true)))
        .collect();
    for child in same {
        let (_, answer, _) = answered(child);
        assert_eq!(answer["decision"], "block", "{answer}");
    }
    let rounds = said(&record(dir.path(), "claude-code-one"));
    assert_eq!(rounds.len(), 3, "{rounds:?}");
    let two: Vec<_> = ["a", "b"]
        .iter()
        .map(|s| stop_started(dir.path(), "codex", &claude(s, false)))
        .collect();
    for child in two {
        let (_, answer, _) = answered(child);
        let reason = answer["reason"].as_str().unwrap_or_default();
        assert!(
            reason.contains("# Repair round 1") && !reason.contains("could not decide"),
            "{answer}"
        );
    }
}

/// The agent is held to the pack it was given: a pack changed within its loop leaves the gate
/// undecided (closed: refused), whatever it would say of the new one.
#[test]
fn a_pack_changed_within_the_loop_is_not_the_one_the_agent_was_given() {
    let dir = tight("closed");
    let (_, first, _) = stop(dir.path(), "claude-code", &claude("p", false));
    assert_eq!(first["decision"], "block");
    let pack = fs::read_to_string(dir.path().join("pack.yaml")).unwrap();
    fs::write(
        dir.path().join("pack.yaml"),
        pack.replace("statement: ", "statement: (loosened) "),
    )
    .unwrap();
    fix(dir.path());
    let (_, second, _) = stop(dir.path(), "claude-code", &claude("p", true));
    let reason = second["reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("the acceptance pack changed during this agent session"),
        "{second:?}"
    );
}
