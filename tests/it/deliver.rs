//! `dwpipe deliver` through the real binary: the bundled example end to end, and every way a
//! delivery stops (docs/design.md §6 terminal reasons) with what the ledger records.

use dwpipe::schema::{
    AuditReport, Claim, DeliverReport, LabReport, RunsOutput, SeriesOutput, TerminalReason,
};
use std::fs;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::delivery::{
    FIXING_AGENT, PAGE, RESUMED_AND_VERIFIED, SPACING, deliver, project, repo, resume, run_dir,
    set_agent, stages,
};
use crate::support::{EXIT_CODES, Ran, Said, Test, parse, read};
use serde_json::Value;

#[test]
fn the_example_is_delivered_in_one_round() {
    let dir = project(FIXING_AGENT, SPACING, "notes-pass", "");
    let (code, summary, _) = deliver(dir.path(), &[]);
    assert_eq!(code, 0, "{summary:?}");
    assert_eq!(summary.terminal_reason, TerminalReason::Verified);
    assert_eq!(summary.agent_claim, Some(Claim::Pass));
    assert_eq!(summary.repairs, 0);
    let run = run_dir(&summary, dir.path());
    assert_eq!(
        stages(&run),
        [
            "review/0/pass",
            "brief/0/written",
            "agent/0/exited 0",
            "verify/0/pass",
            "audit/0/pass",
            "deliver/verified"
        ]
    );
    for file in [
        "pack.lock.json",
        "spec.md",
        "goal-brief.md",
        "agent-1.log",
        "verify-1.json",
        "audit-round-1/audit-1.json",
        "audit-round-1/junit.xml",
        "deliver.json",
    ] {
        assert!(run.join(file).is_file(), "{file} missing");
    }
    // The agent really changed the code, and the audit's criteria are in the summary.
    let page = fs::read_to_string(dir.path().join(PAGE)).unwrap();
    assert!(page.contains("List({ space: 12 })"));
    assert!(
        summary
            .criteria
            .iter()
            .any(|(id, said)| id == "P-01" && said == "pass: 720ms (threshold ≤ 800 ms)")
    );
    // The ledger records decisions, never the brief's or the agent's text.
    let ledger_text = fs::read_to_string(run.join("ledger.jsonl")).unwrap();
    // The audit names the workspace it measured, as the ledger fingerprinted it.
    let report: AuditReport = read(run.join("audit-round-1/audit-1.json"));
    // A ledger line is the run's record, not a published document: read as JSON.
    let audited = ledger_text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|e| e["stage"] == "audit")
        .unwrap();
    assert_eq!(
        report.workspace.as_ref().map(|w| w.fingerprint.as_str()),
        audited["inputs"]["workspace"].as_str(),
        "{report:?}"
    );
    assert!(!ledger_text.contains("12vp apart") && !ledger_text.contains("Changed the list"));
    // The audit went into the project's history, as the replay it was.
    let stdout = Test::new(dir.path())
        .args(["history", "--json"])
        .run()
        .stdout;
    let history: SeriesOutput = parse(&stdout);
    assert!(
        history
            .points
            .iter()
            .any(|p| p.criterion == "P-01" && p.replay),
        "{stdout}"
    );
    assert!(
        history
            .points
            .iter()
            .all(|p| p.report.ends_with("audit-round-1/audit-1.json"))
    );
}

#[test]
fn a_delivery_fixed_on_the_second_round() {
    // The first attempt picks the wrong spacing; the repair brief says what the build saw.
    let agent = r#"[sh, -c, "if [ {round} = 0 ]; then s=10; else s=12; fi; sed -i \"s/space: [0-9]*/space: $s/\" entry/src/main/ets/pages/Index.ets"]"#;
    let dir = project(agent, SPACING, "notes-pass", "");
    let (code, summary, _) = deliver(dir.path(), &[]);
    assert_eq!(code, 0, "{summary:?}");
    assert_eq!(summary.terminal_reason, TerminalReason::Verified);
    assert_eq!(summary.repairs, 1);
    let run = run_dir(&summary, dir.path());
    assert_eq!(
        stages(&run)[2..],
        [
            "agent/0/exited 0",
            "verify/0/fail",
            "brief/1/written",
            "agent/1/exited 0",
            "verify/1/pass",
            "audit/1/pass",
            "deliver/verified"
        ]
    );
    let brief = fs::read_to_string(run.join("repair-brief-1.md")).unwrap();
    assert!(
        brief.contains("spacing") && brief.contains("verify-1.json"),
        "{brief}"
    );
    assert!(run.join("audit-round-2/audit-1.json").is_file());
}

