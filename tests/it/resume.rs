//! Interrupted deliveries through the real binary: SIGTERM (what a cancelled CI job, `timeout`
//! or a lab scheduler sends) stops the running stage like the first Ctrl-C, a second signal of
//! either kind kills what still runs, and every interrupted or failed run resumes from its
//! ledger, including ledgers written by earlier dwpipe versions.

use crate::support::Test;
use dwpipe::schema::{DeliverReport, TerminalReason};
use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::support::delivery::{
    FIXING_AGENT, PAGE, RESUMED_AND_VERIFIED, SPACING, alive, deliver_with_path, gone_soon,
    project, repo, resume, run_dir, signal, stages, wait_for_pid,
};

/// Blocks (writing the blocked process's pid to `../sleeper.pid`) until the test creates
/// `../go`: the work after it only happens in the run that resumes.
const UNTIL_GO: &str = "test -e ../go || { sleep 30 & echo $! > ../sleeper.pid; wait; }";

/// Waits for the child and reads its `--json` summary.
#[track_caller]
fn finished(child: std::process::Child) -> (Option<i32>, DeliverReport) {
    let output = child.wait_with_output().unwrap();
    let summary = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "no deliver.json on stdout ({e}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    });
    (output.status.code(), summary)
}

/// Nothing half-written: no temporary or partial file anywhere under the run directory.
#[track_caller]
fn no_leftovers(run: &Path) {
    let mut stack = vec![run.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                assert!(
                    !name.ends_with(".tmp") && !name.ends_with(".partial"),
                    "left behind: {}",
                    path.display()
                );
            }
        }
    }
}

#[test]
fn sigterm_during_the_agent_stops_its_group_and_the_run_resumes() {
    let agent = format!(
        r#"[sh, -c, "{UNTIL_GO}; exec sh ../agent.sh \"$0\" \"$1\"", "{{workspace}}", "{{brief}}"]"#
    );
    let dir = project(&agent, SPACING, "notes-pass", "");
    let child = Test::new(dir.path())
        .args(["deliver", "--pack", "pack.yaml", "--json"])
        .spawn();
    let sleeper = wait_for_pid(&dir.path().join("sleeper.pid"));
    signal(&child, libc::SIGTERM);
    let (code, summary) = finished(child);
    assert_eq!(code, Some(130), "{summary:?}");
    assert_eq!(summary.terminal_reason, TerminalReason::Interrupted);
    let run = run_dir(&summary, dir.path());
    assert_eq!(
        stages(&run)[2..],
        ["agent/0/interrupted", "deliver/interrupted"]
    );
    assert!(gone_soon(sleeper), "the agent's child survived");
    no_leftovers(&run);

    fs::write(dir.path().join("go"), "").unwrap();
    let (code, resumed, _) = resume(dir.path(), &["--resume", &run.display().to_string()]);
    assert_eq!(code, 0, "{resumed:?}");
    assert_eq!(resumed.terminal_reason, TerminalReason::Verified);
    assert_eq!(
        stages(&run)[4..],
        [
            "deliver/resumed",
            "review/0/pass",
            "agent/0/exited 0",
            "verify/0/pass",
            "audit/0/pass",
            "deliver/verified"
        ]
    );
}

#[test]
fn sigterm_during_verification_stops_the_command_and_the_run_resumes_there() {
    let verify = format!(
        "  - name: spacing\n    argv: [sh, -c, \"{UNTIL_GO}; grep -q 'List({{ space: 12 }})' entry/src/main/ets/pages/Index.ets\"]\n"
    );
    let dir = project(FIXING_AGENT, &verify, "notes-pass", "");
    let child = Test::new(dir.path())
        .args(["deliver", "--pack", "pack.yaml", "--json"])
        .spawn();
    let sleeper = wait_for_pid(&dir.path().join("sleeper.pid"));
    signal(&child, libc::SIGTERM);
    let (code, summary) = finished(child);
    assert_eq!(code, Some(130), "{summary:?}");
    let run = run_dir(&summary, dir.path());
    assert_eq!(
        stages(&run)[2..],
        [
            "agent/0/exited 0",
            "verify/0/interrupted",
            "deliver/interrupted"
        ]
    );
    assert!(
        gone_soon(sleeper),
        "the verification command's child survived"
    );
    no_leftovers(&run);

    fs::write(dir.path().join("go"), "").unwrap();
    let (code, resumed, _) = resume(dir.path(), &["--resume", &run.display().to_string()]);
    assert_eq!(code, 0, "{resumed:?}");
    assert_eq!(stages(&run)[5..], RESUMED_AND_VERIFIED);
}

