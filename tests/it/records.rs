//! A delivery's records through the real binary, against agents and commands that misbehave:
//! records deleted or rewritten under the run, background children, two deliveries on one
//! workspace, a signal after the agent's edit, a relative `--config`, a run directory that
//! cannot be written, dwpipe's own files inside a git workspace, a resealed lock, another source.

use dwpipe::device::Source;
use dwpipe::schema::{DeliverReport, TerminalReason};
use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::support::delivery::{
    FIXING_AGENT, RESUMED_AND_VERIFIED, SPACING, alive, deliver, project, repo, resume, run_dir,
    signal, stages,
};
use crate::support::{EXIT_CODES, Ran, Test, executable};
use serde_json::Value;

/// A project whose agent is the script `name`: the example's real edit, then `then` (with
/// `$run` the run directory), run as `sh ../<name> <workspace> <brief>` from the workspace.
fn with_agent(name: &str, then: &str, verify: &str) -> tempfile::TempDir {
    let argv = format!(r#"[sh, ../{name}, "{{workspace}}", "{{brief}}"]"#);
    let project = project(&argv, verify, "notes-pass", "");
    executable(
        &project.path().join(name),
        &format!(
            "#!/bin/sh\nset -u\nsh ../agent.sh \"$1\" \"$2\"\nrun=$(dirname \"$2\")\n{then}\n"
        ),
    );
    project
}

/// Waits for the child and reads its `--json` summary.
fn finished(child: std::process::Child) -> (Option<i32>, Option<DeliverReport>) {
    let output = child.wait_with_output().unwrap();
    let summary = serde_json::from_slice(&output.stdout).ok();
    (output.status.code(), summary)
}

#[track_caller]
fn wait_for(path: &Path) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !path.exists() {
        assert!(
            Instant::now() < deadline,
            "{} never appeared",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn an_agent_that_reaches_the_runs_records_ends_records_tampered() {
    let rows = [
        (
            "ledger deleted",
            "rm \"$run/ledger.jsonl\"",
            "ledger.jsonl lost",
        ),
        (
            "lock and spec deleted",
            "rm \"$run/pack.lock.json\" \"$run/spec.md\"",
            "pack.lock.json is gone",
        ),
        (
            "lock emptied",
            "echo '{}' > \"$run/pack.lock.json\"",
            "pack.lock.json was changed",
        ),
        (
            "run.json rewritten",
            "echo '{}' > \"$run/run.json\"",
            "run.json was changed",
        ),
        (
            "a ledger line dropped",
            "sed -i 1d \"$run/ledger.jsonl\"",
            "ledger.jsonl lost or changed lines",
        ),
        ("every record deleted", "rm -rf ../.dwpipe", "is gone"),
    ];
    for (name, then, named) in rows {
        let dir = with_agent("tamper.sh", then, SPACING);
        let (code, summary, stderr) = deliver(dir.path(), &[]);
        assert_eq!(code, 1, "{name}: {summary:?}\n{stderr}");
        assert_eq!(
            summary.terminal_reason,
            TerminalReason::RecordsTampered,
            "{name}: {summary:?}"
        );
        let detail = summary.detail.as_deref().unwrap();
        assert!(detail.contains(named), "{name}: {detail}");
        // It stopped before verification: nothing was verified or audited on its word.
        assert!(
            summary.reports.iter().all(|r| !r.starts_with("verify")),
            "{name}: {summary:?}"
        );
    }
}

#[test]
fn a_verification_command_that_reaches_the_records_is_caught_too() {
    let verify = "  - name: sneaky\n    argv: [sh, -c, \"rm ../.dwpipe/runs/*/spec.md\"]\n";
    let dir = project(FIXING_AGENT, verify, "notes-pass", "");
    let (code, summary, _) = deliver(dir.path(), &[]);
    assert_eq!(
        (code, summary.terminal_reason),
        (1, TerminalReason::RecordsTampered)
    );
    assert!(
        summary
            .detail
            .as_deref()
            .unwrap()
            .contains("spec.md is gone"),
        "{summary:?}"
    );
}

#[test]
fn nothing_the_agent_or_a_command_starts_outlives_its_stage() {
    let verify = format!(
        "{SPACING}  - name: forks\n    argv: [sh, -c, \"sleep 302 & echo $! > ../verify-child.pid; echo forked\"]\n"
    );
    let project = with_agent(
        "forks.sh",
        "sleep 301 & echo $! > ../agent-child.pid",
        &verify,
    );
    let (code, summary, stderr) = deliver(project.path(), &[]);
    assert_eq!(code, 0, "{summary:?}\n{stderr}");
    for pid_file in ["agent-child.pid", "verify-child.pid"] {
        let pid: i32 = fs::read_to_string(project.path().join(pid_file))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert!(
            !alive(pid),
            "{pid_file}: {pid} still runs after `deliver: verified`"
        );
    }
    let run = run_dir(&summary, project.path());
    let lines: Vec<Value> = fs::read_to_string(run.join("ledger.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let leaked = |stage: &str| {
        lines
            .iter()
            .any(|l| l["stage"] == stage && l["leaked"] == true)
    };
    assert!(leaked("agent") && leaked("verify"), "{lines:?}");
    let report: Value =
        serde_json::from_str(&fs::read_to_string(run.join("verify-1.json")).unwrap()).unwrap();
    assert_eq!(report["commands"][1]["leaked"], true, "{report:?}");
    assert!(report["commands"][0].get("leaked").is_none(), "{report:?}");
}

#[test]
fn a_second_delivery_on_a_workspace_being_delivered_is_refused_at_once() {
    let project = with_agent(
        "slow.sh",
        "touch ../started; while ! test -e ../go; do sleep 0.05; done",
        SPACING,
    );
    let first = Test::new(project.path())
        .args(["deliver", "--pack", "pack.yaml", "--json"])
        .spawn();
    wait_for(&project.path().join("started"));
    let started = Instant::now();
    let Ran {
        code,
        stdout,
        stderr,
        ..
    } = Test::new(project.path())
        .args(["deliver", "--pack", "pack.yaml"])
        .status_in(EXIT_CODES)
        .run();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "refused at once"
    );
    assert_eq!(code, 3, "{stdout}{stderr}");
    assert!(stderr.contains("E_DELIVER_BUSY"), "{stderr}");
    let runs: Vec<String> = fs::read_dir(project.path().join(".dwpipe/runs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(runs.len(), 1, "the refused delivery made no run: {runs:?}");
    assert!(stderr.contains(&runs[0]), "names the other run: {stderr}");
    fs::write(project.path().join("go"), "").unwrap();
    let (code, summary) = finished(first);
    assert_eq!(
        (code, summary.map(|s| s.terminal_reason)),
        (Some(0), Some(TerminalReason::Verified))
    );
    // Released when its holder ended: the next delivery runs, and finds the edit made.
    let (code, summary, _) = deliver(project.path(), &[]);
    assert_eq!(code, 0, "{summary:?}");
    assert_eq!(summary.terminal_reason, TerminalReason::Verified);
    assert!(summary.agent_changed_nothing, "the edit is already made");
}

#[test]
fn a_signal_after_the_agents_edit_resumes_into_verification() {
    let project = with_agent("edits-then-waits.sh", "touch ../edited; sleep 30", SPACING);
    let child = Test::new(project.path())
        .args(["deliver", "--pack", "pack.yaml", "--json"])
        .spawn();
    wait_for(&project.path().join("edited"));
    signal(&child, libc::SIGINT);
    let (code, summary) = finished(child);
    assert_eq!(code, Some(130), "{summary:?}");
    let run = run_dir(&summary.expect("deliver.json on stdout"), project.path());
    let (code, resumed, stderr) = resume(project.path(), &["--resume", &run.display().to_string()]);
    assert_eq!(code, 0, "{resumed:?}\n{stderr}");
    assert_eq!(resumed.terminal_reason, TerminalReason::Verified);
    assert_eq!(stages(&run)[4..], RESUMED_AND_VERIFIED);
}

#[test]
fn the_agent_can_read_its_brief_whatever_folder_dwpipe_was_started_in() {
    // The agent insists on an absolute brief it can read, as DevEco Code would need.
    let project = with_agent("reads.sh", "", SPACING);
    let script = fs::read_to_string(project.path().join("reads.sh")).unwrap().replace(
        "sh ../agent.sh",
        "case \"$2\" in /*) ;; *) echo relative brief >&2; exit 7;; esac\ntest -r \"$2\" || exit 8\nsh ../agent.sh",
    );
    executable(&project.path().join("reads.sh"), &script);
    let parent = project.path().parent().unwrap();
    let name = project.path().file_name().unwrap().to_str().unwrap();
    let config = format!("{name}/dwpipe.yaml");
    let pack = format!("{name}/pack.yaml");
    let Ran { stdout, .. } = Test::new(parent)
        .args(["deliver", "--config", &config, "--pack", &pack, "--json"])
        .status(0)
        .run();
    let summary: DeliverReport = serde_json::from_str(&stdout).unwrap();
    assert_eq!(summary.terminal_reason, TerminalReason::Verified);
    let Source::Replay { capture, .. } = &summary.sources[0] else {
        panic!("a replay: {summary:?}");
    };
    assert_eq!(
        capture,
        fs::canonicalize(repo("device-fixtures/notes-pass"))
            .unwrap()
            .to_str()
            .unwrap()
    );
}

#[test]
fn a_run_whose_records_cannot_be_written_says_so_and_resumes_once_fixed() {
    // The reviews folder is a file: the review's receipt cannot be written.
    let project = project(FIXING_AGENT, SPACING, "notes-pass", "");
    fs::create_dir_all(project.path().join(".dwpipe")).unwrap();
    fs::write(project.path().join(".dwpipe/reviews"), "in the way").unwrap();
    let (code, summary, _) = deliver(project.path(), &[]);
    assert_eq!(code, 3, "{summary:?}");
    assert_eq!(summary.terminal_reason, TerminalReason::EnvironmentError);
    let run = run_dir(&summary, project.path());
    assert!(run.join("deliver.json").is_file());
    assert_eq!(stages(&run).last().unwrap(), "deliver/environment_error");
    fs::remove_file(project.path().join(".dwpipe/reviews")).unwrap();
    let (code, resumed, _) = resume(project.path(), &["--resume", &run.display().to_string()]);
    assert_eq!(
        (code, resumed.terminal_reason),
        (0, TerminalReason::Verified),
        "{resumed:?}"
    );

    // The verification report and deliver.json cannot be written (folders in their way).
    let project = with_agent(
        "blocks.sh",
        "mkdir \"$run/verify-1.json\" \"$run/deliver.json\"",
        SPACING,
    );
    let Ran { stderr, .. } = Test::new(project.path())
        .args(["deliver", "--pack", "pack.yaml"])
        .status(3)
        .run();
    let runs = project.path().join(".dwpipe/runs");
    let run = fs::read_dir(&runs).unwrap().next().unwrap().unwrap().path();
    let id = run.file_name().unwrap().to_str().unwrap();
    assert!(
        stderr.contains(&format!("run {id} ended environment_error"))
            && stderr.contains("deliver.json")
            && stderr.contains("--resume"),
        "{stderr}"
    );
    assert_eq!(stages(&run).last().unwrap(), "deliver/environment_error");
    fs::remove_dir(run.join("verify-1.json")).unwrap();
    fs::remove_dir(run.join("deliver.json")).unwrap();
    let (code, resumed, _) = resume(project.path(), &["--resume", &run.display().to_string()]);
    assert_eq!(
        (code, resumed.terminal_reason),
        (0, TerminalReason::Verified),
        "{resumed:?}"
    );
    assert!(stages(&run).contains(&"verify/0/pass".to_owned()));
}

#[test]
fn dwpipes_own_files_in_a_git_workspace_are_not_the_agents_work() {
    let project = project("[\"true\"]", SPACING, "notes-pass", "");
    let workspace = project.path().join("project");
    let git = |args: &[&str]| {
        let status = std::process::Command::new("git")
            .args(args)
            .current_dir(&workspace)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@t")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@t")
            .output()
            .unwrap();
        assert!(status.status.success(), "{status:?}");
    };
    git(&["init", "-q", "."]);
    git(&["add", "."]);
    git(&["commit", "-q", "-m", "start"]);
    // The run directory inside the git tree, as `workspace: .` puts it.
    let (code, summary, stderr) = deliver(project.path(), &["--out", "project"]);
    assert_eq!(code, 1, "{summary:?}\n{stderr}");
    assert_eq!(
        summary.terminal_reason,
        TerminalReason::NoChanges,
        "{summary:?}"
    );
}

#[test]
fn a_run_is_continued_only_with_its_own_lock_ledger_and_source() {
    let project = with_agent("fails.sh", "exit 5", SPACING);
    let (code, summary, _) = deliver(project.path(), &[]);
    assert_eq!(
        (code, summary.terminal_reason),
        (3, TerminalReason::EnvironmentError)
    );
    let run = run_dir(&summary, project.path());
    let run_arg = run.display().to_string();
    let record: Value =
        serde_json::from_str(&fs::read_to_string(run.join("run.json")).unwrap()).unwrap();
    assert_eq!(record["target"]["kind"], "replay");
    assert_eq!(record["pack-sha256"], summary.pack_sha256.as_str());
    let refused = |args: &[&str], says: &str| {
        let mut all = vec!["deliver", "--resume", &run_arg];
        all.extend_from_slice(args);
        let Ran { stderr, .. } = Test::new(project.path()).args(&all).status(2).run();
        assert!(
            stderr.contains("E_RESUME_REFUSED") && stderr.contains(says),
            "{args:?}: {stderr}"
        );
    };
    // Another source.
    let other = repo("device-fixtures/notes-fail").display().to_string();
    refused(&["--replay", &other], "measures on the capture");
    refused(
        &["--device", "FMR0223C13000649"],
        "not on device FMR0223C13000649",
    );
    // A ledger line removed.
    let ledger = run.join("ledger.jsonl");
    let text = fs::read_to_string(&ledger).unwrap();
    let without_second: String = text
        .lines()
        .enumerate()
        .filter(|(i, _)| *i != 1)
        .map(|(_, l)| format!("{l}\n"))
        .collect();
    fs::write(&ledger, without_second).unwrap();
    refused(&[], "chain of lines is broken");
    fs::write(&ledger, &text).unwrap();
    // A looser pack, resealed into the run's lock.
    let loose = fs::read_to_string(project.path().join("pack.yaml"))
        .unwrap()
        .replace("expected: 800", "expected: 8000");
    fs::write(project.path().join("loose.yaml"), loose).unwrap();
    Test::new(project.path())
        .args(["freeze", "loose.yaml", "--out", &run_arg])
        .run();
    refused(&[], "its lock was replaced");
}