#[test]
fn a_second_delivery_reuses_the_review_receipt() {
    let dir = project(FIXING_AGENT, SPACING, "notes-pass", "");
    let (_, first, _) = deliver(dir.path(), &[]);
    fs::copy(repo("examples/notes").join(PAGE), dir.path().join(PAGE)).unwrap();
    let (code, second, _) = deliver(dir.path(), &["--out", "."]);
    assert_eq!(code, 0, "{second:?}");
    assert_eq!(first.reports[0], second.reports[0]);
    // Two runs within the same second still get a folder each.
    assert_ne!(first.run_dir, second.run_dir);
    assert!(!dir.path().join(".dwpipe/reviews/review-2.json").exists());
}

#[test]
fn an_agent_that_changes_nothing_is_measured_once_and_ends_no_changes() {
    // The first round measures the workspace as it stands: it does not pass, and the agent
    // did nothing about it.
    let dir = project("[\"true\"]", SPACING, "notes-pass", "");
    let (code, summary, _) = deliver(dir.path(), &[]);
    assert_eq!(code, 1);
    assert_eq!(summary.terminal_reason, TerminalReason::NoChanges);
    assert!(summary.agent_changed_nothing);
    assert_eq!(
        summary.repairs, 0,
        "no repair round for an agent that did nothing"
    );
    let run = run_dir(&summary, dir.path());
    assert!(run.join("verify-1.json").exists());
    assert_eq!(
        stages(&run)[2..],
        ["agent/0/exited 0", "verify/0/fail", "deliver/no_changes"]
    );
}

#[test]
fn code_that_already_meets_the_pack_is_verified_and_audited_though_the_agent_changed_nothing() {
    let dir = project("[\"true\"]", SPACING, "notes-pass", "");
    let page = dir.path().join(PAGE);
    let text = fs::read_to_string(&page).unwrap();
    let fixed = text.replace("List({ space: 8 })", "List({ space: 12 })");
    assert_ne!(text, fixed, "the example's page has the unfixed spacing");
    fs::write(&page, fixed).unwrap();
    let (code, summary, _) = deliver(dir.path(), &[]);
    assert_eq!(code, 0, "{summary:?}");
    assert_eq!(summary.terminal_reason, TerminalReason::Verified);
    assert!(summary.agent_changed_nothing);
    let run = run_dir(&summary, dir.path());
    assert_eq!(
        stages(&run)[2..],
        [
            "agent/0/exited 0",
            "verify/0/pass",
            "audit/0/pass",
            "deliver/verified"
        ]
    );
}

#[test]
fn the_same_verification_failure_twice_stops_the_loop() {
    // The agent changes something every round; the build fails the same way every time.
    let agent = r#"[sh, -c, "echo x >> notes.txt", agent]"#;
    let verify = "  - name: build\n    argv: [sh, -c, \"echo 'error: cannot find name Foo at 12:04:33'; exit 1\"]\n";
    let dir = project(agent, verify, "notes-pass", "");
    let (code, summary, _) = deliver(dir.path(), &[]);
    assert_eq!(code, 1, "{summary:?}");
    assert_eq!(summary.terminal_reason, TerminalReason::RepeatedFailure);
    assert_eq!(summary.repairs, 2);
    assert_eq!(summary.unresolved, ["build"]);
    let run = run_dir(&summary, dir.path());
    let brief = fs::read_to_string(run.join("repair-brief-1.md")).unwrap();
    assert!(brief.contains("cannot find name Foo"), "{brief}");
    assert!(run.join("repair-brief-2.md").exists() && !run.join("repair-brief-3.md").exists());
    assert!(run.join("verify-3.json").exists());
}