#[test]
fn sigterm_during_the_audit_stops_hdc_and_the_run_resumes_at_the_audit() {
    let dir = project(FIXING_AGENT, SPACING, "notes-pass", "");
    let fake = crate::support::fake_hdc(
        dir.path(),
        "fake-hdc",
        &[repo("device-fixtures/notes-pass").display().to_string()],
        "DWPIPE_FAKE_HDC_LATENCY=30s",
    );
    let quick = crate::support::fake_hdc(
        dir.path(),
        "quick-hdc",
        &[repo("device-fixtures/notes-pass").display().to_string()],
        "",
    );
    // The first call (preflight asking the device who it is) answers at once; every later one
    // notes its pid first (the fake then execs in the same process) and takes 30 s.
    let hdc = dir.path().join("hdc");
    crate::support::executable(
        &hdc,
        &format!(
            "#!/bin/sh\nif [ ! -e '{calls}' ]; then touch '{calls}'; exec '{quick}' \"$@\"; fi\necho $$ >> '{pids}'\nexec '{slow}' \"$@\"\n",
            calls = dir.path().join("hdc.first").display(),
            quick = quick.display(),
            pids = dir.path().join("hdc.pids").display(),
            slow = fake.display()
        ),
    );
    let hdc_arg = hdc.display().to_string();
    let child = Test::new(dir.path())
        .args([
            "--hdc",
            &hdc_arg,
            "deliver",
            "--pack",
            "pack.yaml",
            "--device",
            "FMR0223C13000649",
            "--json",
        ])
        .spawn();
    let hdc_call = wait_for_pid(&dir.path().join("hdc.pids"));
    signal(&child, libc::SIGTERM);
    let (code, summary) = finished(child);
    assert_eq!(code, Some(130), "{summary:?}");
    let run = run_dir(&summary, dir.path());
    assert_eq!(
        stages(&run)[3..],
        [
            "verify/0/pass",
            "audit/0/interrupted",
            "deliver/interrupted"
        ]
    );
    assert!(gone_soon(hdc_call), "the hdc call survived");
    no_leftovers(&run);

    let (code, resumed) = crate::support::delivery::resume_on_the_device(dir.path(), &run);
    assert_eq!(code, 0, "{resumed:?}");
    assert_eq!(
        stages(&run)[6..],
        [
            "deliver/resumed",
            "review/0/pass",
            "audit/0/pass",
            "deliver/verified"
        ]
    );
}

#[test]
fn a_second_signal_kills_a_child_that_ignores_sigterm_and_exits_at_once() {
    // The agent's grace period is 5 s; a second signal must not wait for it.
    let agent =
        r#"[sh, -c, "trap '' TERM; sleep 30 & echo $! > ../sleeper.pid; while :; do wait; done"]"#;
    for (first, second) in [
        (libc::SIGTERM, libc::SIGINT),
        (libc::SIGINT, libc::SIGTERM),
        (libc::SIGTERM, libc::SIGTERM),
    ] {
        let dir = project(agent, SPACING, "notes-pass", "");
        let mut child = Test::new(dir.path())
            .args(["deliver", "--pack", "pack.yaml", "--json"])
            .spawn();
        let sleeper = wait_for_pid(&dir.path().join("sleeper.pid"));
        signal(&child, first);
        std::thread::sleep(Duration::from_millis(300));
        assert!(
            child.try_wait().unwrap().is_none(),
            "the first signal waits for the grace period"
        );
        assert!(alive(sleeper), "the sleeper ignores SIGTERM");
        let second_at = Instant::now();
        signal(&child, second);
        let (code, summary) = finished(child);
        let took = second_at.elapsed();
        assert_eq!(code, Some(130), "{summary:?}");
        assert!(took < Duration::from_secs(3), "exited after {took:?}");
        assert!(
            !alive(sleeper),
            "dwpipe exited while a child that ignores SIGTERM was alive"
        );
        let run = run_dir(&summary, dir.path());
        assert_eq!(
            stages(&run)[2..],
            ["agent/0/interrupted", "deliver/interrupted"],
            "signals {first:?} then {second:?}"
        );
        no_leftovers(&run);
    }
}

