//! What dwpipe does the same on every host, Windows included: `.ci/run` cross-compiles the
//! suite to `x86_64-pc-windows-gnu` and runs this module under Wine, where nothing but
//! dwpipe's own programs runs (no shell, no Unix tool, no Linux-only server). Its version and
//! name; the bundled example frozen, its recorded capture audited to PASS and the evidence
//! verified; the README's main job on the example; the stop hook given a harness's payload
//! with the host's own paths; a device lease held by one process refusing a second. (A child
//! tree stopped on cancel and on a timeout is `process::tests::tree`, in the library's tests.)

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::support::hook::{answered, stop_started};
use crate::support::{Test, capture, copy_tree, device, path_with_binaries, repo};

/// A copy of examples/notes whose config replays the recorded capture `notes-pass` by its
/// absolute path (a copy's relative one would lead nowhere).
fn example() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&repo().join("examples/notes"), dir.path());
    let config = dir.path().join("dwpipe.yaml");
    let text = fs::read_to_string(&config).unwrap();
    let replay = capture("notes-pass")
        .display()
        .to_string()
        .replace('\'', "''");
    let text = text.replace(
        "replay: ../../device-fixtures/notes-pass",
        &format!("replay: '{replay}'"),
    );
    assert!(text.contains(&replay), "the example replays notes-pass");
    fs::write(config, text).unwrap();
    dir
}

#[test]
fn it_says_its_name_and_version() {
    let ran = Test::new(&repo()).args(["--version"]).run();
    assert_eq!(
        ran.stdout.trim(),
        format!("dwpipe {}", env!("CARGO_PKG_VERSION"))
    );
    // Its usage names `dwpipe`, never the file it was started from (`dwpipe.exe`).
    let help = Test::new(&repo()).args(["freeze", "--help"]).run();
    assert!(
        help.stdout.contains("Usage: dwpipe freeze"),
        "{}",
        help.stdout
    );
}

#[test]
fn a_recorded_capture_audits_to_pass_and_its_evidence_verifies() {
    let dir = example();
    Test::new(dir.path())
        .args(["freeze", "pack.yaml"])
        .stdout_contains("frozen 9 criteria")
        .run();
    let capture = capture("notes-pass");
    Test::new(dir.path())
        .args(["audit", "--pack", "pack.lock.json", "--out", "audit"])
        .args(["--replay", capture.to_str().unwrap()])
        .stdout_contains("): PASS — 9 criteria: 9 pass")
        .run();
    // Paths inside the documents separate their parts with `/` on every host.
    let report = fs::read_to_string(dir.path().join("audit/audit-1.json")).unwrap();
    assert!(!report.contains(r"\\"), "a path with `\\` in audit-1.json");
    assert!(
        report.contains("\"path\": \"evidence/"),
        "evidence paths use `/`"
    );
    Test::new(dir.path())
        .args([
            "verify-evidence",
            "audit/audit-1.json",
            "--pack",
            "pack.lock.json",
        ])
        .stdout_contains("VERIFIED  audit/audit-1.json")
        .run();
}

#[test]
fn the_readme_main_job_delivers_the_bundled_example() {
    let dir = example();
    let ran = Test::new(dir.path())
        .args(["deliver", "--config", "dwpipe.yaml", "--pack", "pack.yaml"])
        .env("PATH", path_with_binaries())
        .stdout_contains("deliver: verified against a recorded capture")
        .run();
    assert!(
        ran.stdout.lines().last().unwrap().starts_with("open: "),
        "{}",
        ran.stdout
    );
    let page = fs::read_to_string(
        dir.path()
            .join("project/entry/src/main/ets/pages/Index.ets"),
    )
    .unwrap();
    assert!(
        page.contains("List({ space: 12 })"),
        "the scripted agent made its edit"
    );
}

/// `dwpipe hook stop --target claude-code` in `dir` with `input` on stdin.
fn stop(dir: &Path, input: &Value) -> (i32, Value, String) {
    answered(stop_started(dir, "claude-code", input))
}

#[test]
fn the_stop_hook_gates_a_payload_that_names_the_hosts_own_paths() {
    let dir = example();
    // As Claude Code writes it on the host: its transcript and cwd in the host's own form
    // (`C:\Users\…\t.jsonl` on Windows, its backslashes escaped in the JSON).
    let transcript = dir.path().join("transcript.jsonl");
    fs::write(&transcript, "").unwrap();
    let payload = json!({
        "session_id": "s1",
        "transcript_path": transcript.display().to_string(),
        "cwd": dir.path().display().to_string(),
        "hook_event_name": "Stop",
        "stop_hook_active": false,
    });
    let (code, answer, stderr) = stop(dir.path(), &payload);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(answer["decision"], "block", "{answer}\n{stderr}");
    let reason = answer["reason"].as_str().unwrap();
    assert!(
        reason.contains("repair round 1") && reason.contains("unresolved: spacing"),
        "{reason}"
    );
    // The agent fixes the page: the gate passes and the agent may stop.
    let page = dir
        .path()
        .join("project/entry/src/main/ets/pages/Index.ets");
    let text = fs::read_to_string(&page).unwrap();
    fs::write(&page, text.replace("space: 8", "space: 12")).unwrap();
    let (code, answer, stderr) = stop(dir.path(), &payload);
    assert_eq!((code, answer), (0, json!({})), "{stderr}");
}

/// `dwpipe audit` of the fake phone `PHONE-L` through fake-hdc (every call taking `latency`),
/// its leases in `dir/leases`, waiting at most `wait` for the phone.
fn leased_audit(dir: &Path, phone: &str, out: &str, latency: &str, wait: &str) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_dwpipe"));
    command
        .args(["audit", "--pack", "pack.lock.json", "--device", "PHONE-L"])
        .args(["--hdc", env!("CARGO_BIN_EXE_fake-hdc"), "--out", out])
        .args(["--lease-wait", wait])
        .current_dir(dir)
        .env("DWPIPE_LEASES", dir.join("leases"))
        .env("DWPIPE_FAKE_HDC_CAPTURES", phone)
        .env("DWPIPE_FAKE_HDC_STATE", dir.join(format!("state-{out}")))
        .env("DWPIPE_FAKE_HDC_LATENCY", latency)
        .env_remove("DWPIPE_HDC");
    command
}

#[test]
fn a_lease_held_by_one_process_refuses_a_second() {
    let dir = example();
    Test::new(dir.path()).args(["freeze", "pack.yaml"]).run();
    let phone = device(dir.path(), "notes-pass", "PHONE-L", false);
    let mut holder = leased_audit(dir.path(), &phone, "first", "200ms", "1m")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    crate::support::leasing(&dir.path().join("leases"), &mut holder);
    let refused = leased_audit(dir.path(), &phone, "refused", "0ms", "1s")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("E_DEVICE_LEASED"), "{stderr}");
    assert!(
        stderr.contains(&format!("dwpipe audit (pid {} on ", holder.id())),
        "the refusal names its holder: {stderr}"
    );
    let _ = holder.kill();
    let _ = holder.wait();
}