#[test]
fn an_hvigor_build_that_exits_0_after_a_failed_compile_is_not_verified() {
    // hvigor's real shape: the compile error on stdout, part of the conclusion on stderr, and
    // exit 0. The error is far from the tail (8,000 lines of noise after it), so only reading
    // while streaming keeps it.
    let agent = r#"[sh, -c, "echo x >> notes.txt", agent]"#;
    let verify = "  - name: build\n    kind: hvigor\n    argv: [sh, ../hvigorw.sh]\n";
    let dir = project(agent, verify, "notes-pass", "");
    crate::support::executable(
        &dir.path().join("hvigorw.sh"),
        "#!/bin/sh\necho '1 ERROR: 10505001 ArkTS Compiler Error'\necho 'Error Message: Cannot find name Foo. At File: entry/src/main/ets/pages/Index.ets:12:5'\necho\ni=0; while [ $i -lt 8000 ]; do echo \"> hvigor noise line $i\"; i=$((i+1)); done\necho 'COMPILE RESULT:FAIL {ERROR:1 WARN:0}' >&2\necho '> hvigor ERROR: BUILD FAILED in 3 s' >&2\nexit 0\n",
    );
    let (code, summary, _) = deliver(dir.path(), &[]);
    assert_eq!(code, 1, "{summary:?}");
    assert_eq!(summary.terminal_reason, TerminalReason::RepeatedFailure);
    let run = run_dir(&summary, dir.path());
    let verified: Value =
        serde_json::from_slice(&fs::read(run.join("verify-1.json")).unwrap()).unwrap();
    assert_eq!(verified["format-version"], 2);
    let build = &verified["commands"][0];
    assert_eq!(
        (build["status"].as_str(), build["exit-code"].as_i64()),
        (Some("fail"), Some(0))
    );
    assert_eq!(build["errors"][0]["code"], "10505001");
    assert_eq!(build["errors"][0]["line"], 12);
    let brief = fs::read_to_string(run.join("repair-brief-1.md")).unwrap();
    assert!(
        brief.contains(
            "error: entry/src/main/ets/pages/Index.ets:12:5: [10505001] Cannot find name Foo."
        ),
        "{brief}"
    );
    assert!(
        stages(&run).contains(&"verify/0/fail".to_owned()),
        "{:?}",
        stages(&run)
    );
}

#[test]
fn different_failures_run_out_the_repair_budget() {
    // Each round's failure differs (the file grows), so only the budget stops the loop.
    let agent = r#"[sh, -c, "echo x >> notes.txt", agent]"#;
    let verify = "  - name: build\n    argv: [sh, -c, \"cat notes.txt; exit 1\"]\n";
    let dir = project(agent, verify, "notes-pass", "repair:\n  max-rounds: 2\n");
    let (code, summary, _) = deliver(dir.path(), &[]);
    assert_eq!(code, 1, "{summary:?}");
    assert_eq!(summary.terminal_reason, TerminalReason::BudgetExhausted);
    assert_eq!(summary.repairs, 2);
}

#[test]
fn a_failing_audit_sends_the_measured_values_back() {
    // The code compiles, but the device says the must criteria fail; the agent's second
    // attempt changes nothing.
    let dir = project(FIXING_AGENT, SPACING, "notes-fail", "");
    let (code, summary, _) = deliver(dir.path(), &[]);
    assert_eq!(code, 1, "{summary:?}");
    assert_eq!(summary.terminal_reason, TerminalReason::NoChanges);
    assert_eq!(summary.repairs, 1);
    assert!(
        summary.unresolved.iter().any(|u| u == "P-01"),
        "{:?}",
        summary.unresolved
    );
    let run = run_dir(&summary, dir.path());
    let brief = fs::read_to_string(run.join("repair-brief-1.md")).unwrap();
    assert!(brief.contains("P-01"), "{brief}");
    assert_eq!(
        stages(&run)[..6],
        [
            "review/0/pass",
            "brief/0/written",
            "agent/0/exited 0",
            "verify/0/pass",
            "audit/0/fail",
            "brief/1/written"
        ]
    );
}

#[test]
fn a_closed_review_refuses_the_waiver_before_any_dispatch() {
    let dir = project(
        FIXING_AGENT,
        SPACING,
        "notes-pass",
        "review:\n  fail-mode: closed\n  reviewer: { argv: [\"false\"] }\n",
    );
    let (code, summary, _) = deliver(dir.path(), &["--no-review"]);
    assert_eq!(code, 1, "{summary:?}");
    assert_eq!(summary.terminal_reason, TerminalReason::ReviewBlocked);
    let run = run_dir(&summary, dir.path());
    assert_eq!(
        stages(&run),
        ["review/0/waiver-refused", "deliver/review_blocked"]
    );
    assert!(!run.join("goal-brief.md").exists());
    assert!(
        !fs::read_to_string(dir.path().join(PAGE))
            .unwrap()
            .contains("space: 12")
    );
}