#[test]
fn an_environment_error_resumes_once_the_tool_is_installed() {
    let verify = "  - name: spacing\n    argv: [dwpipe-test-build-tool, \"List({ space: 12 })\", entry/src/main/ets/pages/Index.ets]\n";
    let dir = project(FIXING_AGENT, verify, "notes-pass", "");
    // Installed, so preflight finds it, but its interpreter is not: it cannot start.
    let bin = dir.path().join("bin");
    fs::create_dir_all(&bin).unwrap();
    crate::support::executable(
        &bin.join("dwpipe-test-build-tool"),
        "#!/nonexistent/interpreter\n",
    );
    let (code, summary) = deliver_with_path(dir.path(), &["--pack", "pack.yaml"]);
    assert_eq!(code, 3, "{summary:?}");
    assert_eq!(summary.terminal_reason, TerminalReason::EnvironmentError);
    let run = run_dir(&summary, dir.path());
    // One spelling per outcome: the stage line says what the delivery line says.
    assert_eq!(
        stages(&run)[2..],
        [
            "agent/0/exited 0",
            "verify/0/environment_error",
            "deliver/environment_error"
        ]
    );

    crate::support::executable(
        &bin.join("dwpipe-test-build-tool"),
        "#!/bin/sh\nexec grep -q \"$@\"\n",
    );
    let (code, resumed) = deliver_with_path(dir.path(), &["--resume", &run.display().to_string()]);
    assert_eq!(code, 0, "{resumed:?}");
    assert_eq!(stages(&run)[5..], RESUMED_AND_VERIFIED);
}

#[test]
fn a_ledger_written_by_the_first_release_still_resumes() {
    // Recorded by dwpipe 0.1.0 at 9121ecb: a verification tool was missing. Its stage line
    // spells the outcome `environment-error`, its delivery line `environment_error`. Its lock
    // is the first release's example pack, which had no flows: the capture answers that pack.
    let dir = project(FIXING_AGENT, SPACING, "notes-pass-v1", "");
    let run = dir.path().join(".dwpipe/runs/1796116977-9e05f791");
    fs::create_dir_all(&run).unwrap();
    let recorded = repo("tests/fixtures/runs/environment-error-v1");
    for entry in fs::read_dir(&recorded).unwrap() {
        let entry = entry.unwrap();
        fs::copy(entry.path(), run.join(entry.file_name())).unwrap();
    }
    assert!(
        fs::read_to_string(run.join("ledger.jsonl"))
            .unwrap()
            .contains("\"outcome\":\"environment-error\"")
    );
    // The agent's edit is in the workspace, as the interrupted run left it.
    let page = dir.path().join(PAGE);
    let fixed = fs::read_to_string(&page)
        .unwrap()
        .replace("List({ space: 8 })", "List({ space: 12 })");
    fs::write(&page, fixed).unwrap();
    let (code, resumed, _) = resume(dir.path(), &["--resume", &run.display().to_string()]);
    assert_eq!(code, 0, "{resumed:?}");
    assert_eq!(resumed.terminal_reason, TerminalReason::Verified);
    assert_eq!(stages(&run)[5..], RESUMED_AND_VERIFIED);
}