#[test]
fn a_missing_verification_command_is_refused_before_anything_runs() {
    let verify = "  - name: build\n    argv: [hvigorw-not-installed, assembleHap]\n";
    let dir = project(FIXING_AGENT, verify, "notes-pass", "");
    let Ran { stdout, .. } = Test::new(dir.path())
        .args(["deliver", "--pack", "pack.yaml", "--json"])
        .status(3)
        .run();
    let refused: Said = parse(&stdout);
    assert_eq!(refused.codes()[0], "E_PREFLIGHT_VERIFY", "{refused:?}");
    assert!(
        !fs::read_to_string(dir.path().join(PAGE))
            .unwrap()
            .contains("space: 12"),
        "the agent never ran"
    );
}

#[test]
fn an_agent_that_crashes_or_deletes_git_is_not_verified() {
    let dir = project(
        r#"[sh, -c, "echo oops >&2; exit 7"]"#,
        SPACING,
        "notes-pass",
        "",
    );
    let (code, summary, _) = deliver(dir.path(), &[]);
    assert_eq!(code, 3, "{summary:?}");
    assert!(summary.detail.as_deref().unwrap().contains("exited 7"));

    let dir = project(
        r#"[sh, -c, "rm -rf .git; echo x > new.txt"]"#,
        SPACING,
        "notes-pass",
        "",
    );
    let workspace = dir.path().join("project");
    let git = |args: &[&str]| {
        let status = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(args)
            .current_dir(&workspace)
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success());
    };
    git(&["init", "-q"]);
    git(&["add", "."]);
    git(&["commit", "-q", "-m", "start"]);
    let (code, summary, _) = deliver(dir.path(), &[]);
    assert_eq!(code, 3, "{summary:?}");
    assert_eq!(
        summary.detail.as_deref(),
        Some("E_AGENT_DELETED_GIT: the agent deleted the workspace's .git")
    );
}

#[test]
fn a_config_without_verification_is_refused_before_anything_runs() {
    let dir = project(FIXING_AGENT, "  []", "notes-pass", "");
    Test::new(dir.path())
        .args(["deliver", "--pack", "pack.yaml", "--json"])
        .status(2)
        .stdout_contains("E_DELIVER_NO_VERIFY")
        .run();
    assert!(!dir.path().join(".dwpipe").exists());
}

#[test]
fn ctrl_c_during_the_agent_stops_its_group_and_ends_interrupted() {
    let dir = project(
        r#"[sh, -c, "sleep 30 & echo $! > ../sleeper.pid; wait"]"#,
        SPACING,
        "notes-pass",
        "",
    );
    let child = Test::new(dir.path())
        .args(["deliver", "--pack", "pack.yaml", "--json"])
        .spawn();
    let pid_file = dir.path().join("sleeper.pid");
    let deadline = Instant::now() + Duration::from_secs(20);
    while fs::read_to_string(&pid_file).map_or(true, |s| s.trim().is_empty()) {
        assert!(Instant::now() < deadline, "the agent never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    let sleeper: i32 = fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    crate::support::delivery::signal(&child, libc::SIGINT);
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130));
    let summary: DeliverReport = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(summary.terminal_reason, TerminalReason::Interrupted);
    let run = run_dir(&summary, dir.path());
    assert_eq!(
        stages(&run)[2..],
        ["agent/0/interrupted", "deliver/interrupted"]
    );
    // The agent's whole group was stopped: its background sleep is gone (or a zombie waiting
    // for init to reap it).
    let alive = || {
        fs::read_to_string(format!("/proc/{sleeper}/stat")).is_ok_and(|stat| {
            stat.rsplit(')')
                .next()
                .is_some_and(|rest| !rest.trim_start().starts_with('Z'))
        })
    };
    let deadline = Instant::now() + Duration::from_secs(5);
    while alive() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!alive(), "the agent's child survived");

    // `dwpipe runs` lists it unfinished, by the id --resume takes.
    let Ran { stdout: listed, .. } = Test::new(dir.path())
        .args(["runs", "--json"])
        .status(0)
        .run();
    let listed: RunsOutput = parse(&listed);
    let id = run.file_name().unwrap().to_str().unwrap();
    assert_eq!(listed.runs[0].id, id);
    assert_eq!(
        listed.runs[0].terminal_reason.as_deref(),
        Some("interrupted")
    );
    // Resumed by that id with an agent that finishes, the run picks up at the agent with the
    // same brief.
    set_agent(dir.path(), FIXING_AGENT);
    let run_arg = id.to_owned();
    let (code, resumed, _) = resume(dir.path(), &["--resume", &run_arg]);
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
    // A finished run is not resumed again.
    Test::new(dir.path())
        .args(["deliver", "--resume", &run_arg, "--json"])
        .status(2)
        .stdout_contains("E_RESUME_REFUSED")
        .run();
    let Ran { stdout: listed, .. } = Test::new(dir.path()).args(["runs", "--json"]).run();
    let listed: RunsOutput = parse(&listed);
    assert_eq!(listed.runs[0].terminal_reason.as_deref(), Some("verified"));
    assert_eq!(listed.runs[0].report.as_deref(), Some("deliver.html"));
}

#[test]
fn a_delivery_cut_during_the_audit_resumes_without_verifying_again() {
    let dir = project(FIXING_AGENT, SPACING, "notes-pass", "");
    let hdc = crate::support::fake_hdc(
        dir.path(),
        "hdc",
        &[repo("device-fixtures/notes-pass").display().to_string()],
        "DWPIPE_FAKE_HDC_LATENCY=300ms",
    );
    let child = Test::new(dir.path())
        .args([
            "--hdc",
            hdc.to_str().unwrap(),
            "deliver",
            "--pack",
            "pack.yaml",
        ])
        .args(["--device", "FMR0223C13000649", "--json"])
        .spawn();
    let runs = dir.path().join(".dwpipe/runs");
    let deadline = Instant::now() + Duration::from_secs(30);
    let ledger = || {
        fs::read_dir(&runs)
            .ok()
            .and_then(|mut entries| entries.next())
            .and_then(|entry| fs::read_to_string(entry.unwrap().path().join("ledger.jsonl")).ok())
            .unwrap_or_default()
    };
    while !ledger().contains("\"stage\":\"verify\"") {
        assert!(Instant::now() < deadline, "verification never finished");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(500));
    crate::support::delivery::signal(&child, libc::SIGINT);
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130));
    let summary: DeliverReport = serde_json::from_slice(&output.stdout).unwrap();
    let run = run_dir(&summary, dir.path());
    assert_eq!(
        stages(&run)[3..],
        [
            "verify/0/pass",
            "audit/0/interrupted",
            "deliver/interrupted"
        ]
    );

    // Nothing changed since the verification passed: only the audit runs again, on the same
    // device (its recorded replies from the start, without the latency), into a folder of its
    // own beside the cut one's evidence.
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
    assert!(run.join("audit-round-1").is_dir());
    assert!(run.join("audit-round-1-attempt-2/audit-1.json").is_file());

    // A workspace edited since is verified again before any audit.
    let dir2 = project(FIXING_AGENT, SPACING, "notes-pass", "");
    let (_, first, _) = deliver(dir2.path(), &[]);
    let run2 = run_dir(&first, dir2.path());
    let ledger_path = run2.join("ledger.jsonl");
    let text = fs::read_to_string(&ledger_path).unwrap();
    // Cut the ledger back to before the audit, as a crash there would have left it.
    let kept: String = text.lines().take(4).map(|l| format!("{l}\n")).collect();
    fs::write(&ledger_path, kept).unwrap();
    fs::write(dir2.path().join("project/notes.txt"), "edited by hand").unwrap();
    let (code, resumed, _) = resume(dir2.path(), &["--resume", &run2.display().to_string()]);
    assert_eq!(code, 0, "{resumed:?}");
    assert_eq!(stages(&run2)[4..], RESUMED_AND_VERIFIED);
}

#[test]
fn what_the_release_engineer_reads() {
    let dir = project(FIXING_AGENT, SPACING, "notes-pass", "");
    let Ran { stdout, stderr, .. } = Test::new(dir.path())
        .args(["deliver", "--pack", "pack.yaml"])
        .status(0)
        .run();
    let redact = |text: &str| {
        let seconds = regex::Regex::new(r"\[\d+\.\ds\]").unwrap();
        let run = regex::Regex::new(r"runs/\d+-[0-9a-f]{8}").unwrap();
        run.replace_all(&seconds.replace_all(text, "[N.Ns]"), "runs/[TIME]-[PACK8]")
            .into_owned()
    };
    insta::assert_snapshot!("deliver_stdout", redact(&stdout));
    insta::assert_snapshot!("deliver_stderr", redact(&stderr));
    // The run it made, as `dwpipe runs` lists it.
    let Ran { stdout: listed, .. } = Test::new(dir.path()).args(["runs"]).status(0).run();
    let time = regex::Regex::new(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ").unwrap();
    let id = regex::Regex::new(r"\b\d+-[0-9a-f]{8}\b").unwrap();
    let listed = time.replace_all(&listed, "[TIME]");
    insta::assert_snapshot!("runs_stdout", id.replace_all(&listed, "[ID]"));
}

#[test]
fn verbose_unfolds_what_the_agent_and_the_commands_printed() {
    let verify = "  - name: build\n    argv: [sh, -c, \"echo compiled 3 files\"]\n";
    let dir = project(FIXING_AGENT, verify, "notes-pass", "");
    let quiet = Test::new(dir.path())
        .args(["deliver", "--pack", "pack.yaml"])
        .status(0)
        .run()
        .stderr;
    assert!(!quiet.contains("Changed the list spacing") && !quiet.contains("compiled 3 files"));
    fs::copy(repo("examples/notes").join(PAGE), dir.path().join(PAGE)).unwrap();
    let verbose = Test::new(dir.path())
        .args(["deliver", "--pack", "pack.yaml", "--out", ".", "-v"])
        .status(0)
        .run()
        .stderr;
    assert!(verbose.contains("    │ {\"type\":\"text\""), "{verbose}");
    assert!(
        verbose.contains("    │ ── build (pass)\n    │ compiled 3 files"),
        "{verbose}"
    );
}

#[test]
fn a_delivery_audited_on_a_lab_repairs_what_one_device_fails() {
    let dir = project(FIXING_AGENT, SPACING, "notes-pass", "");
    let captures = [
        crate::support::device(dir.path(), "notes-pass", "LAB01", false),
        crate::support::device(dir.path(), "notes-fail", "LAB02", false),
        crate::support::device(dir.path(), "notes-pass", "LAB03", false),
    ];
    let hdc = crate::support::fake_hdc(dir.path(), "hdc", &captures, "");
    let playbooks = crate::support::no_sleeps(dir.path());
    let hdc_arg = hdc.display().to_string();
    let Ran {
        code,
        stdout,
        stderr,
        ..
    } = Test::new(dir.path())
        .args([
            "--hdc",
            &hdc_arg,
            "deliver",
            "--pack",
            "pack.yaml",
            "--devices",
            "all",
            "--playbooks",
            &playbooks,
            "--json",
        ])
        .status_in(EXIT_CODES)
        .run();
    let summary: DeliverReport =
        serde_json::from_str(&stdout).unwrap_or_else(|_| panic!("{stdout}\n{stderr}"));
    // LAB02 fails the audit; the repair brief names it; the agent has nothing more to change.
    assert_eq!(code, 1, "{summary:?}");
    assert_eq!(summary.terminal_reason, TerminalReason::NoChanges);
    let p01 = summary
        .criteria
        .iter()
        .find(|(id, _)| id == "P-01")
        .unwrap();
    assert_eq!(p01.1, "fail on LAB02");
    let run = run_dir(&summary, dir.path());
    assert_eq!(stages(&run)[4], "audit/0/fail");
    let lab: LabReport = read(run.join("audit-round-1/lab.json"));
    let verdicts: Vec<&str> = lab.devices.iter().map(|d| d.verdict.as_str()).collect();
    assert_eq!(verdicts, ["pass", "fail", "pass"]);
    assert!(run.join("audit-round-1/LAB01/audit-1.json").is_file());
    let brief = fs::read_to_string(run.join("repair-brief-1.md")).unwrap();
    assert!(brief.contains("LAB02: "), "{brief}");
    assert!(!brief.contains("LAB01: "), "{brief}");
}

#[test]
fn review_findings_are_shown_under_the_review_line() {
    let reviewer = r#"review:
  max-rounds: 1
  fail-mode: closed
  reviewer: { argv: [sh, -c, "cat > /dev/null; echo '{\"verdict\": \"revise\", \"findings\": [\"F-02 has no probe\"]}'"], timeout: 1m }
"#;
    let dir = project(FIXING_AGENT, SPACING, "notes-pass", reviewer);
    let stderr = Test::new(dir.path())
        .args(["deliver", "--pack", "pack.yaml"])
        .status(1)
        .run()
        .stderr;
    let lines: Vec<&str> = stderr.lines().collect();
    let review = lines
        .iter()
        .position(|l| l.starts_with("dwpipe: review: blocked"))
        .unwrap_or_else(|| panic!("{stderr}"));
    assert_eq!(
        lines[review + 1],
        "  W_REVIEW_FINDING: F-02 has no probe",
        "{stderr}"
    );
    assert!(
        lines[review + 2].starts_with("  E_REVIEW_BLOCKED: "),
        "{stderr}"
    );
}

#[test]
fn deliver_finds_pack_yaml_and_dwpipe_yaml_in_the_current_folder() {
    let dir = project(FIXING_AGENT, SPACING, "notes-pass", "");
    let stdout = Test::new(dir.path())
        .args(["deliver", "--json"])
        .run()
        .stdout;
    let summary: DeliverReport = serde_json::from_str(&stdout).unwrap();
    assert_eq!(summary.terminal_reason, TerminalReason::Verified);
    fs::remove_file(dir.path().join("pack.yaml")).unwrap();
    Test::new(dir.path())
        .args(["deliver"])
        .status(2)
        .stderr_contains("no pack.yaml in the current folder")
        .run();
}

/// hvigor outputs that showed a failure and passed before: a failing test suite followed by
/// a passing one, an error line without a numeric code, a coloured error item, an error item
/// inside carriage-return progress, `BUILD FAILED` past 64 KiB of one line. Each beside the
/// signs of success that used to win; each exits 0.
#[test]
fn hvigor_failures_are_failures_whatever_their_shape() {
    let success = "> hvigor Finished :entry:default@CompileArkTS... after 2 s\n> hvigor BUILD SUCCESSFUL in 4 s\n";
    let long_line = format!("{}> hvigor BUILD FAILED in 9 s\n", "#".repeat(70 * 1024));
    let cases: [(&str, &str, String); 5] = [
        (
            "two suites, the first failing",
            "test",
            "Tests run: 4, Failure: 1, Error: 0, Pass: 3, Ignore: 0\nTests run: 3, Failure: 0, Error: 0, Pass: 3, Ignore: 0\n> hvigor BUILD SUCCESSFUL in 9 s\n".to_owned(),
        ),
        (
            "an error line without a code",
            "assembleHap",
            format!("> hvigor ERROR: Failed :entry:default@SignHap...\n{success}"),
        ),
        (
            "a coloured error item",
            "assembleHap",
            format!("\u{1b}[31m1 ERROR:\u{1b}[39m 10505001 ArkTS Compiler Error\nError Message: Cannot find name Foo. At File: entry/src/Index.ets:1:1\n\n{success}"),
        ),
        (
            "an error item inside progress",
            "assembleHap",
            format!("> hvigor compiling 10%\r> hvigor compiling 90%\r1 ERROR: 10505001 ArkTS Compiler Error\rError Message: Cannot find name Foo. At File: entry/src/Index.ets:1:1\r\n{success}"),
        ),
        ("BUILD FAILED past 64 KiB of a line", "assembleHap", format!("{success}{long_line}")),
    ];
    for (what, task, output) in cases {
        let agent = r#"[sh, -c, "echo x >> notes.txt", agent]"#;
        let verify =
            format!("  - name: build\n    kind: hvigor\n    argv: [sh, ../hvigorw.sh, {task}]\n");
        let dir = project(agent, &verify, "notes-pass", "repair:\n  max-rounds: 0\n");
        fs::write(dir.path().join("hvigor.out"), &output).unwrap();
        crate::support::executable(
            &dir.path().join("hvigorw.sh"),
            "#!/bin/sh\ncat ../hvigor.out\nexit 0\n",
        );
        let (code, summary, _) = deliver(dir.path(), &[]);
        assert_eq!(code, 1, "{what}: {summary:?}");
        assert_eq!(
            summary.terminal_reason,
            TerminalReason::VerificationFailed,
            "{what}: {summary:?}"
        );
        let run = run_dir(&summary, dir.path());
        let verified: Value =
            serde_json::from_slice(&fs::read(run.join("verify-1.json")).unwrap()).unwrap();
        assert_eq!(
            verified["commands"][0]["status"], "fail",
            "{what}: {verified}"
        );
    }
}
