//! `dwpipe audit` through the real binary on the shipped notes-app captures (expected
//! verdicts in device-fixtures/generate.py), evidence verification, a device that vanishes
//! mid-audit, and a live recording that replays to the same numbers.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use dwpipe::device::Source;
use dwpipe::diagnostic::{Diagnostic, Severity};
use dwpipe::gate::{CheckOutcome, CheckResult, Verdict};
use dwpipe::schema::AuditReport;

use crate::support::{
    Audited, EXIT_CODES, Ran, Test, copy_tree, frozen_example, frozen_fixture, parse,
};

const SERIAL: &str = "FMR0223C13000649";

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// criterion → (result, assertionVerdict, actual).
#[track_caller]
fn verdicts(report: &Option<AuditReport>) -> BTreeMap<String, (String, String, String)> {
    report
        .as_ref()
        .expect("an audit report")
        .checks
        .iter()
        .map(|c| {
            let c = &c.check;
            (
                c.criterion_id.clone(),
                (
                    c.result.as_str().to_owned(),
                    c.assertion_verdict.as_str().to_owned(),
                    c.actual.clone().unwrap_or_else(|| "-".to_owned()),
                ),
            )
        })
        .collect()
}

#[track_caller]
fn audit(dir: &Path, capture: &str, out: &str) -> (i32, Option<AuditReport>, String) {
    let capture = repo(&format!("device-fixtures/{capture}"));
    audit_capture(dir, &capture, out, &[])
}

fn row(result: &str, verdict: &str, actual: &str) -> (String, String, String) {
    (result.to_owned(), verdict.to_owned(), actual.to_owned())
}

#[test]
fn the_passing_capture_passes_every_measured_criterion() {
    let dir = frozen_example();
    let (code, report, stderr) = audit(dir.path(), "notes-pass", "pass");
    assert_eq!(code, 0, "{stderr}");
    let v = verdicts(&report);
    assert_eq!(
        v["P-01"],
        row("pass", "pass", "720ms"),
        "median of 700/720/760"
    );
    assert_eq!(v["P-02"], row("pass", "pass", "0ms/s"));
    assert_eq!(v["A-01"], row("pass", "pass", "12vp"));
    assert_eq!(v["X-01"], row("pass", "pass", "48vp"));
    assert_eq!(v["X-02"], row("pass", "pass", "21:1"));
    assert_eq!(v["F-01"], row("pass", "pass", "pass"));
    assert_eq!(
        v["F-02"],
        row("pass", "pass", "Note saved"),
        "the toast's text, read after the flow tapped Save"
    );
    assert_eq!(
        v["P-03"],
        row("pass", "pass", "720ms"),
        "median of three flow runs: 700/720/760 ms to the editor at rest"
    );
    assert_eq!(
        v["P-04"],
        row("pass", "pass", "60ms"),
        "40 ms to the page switch, plus 20 ms compensation"
    );
    let report = report.unwrap();
    assert_eq!(report.checks[3].measurements[0].runs.len(), 3);
    assert_eq!(report.device.as_ref().unwrap().serial, SERIAL);
    for file in [
        "pass/audit-1.json",
        "pass/audit-1.md",
        "pass/junit.xml",
        "pass/evidence/FMR0223C13000649/3/cold-start/trace.ftrace",
        "pass/evidence/FMR0223C13000649/1/flow-open-note/step-02.ftrace",
        "pass/evidence/FMR0223C13000649/1/flow-open-note/step-05-screen.png",
        "pass/evidence/FMR0223C13000649/1/flow-open-note/layout.json",
        "pass/evidence/FMR0223C13000649/3/flow-open-note/flow.json",
    ] {
        assert!(dir.path().join(file).is_file(), "{file}");
    }
    let junit = fs::read_to_string(dir.path().join("pass/junit.xml")).unwrap();
    assert!(
        junit.contains("tests=\"9\" failures=\"0\" skipped=\"0\""),
        "{junit}"
    );
    let page = fs::read_to_string(dir.path().join("pass/report.html")).unwrap();
    for part in [
        "P-01 cold start: 720ms (median of 3 runs)",
        "frame intervals",
        "data:image/png;base64,",
        "id:add_button 48 vp",
        "<h2>Flow open-note</h2>",
        "<b>2.</b> click: id:note_item_1 (open)<br>at 0.200 s",
        "aria-label=\"screen after step 5\"",
        "P-03 complete (trace-based)",
        // The criterion's own threshold from the lock, not a fixed reference line.
        "threshold: at most 900 ms",
    ] {
        assert!(page.contains(part), "report.html lacks {part}");
    }
    // A second audit into the same folder would overwrite the first one's evidence: refused.
    Test::new(dir.path())
        .args([
            "audit",
            "--pack",
            "pack.lock.json",
            "--replay",
            repo("device-fixtures/notes-pass").to_str().unwrap(),
            "--out",
            "pass",
        ])
        .status(2)
        .stderr_contains("earlier audit's evidence")
        .run();
}

#[test]
fn the_failing_capture_fails_each_planted_defect() {
    let dir = frozen_example();
    let (code, report, _) = audit(dir.path(), "notes-fail", "fail");
    assert_eq!(code, 1);
    let v = verdicts(&report);
    assert_eq!(v["P-01"], row("fail", "fail", "1200ms"));
    assert_eq!(v["P-02"], row("fail", "fail", "62.501ms/s"));
    assert_eq!(
        v["A-01"],
        row("fail", "fail", "9.846vp"),
        "32 px at density 3.25"
    );
    assert_eq!(v["X-01"], row("fail", "fail", "36vp"));
    assert_eq!(v["X-02"], row("fail", "fail", "2.32:1"));
    assert_eq!(v["F-01"], row("fail", "fail", "fail"));
    assert_eq!(
        v["P-03"],
        row("fail", "fail", "1200ms"),
        "the editor at rest after 1150/1200/1250 ms"
    );
    let junit = fs::read_to_string(dir.path().join("fail/junit.xml")).unwrap();
    // P-02 is a should: it fails the criterion, not the gate (its JUnit case is skipped with
    // why, so a dashboard agrees with the exit code).
    assert!(
        junit.contains("failures=\"6\"")
            && junit.contains("36 vp &lt; 48 vp")
            && junit.contains("a should criterion failed (the gate passes on its musts)"),
        "{junit}"
    );
}

#[test]
fn probes_that_find_nothing_are_unverified_with_the_reason() {
    let dir = frozen_example();
    let rows = [
        (
            "notes-trace-cut",
            "P-01",
            "ends mid-line: the file was cut short",
        ),
        (
            "notes-no-window",
            "A-01",
            "no window of `com.example.notes`",
        ),
        ("notes-no-window", "X-02", "no window"),
        ("notes-no-screenshot", "X-02", "no such file"),
    ];
    for (capture, criterion, reason) in rows {
        let (code, report, _) = audit(dir.path(), capture, &format!("{capture}-{criterion}"));
        assert_eq!(code, 1, "{capture}: a must criterion is unverified");
        let report = report.unwrap();
        let check = &report.check(criterion).check;
        assert_eq!(
            check.result,
            CheckResult::Unverified,
            "{capture} {criterion}"
        );
        assert!(
            check.evidence.contains(reason),
            "{capture}: {}",
            check.evidence
        );
        let codes = report.codes();
        assert!(codes.contains(&"E_MUST_UNVERIFIED"), "{capture}: {codes:?}");
    }
    // What the screenshot does not feed is still measured.
    let (_, report, _) = audit(dir.path(), "notes-no-screenshot", "again");
    assert_eq!(verdicts(&report)["A-01"], row("pass", "pass", "12vp"));
}

#[test]
fn verify_evidence_refuses_an_aggregate_it_does_not_know() {
    let dir = frozen_example();
    let (code, _, _) = audit(dir.path(), "notes-pass", "out");
    assert_eq!(code, 0);
    let report = dir.path().join("out/audit-1.json");
    let text = fs::read_to_string(&report).unwrap();
    assert!(text.contains("\"aggregate\": \"median\""));
    fs::write(
        &report,
        text.replacen("\"aggregate\": \"median\"", "\"aggregate\": \"average\"", 1),
    )
    .unwrap();
    // Never a silent median: the report is refused as invalid input.
    let Ran { stderr, .. } = Test::new(dir.path())
        .args(["verify-evidence", "out/audit-1.json"])
        .status(2)
        .run();
    assert!(
        stderr.contains("E_EVIDENCE_INVALID") && stderr.contains("average"),
        "{stderr}"
    );
}

#[test]
fn a_device_that_vanishes_mid_audit_exits_3_and_keeps_the_evidence() {
    let dir = frozen_example();
    let capture = dir.path().join("vanishing");
    copy_tree(&repo("device-fixtures/notes-pass"), &capture);
    let transcript = fs::read_to_string(capture.join("transcript.yaml")).unwrap();
    let at = transcript.find("  - shell: aa test").unwrap();
    fs::write(
        capture.join("transcript.yaml"),
        format!(
            "{}  - fault: vanish\n{}",
            &transcript[..at],
            &transcript[at..]
        ),
    )
    .unwrap();
    Test::new(dir.path())
        .args([
            "audit",
            "--pack",
            "pack.lock.json",
            "--replay",
            capture.to_str().unwrap(),
            "--out",
            "out",
        ])
        .status(3)
        .stderr_contains("evidence gathered so far")
        .run();
    assert!(
        dir.path()
            .join("out/evidence/FMR0223C13000649/1/cold-start/trace.ftrace")
            .is_file()
    );
    assert!(
        !dir.path().join("out/audit-1.json").exists(),
        "no report for an audit that did not finish"
    );
}

#[test]
fn a_live_recording_replays_to_the_same_numbers() {
    let dir = frozen_example();
    let captures = [repo("device-fixtures/notes-pass").display().to_string()];
    let hdc = crate::support::fake_hdc(dir.path(), "hdc", &captures, "");
    // The session's `sleep` steps really wait on a live device: this test takes a few seconds.
    let Ran { stdout: live, .. } = Test::new(dir.path())
        .args([
            "--hdc",
            hdc.to_str().unwrap(),
            "audit",
            "--pack",
            "pack.lock.json",
            "--device",
            SERIAL,
            "--record",
            "recorded",
            "--out",
            "live",
            "--json",
        ])
        .status(0)
        .run();
    let Ran {
        stdout: replayed, ..
    } = Test::new(dir.path())
        .args([
            "audit",
            "--pack",
            "pack.lock.json",
            "--replay",
            "recorded",
            "--out",
            "replayed",
            "--json",
        ])
        .status(0)
        .run();
    let live: AuditReport = parse(&live);
    let replayed: AuditReport = parse(&replayed);
    assert_eq!(
        verdicts(&Some(live.clone())),
        verdicts(&Some(replayed.clone()))
    );
    assert_eq!(
        live.checks[3].measurements[0].runs, replayed.checks[3].measurements[0].runs,
        "same numbers and evidence hashes"
    );
    // The recording holds every call and every pause the live audit made, in the source's
    // order (its fixed waits, the flows' settles, the readiness polls' looks and intervals),
    // and names the sessions it ran by their files' hashes.
    let operations = |path: &Path| -> Vec<String> {
        let doc: serde_json::Value =
            serde_saphyr::from_str(&fs::read_to_string(path.join("transcript.yaml")).unwrap())
                .unwrap();
        doc["exchanges"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                ["shell", "pull", "sleep", "visit"]
                    .iter()
                    .find_map(|k| e[*k].as_str().map(|v| format!("{k} {v}")))
                    .unwrap()
            })
            .collect()
    };
    let recorded = dir.path().join("recorded");
    assert_eq!(
        operations(&recorded),
        operations(&repo("device-fixtures/notes-pass"))
    );
    let doc: serde_json::Value =
        serde_saphyr::from_str(&fs::read_to_string(recorded.join("transcript.yaml")).unwrap())
            .unwrap();
    assert_eq!(doc["format-version"], 3);
    assert_eq!(
        doc["recorded-by"],
        format!("dwpipe {}", env!("CARGO_PKG_VERSION"))
    );
    let ui = fs::read(repo("playbooks/sessions/ui.yaml")).unwrap();
    assert_eq!(doc["sessions"]["ui"], dwpipe::hash::sha256_hex(&ui));
    assert_eq!(
        doc["sessions"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["cold-start", "flow", "hypium", "scroll", "ui"],
        "the sessions this audit ran"
    );
    // The poll found the window at its second look, live and replayed alike.
    for audit in ["live", "replayed"] {
        let ready = fs::read_to_string(
            dir.path()
                .join(audit)
                .join(format!("evidence/{SERIAL}/1/ui/ready.txt")),
        )
        .unwrap();
        assert!(
            ready.starts_with("ready: window 13 focused and visible after")
                && ready.contains("(2 looks;")
                && ready.contains("signal: SceneBoard: IsVisible"),
            "{audit}: {ready}"
        );
    }
}

#[test]
fn the_engine_reports_progress_as_events() {
    use dwpipe::audit::AuditEvent;
    let dir = frozen_example();
    let frozen = dwpipe::pack::load_lock(&dir.path().join("pack.lock.json")).unwrap();
    let playbooks = dwpipe::playbook::Playbooks::load(None).unwrap();
    let device = dwpipe::device::ReplayDevice::open(&repo("device-fixtures/notes-pass")).unwrap();
    let events = std::cell::RefCell::new(Vec::new());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime
        .block_on(dwpipe::audit::run(
            &device,
            &dwpipe::audit::AuditSpec::new(&frozen.pack, &playbooks),
            &dir.path().join("out"),
            &|e| events.borrow_mut().push(e),
        ))
        .unwrap();
    let events = events.into_inner();
    assert_eq!(
        events[0],
        AuditEvent::Started {
            serial: SERIAL.to_owned(),
            visits: 9
        },
        "4 sessions and the flow in run 1, cold-start and the flow again in runs 2 and 3"
    );
    let sessions: Vec<(u32, String)> = events
        .iter()
        .filter_map(|e| match e {
            AuditEvent::Session { run, session, .. } => Some((*run, session.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        sessions[..5]
            .iter()
            .map(|s| s.1.as_str())
            .collect::<Vec<_>>(),
        ["cold-start", "hypium", "scroll", "ui", "flow open-note"]
    );
    assert_eq!(
        sessions[5..],
        [
            (2, "cold-start".to_owned()),
            (2, "flow open-note".to_owned()),
            (3, "cold-start".to_owned()),
            (3, "flow open-note".to_owned())
        ]
    );
    assert_eq!(
        events
            .iter()
            .filter(|e| **e == AuditEvent::SessionDone)
            .count(),
        9
    );
}

#[test]
fn runs_that_disagree_are_flagged_unstable() {
    let dir = frozen_example();
    let (code, report, stderr) = audit(dir.path(), "notes-unstable", "out");
    assert_eq!(code, 0, "the median still passes: {stderr}");
    assert_eq!(verdicts(&report)["P-01"], row("pass", "pass", "720ms"));
    let report = report.unwrap();
    let unstable: Vec<&Diagnostic> = report
        .diagnostics
        .iter()
        .filter(|d| d.code == "W_MEASUREMENT_UNSTABLE")
        .collect();
    // The same 500/720/1100 ms wander in the flow's completions: P-03 is flagged too.
    assert_eq!(unstable.len(), 2);
    assert_eq!(unstable[0].criterion_id.as_deref(), Some("P-01"));
    assert_eq!(unstable[1].criterion_id.as_deref(), Some("P-03"));
    assert!(
        unstable[0].message.contains("83%"),
        "{}",
        unstable[0].message
    );
}

/// A traced window's wait in later runs is what the earlier runs showed it needs; a window
/// that cut the reading off is found on its trace and the visit made again at the ceiling.
#[test]
fn a_window_learned_from_earlier_runs_is_checked_and_made_again_when_cut_short() {
    let dir = frozen_example();
    // notes-unstable: cold starts of 500/720/1100 ms, completions the same. `--strict`: every
    // recorded exchange served, the repeats' included.
    let (code, report, stderr) = audit_capture(
        dir.path(),
        &repo("device-fixtures/notes-unstable"),
        "out",
        &["--strict"],
    );
    assert_eq!(code, 0, "{stderr}");
    let report = report.unwrap();
    let runs = |id: &str| -> Vec<f64> {
        report.check(id).measurements[0]
            .runs
            .iter()
            .map(|r| {
                r.value
                    .as_ref()
                    .and_then(dwpipe::audit::Value::as_number)
                    .unwrap()
            })
            .collect()
    };
    // Run 3's 1100 ms is read from the visit made again: the 1000 ms window had cut it off.
    assert_eq!(runs("P-01"), [500.0, 720.0, 1100.0]);
    assert_eq!(runs("P-03"), [500.0, 720.0, 1100.0]);
    let evidence = dir.path().join("out/evidence/FMR0223C13000649");
    let window = |run: u32, visit: &str| {
        fs::read_to_string(evidence.join(format!("{run}/{visit}/window.txt")))
    };
    assert!(
        window(1, "cold-start").is_err(),
        "run 1 waits the whole ceiling"
    );
    let second = window(2, "cold-start").unwrap();
    assert!(
        second.starts_with("the wait inside the trace: 750 ms: run 1 of P-01 needed 500 ms")
            && !second.contains("cut short"),
        "{second:?}"
    );
    let third = window(3, "cold-start").unwrap();
    assert!(
        third.contains("1000 ms: run 2 of P-01 needed 720 ms"),
        "{third}"
    );
    assert!(
        third.contains("cut short (P-01: no whole launch of the app in the trace")
            && third.contains("at least: P-01 1000 ms"),
        "{third}"
    );
    // What the cut visit proved stands beside what the visit made again read.
    let detail = |id: &str| -> String { report.check(id).measurements[0].runs[2].detail.clone() };
    assert!(
        detail("P-01").contains("its first visit, cut short, proved at least 1000 ms"),
        "{}",
        detail("P-01")
    );
    let flow = window(3, "flow-open-note").unwrap();
    assert!(
        flow.starts_with("step 2: 1300 ms: run 2 of P-03 needed 1020 ms"),
        "{flow}"
    );
    assert!(
        flow.contains("cut short (P-03: the screen was still changing"),
        "{flow}"
    );
    // The device was held for both visits: the cut one's 1 s wait and the 3 s one after it.
    let held = |run: u32, visit: &str| -> f64 {
        report
            .device_time
            .as_ref()
            .unwrap()
            .visits
            .iter()
            .find(|v| v.run == run && v.visit == visit)
            .unwrap()
            .seconds
    };
    assert_eq!(held(2, "cold-start"), 0.75);
    assert_eq!(held(3, "cold-start"), 4.0);
    // And the files read are the new visit's: the window's record is evidence like the rest.
    Test::new(dir.path())
        .args([
            "verify-evidence",
            "out/audit-1.json",
            "--pack",
            "pack.lock.json",
        ])
        .run();
}

#[test]
fn an_auditor_report_covers_the_unmeasurable_and_is_held_against_the_measured() {
    let dir = frozen_example();
    fs::write(
        dir.path().join("auditor.json"),
        r#"{"checks": [
            {"criterionId": "F-02", "result": "pass", "evidence": "toast seen after Save", "actual": "Note saved"},
            {"criterionId": "P-01", "result": "pass", "evidence": "profiler says so", "actual": "600ms"}
        ]}"#,
    )
    .unwrap();
    let Ran { stdout, .. } = Test::new(dir.path())
        .args([
            "audit",
            "--pack",
            "pack.lock.json",
            "--replay",
            repo("device-fixtures/notes-pass").to_str().unwrap(),
            "--out",
            "out",
            "--auditor-report",
            "auditor.json",
            "--json",
        ])
        .status(1)
        .run();
    let report: AuditReport = parse(&stdout);
    let v = verdicts(&Some(report.clone()));
    assert_eq!(
        v["F-02"],
        row("pass", "pass", "Note saved"),
        "the auditor's check for what no probe measures"
    );
    assert_eq!(
        v["P-01"].2, "720ms",
        "dwpipe's own measurement is what the verdict uses"
    );
    let mismatch = report
        .diagnostics
        .iter()
        .find(|d| d.code == "E_AUDIT_ACTUAL_MISMATCH")
        .expect("the auditor's 600ms against the measured 720ms");
    assert_eq!(mismatch.criterion_id.as_deref(), Some("P-01"));
}

/// `dwpipe audit` of the capture at `capture` (any folder) into `out`, with `extra` flags.
/// `audit --replay CAPTURE --json`: the report it printed (`None` when it was refused, its
/// diagnostics then added to stderr as a terminal says them).
#[track_caller]
fn audit_capture(
    dir: &Path,
    capture: &Path,
    out: &str,
    extra: &[&str],
) -> (i32, Option<AuditReport>, String) {
    let mut args = vec![
        "audit",
        "--pack",
        "pack.lock.json",
        "--replay",
        capture.to_str().unwrap(),
        "--out",
        out,
        "--json",
    ];
    args.extend_from_slice(extra);
    let Ran {
        code,
        stdout,
        mut stderr,
        ..
    } = Test::new(dir).args(&args).status_in(EXIT_CODES).run();
    if let Ok(report) = serde_json::from_str::<AuditReport>(&stdout) {
        return (code, Some(report), stderr);
    }
    // Refused under --json: its diagnostics are the document, said as a terminal says them.
    let refused: serde_json::Value = serde_json::from_str(&stdout).unwrap_or_default();
    for d in refused["diagnostics"].as_array().into_iter().flatten() {
        let _ = std::fmt::Write::write_fmt(
            &mut stderr,
            format_args!(
                "error[{}]: {}\n",
                d["code"].as_str().unwrap_or_default(),
                d["message"].as_str().unwrap_or_default()
            ),
        );
    }
    (code, None, stderr)
}

#[test]
fn a_capture_recorded_with_other_sessions_is_refused_before_its_first_call() {
    let dir = frozen_example();
    let source = fs::read_to_string(repo("device-fixtures/notes-pass/transcript.yaml")).unwrap();
    let ui = source
        .lines()
        .find(|l| l.starts_with("  ui: "))
        .expect("the fixture names its sessions");
    let rows = [
        (
            "format-version: 3\n",
            "format-version: 1\n",
            "recorded by device-fixtures/generate.py in transcript format-version 1, whose sessions slept fixed times where this dwpipe polls",
        ),
        (
            "format-version: 3\n",
            "format-version: 2\n",
            "recorded by device-fixtures/generate.py in transcript format-version 2, which does not say where each visit began",
        ),
        (
            "recorded-by: device-fixtures/generate.py\n",
            "recorded-by: dwpipe 0.0.9\n",
            "recorded by dwpipe 0.0.9 in",
        ),
        (
            ui,
            "  ui: 0000000000000000000000000000000000000000000000000000000000000000",
            "with another version of session `ui` than this audit runs",
        ),
        (
            ui,
            "  uix: 00",
            "without session `ui`, which this audit runs",
        ),
    ];
    for (i, (from, to, expected)) in rows.into_iter().enumerate() {
        let capture = dir.path().join(format!("outdated-{i}"));
        copy_tree(&repo("device-fixtures/notes-pass"), &capture);
        let mut transcript = source.replacen(from, to, 1);
        if i == 2 {
            transcript = transcript.replacen("format-version: 3\n", "format-version: 1\n", 1);
        }
        fs::write(capture.join("transcript.yaml"), transcript).unwrap();
        let out = format!("out-{i}");
        let (code, _, stderr) = audit_capture(dir.path(), &capture, &out, &[]);
        assert_eq!(code, 2, "{stderr}");
        assert!(
            stderr.contains("error[E_CAPTURE_OUTDATED]")
                && stderr.contains(expected)
                && stderr.contains("re-record it with `dwpipe audit --device SERIAL --record DIR`"),
            "{stderr}"
        );
        assert!(
            !dir.path().join(&out).join("evidence").exists(),
            "refused before any evidence: {stderr}"
        );
    }
    // A newer dwpipe's capture is refused as it is read, with the versions this one reads.
    let capture = dir.path().join("newer");
    copy_tree(&repo("device-fixtures/notes-pass"), &capture);
    fs::write(
        capture.join("transcript.yaml"),
        source.replacen("format-version: 3\n", "format-version: 4\n", 1),
    )
    .unwrap();
    let (code, _, stderr) = audit_capture(dir.path(), &capture, "newer-out", &[]);
    assert!(
        code == 2
            && stderr.contains(
                "format-version 4 is not supported (this dwpipe reads 1 to 3); a newer dwpipe recorded it: upgrade dwpipe"
            ),
        "{stderr}"
    );
    // A capture without `sessions` (written by hand) is replayed as it stands.
    let capture = dir.path().join("by-hand");
    copy_tree(&repo("device-fixtures/notes-pass"), &capture);
    let (head, rest) = source.split_once("sessions:\n").unwrap();
    let by_hand = format!(
        "{head}exchanges:\n{}",
        rest.split_once("exchanges:\n").unwrap().1
    );
    assert!(!by_hand.contains("sessions:") && by_hand.contains("  - sleep: 3000ms"));
    fs::write(capture.join("transcript.yaml"), by_hand).unwrap();
    let (code, _, stderr) = audit_capture(dir.path(), &capture, "by-hand-out", &[]);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn a_realtime_replay_takes_the_device_time_it_recorded() {
    let dir = frozen_fixture("packs/cold-start.yaml");
    // regress-base's first run alone: a capture of the one-run audit replayed here.
    let capture = dir.path().join("one-run");
    copy_tree(&repo("device-fixtures/regress-base"), &capture);
    let transcript = fs::read_to_string(capture.join("transcript.yaml")).unwrap();
    let (first, _) = transcript.split_once("  - visit: 2 cold-start\n").unwrap();
    fs::write(capture.join("transcript.yaml"), first).unwrap();
    let started = std::time::Instant::now();
    let (code, report, stderr) = audit_capture(
        dir.path(),
        &capture,
        "realtime",
        &["--runs", "1", "--realtime"],
    );
    let took = started.elapsed();
    assert_eq!(code, 0, "{stderr}");
    // One cold start: its 3 s fixed wait inside the trace, the only delay the fixture records.
    let held = report.unwrap().device_time.unwrap();
    assert_eq!(held.seconds, 3.0, "{held:?}");
    assert!(took >= std::time::Duration::from_secs(3), "waited {took:?}");
    // A replay's flags with a live device, and a live device's with a replay, are refused.
    for (target, expected) in [
        (
            &["--device", "X", "--realtime"][..],
            "'--device <SERIAL>' cannot be used with '--realtime'",
        ),
        (
            &["--replay", "x", "--record", "y"],
            "cannot be used with '--record <CAPTURE>'",
        ),
    ] {
        let mut args = vec!["audit", "--pack", "pack.lock.json"];
        args.extend_from_slice(target);
        let Ran { code, stderr, .. } = Test::new(dir.path())
            .args(&args)
            .status_in(EXIT_CODES)
            .run();
        assert!(
            code == 2 && stderr.contains(expected),
            "{target:?}: {stderr}"
        );
    }
}

#[test]
fn a_capture_whose_own_files_leave_its_folder_is_refused() {
    let dir = frozen_example();
    for name in ["device.yaml", "transcript.yaml"] {
        let capture = dir.path().join(format!("linked-{name}"));
        copy_tree(&repo("device-fixtures/notes-pass"), &capture);
        let outside = dir.path().join(format!("outside-{name}"));
        fs::rename(capture.join(name), &outside).unwrap();
        std::os::unix::fs::symlink(&outside, capture.join(name)).unwrap();
        let out = format!("out-{name}");
        let (code, _, stderr) = audit_capture(dir.path(), &capture, &out, &[]);
        assert_ne!(code, 0, "{name}: {stderr}");
        assert!(stderr.contains("E_CAPTURE_PATH_ESCAPE"), "{name}: {stderr}");
        assert!(
            !dir.path().join(&out).join("audit-1.json").exists(),
            "{name}"
        );
    }
}

#[test]
fn a_replay_that_leaves_exchanges_unserved_says_so_and_fails_under_strict() {
    let dir = frozen_example();
    let capture = dir.path().join("longer");
    copy_tree(&repo("device-fixtures/notes-pass"), &capture);
    let mut transcript = fs::read_to_string(capture.join("transcript.yaml")).unwrap();
    let recorded = transcript.matches("\n  - ").count();
    for _ in 0..3 {
        transcript.push_str("  - shell: aa force-stop com.example.notes\n    reply: \"force stop process successfully.\\n\"\n");
    }
    fs::write(capture.join("transcript.yaml"), transcript).unwrap();
    let unserved = |report: &AuditReport| -> Option<(String, Severity, String)> {
        report.diagnostics.iter().find_map(|d| {
            d.code
                .ends_with("_CAPTURE_UNSERVED")
                .then(|| (d.code.clone(), d.severity, d.message.clone()))
        })
    };
    let (code, report, stderr) = audit_capture(dir.path(), &capture, "lenient", &[]);
    assert_eq!(code, 0, "still a pass, with a warning: {stderr}");
    let report = report.unwrap();
    let (code_word, severity, message) = unserved(&report).expect("a warning");
    assert_eq!(
        (code_word.as_str(), severity),
        ("W_CAPTURE_UNSERVED", Severity::Warning)
    );
    assert!(
        message.contains("3 recorded exchange(s) unserved")
            && message.contains(&format!(
                "exchange {}: shell aa force-stop com.example.notes",
                recorded + 1
            )),
        "{message}"
    );
    assert!(
        matches!(report.source, Some(Source::Replay { unserved: 3, .. })),
        "{:?}",
        report.source
    );
    let (code, report, _) = audit_capture(dir.path(), &capture, "strict", &["--strict"]);
    assert_eq!(code, 1);
    let report = report.unwrap();
    assert_eq!(report.verdict, Verdict::Fail);
    assert_eq!(unserved(&report).unwrap().0, "E_CAPTURE_UNSERVED");
    // Both are what their evidence and recorded source give.
    for out in ["lenient", "strict"] {
        let report = format!("{out}/audit-1.json");
        Test::new(dir.path())
            .args(["verify-evidence", &report, "--pack", "pack.lock.json"])
            .status(0)
            .run();
    }
}

#[test]
fn every_audit_records_its_source() {
    let dir = frozen_example();
    let capture = repo("device-fixtures/notes-pass");
    let (_, report, _) = audit_capture(dir.path(), &capture, "out", &[]);
    let transcript = fs::read(capture.join("transcript.yaml")).unwrap();
    let Some(Source::Replay {
        capture: replayed,
        transcript_sha256,
        unserved,
        ..
    }) = report.unwrap().source
    else {
        panic!("a replay's source");
    };
    assert_eq!(
        replayed,
        fs::canonicalize(&capture).unwrap().to_str().unwrap()
    );
    assert_eq!(transcript_sha256, dwpipe::hash::sha256_hex(&transcript));
    assert_eq!(unserved, 0);
}

/// The notes pack with F-01's probe replaced, frozen in `dir`, and the passing capture whose
/// `aa test` ran `classes` (the suites that probe names): what F-01's check says.
#[track_caller]
fn hypium_check(probe: &str, classes: &str) -> CheckOutcome {
    let dir = tempfile::tempdir().unwrap();
    let pack = fs::read_to_string(repo("examples/notes/pack.yaml"))
        .unwrap()
        .replace("{ id: test.hypium, suite: NoteListTest }", probe);
    fs::write(dir.path().join("pack.yaml"), pack).unwrap();
    Test::new(dir.path()).args(["freeze", "pack.yaml"]).run();
    let capture = dir.path().join("capture");
    copy_tree(&repo("device-fixtures/notes-pass"), &capture);
    let transcript = fs::read_to_string(capture.join("transcript.yaml"))
        .unwrap()
        .replace("-s class NoteListTest", classes);
    fs::write(capture.join("transcript.yaml"), transcript).unwrap();
    let Ran { stderr, .. } = crate::support::replay_audit(dir.path(), &capture)
        .status_in(&[0, 1])
        .run();
    assert!(dir.path().join("out/audit-1.json").exists(), "{stderr}");
    crate::support::first_audit(dir.path())
        .check("F-01")
        .check
        .clone()
}

#[test]
fn a_hypium_criterion_is_judged_by_its_own_suite_and_cases() {
    // The suite reaches `aa test` as `-s class`; a suite that reports nothing is no pass.
    let missing = hypium_check(
        "{ id: test.hypium, suite: NoSuchSuite }",
        "-s class NoSuchSuite",
    );
    assert_eq!(missing.result, CheckResult::Unverified, "{missing:?}");
    assert!(
        missing
            .evidence
            .contains("suite `NoSuchSuite` reported no case"),
        "{missing:?}"
    );
    // One case, as `Suite#case`.
    let one = hypium_check(
        "{ id: test.hypium, suite: NoteListTest, case: saves }",
        "-s class NoteListTest#saves",
    );
    assert_eq!(one.result, CheckResult::Pass, "{one:?}");
    // An expected case that never reported is blocked, and fails the criterion.
    let blocked = hypium_check(
        "{ id: test.hypium, suite: NoteListTest, expect: [saves, archives] }",
        "-s class NoteListTest",
    );
    assert_eq!(blocked.result, CheckResult::Fail, "{blocked:?}");
    assert!(
        blocked
            .evidence
            .contains("blocked (expected, never reported): archives"),
        "{blocked:?}"
    );
}

#[test]
fn a_case_count_against_the_summary_is_one_warning_on_the_criterion() {
    let dir = frozen_example();
    let capture = dir.path().join("capture");
    copy_tree(&repo("device-fixtures/notes-pass"), &capture);
    let transcript = fs::read_to_string(capture.join("transcript.yaml"))
        .unwrap()
        .replace(
            "Tests run: 2, Failure: 0, Error: 0, Pass: 2",
            "Tests run: 3, Failure: 0, Error: 0, Pass: 3",
        );
    fs::write(capture.join("transcript.yaml"), transcript).unwrap();
    let Ran { stderr, .. } = crate::support::replay_audit(dir.path(), &capture)
        .status_in(&[0, 1])
        .run();
    let report = crate::support::first_audit(dir.path());
    let warnings = report.with_code("W_EVIDENCE_DISAGREES");
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert_eq!(warnings[0].criterion_id.as_deref(), Some("F-01"));
    assert!(
        warnings[0]
            .message
            .contains("2 case(s) reported a result, the summary line says 3 run"),
        "{:?}",
        warnings[0]
    );
}

/// A capture holds the run plan it was recorded with (where each visit began): a replay
/// planned otherwise (`--runs N`, another pack) is input that does not fit the capture,
/// refused before its first call — never the app failing.
#[test]
fn a_replay_planned_with_other_runs_is_refused_before_its_first_call() {
    let dir = frozen_example();
    let capture = repo("device-fixtures/notes-pass");
    for runs in ["1", "2", "3", "5"] {
        let out = format!("runs-{runs}");
        let (code, report, stderr) = audit_capture(dir.path(), &capture, &out, &["--runs", runs]);
        assert_eq!(code, 2, "--runs {runs}: {stderr}");
        assert!(report.is_none(), "no report: {report:?}");
        assert!(
            stderr.contains("error[E_CAPTURE_PLAN]")
                && stderr.contains(
                    "recorded with another run plan: cold-start ×3, hypium ×1, scroll ×1, ui ×1, flow open-note ×3"
                ),
            "--runs {runs}: {stderr}"
        );
        assert!(
            !dir.path().join(&out).join("evidence").exists(),
            "refused before any evidence: {stderr}"
        );
    }
    let with_three = audit_capture(dir.path(), &capture, "runs-3x", &["--runs", "3"]).2;
    assert!(
        with_three.contains(
            "this audit plans cold-start ×3, hypium ×3, scroll ×3, ui ×3, flow open-note ×3"
        ),
        "{with_three}"
    );
    // As recorded, it replays.
    let (code, _, stderr) = audit_capture(dir.path(), &capture, "as-recorded", &[]);
    assert_eq!(code, 0, "{stderr}");
}

/// Without `--out`, reports never land among the user's sources: `audit` and `compare` each
/// write into a new `.dwpipe/<command>-<time>/` and say where.
#[test]
fn reports_default_to_a_folder_of_their_own_under_dwpipe() {
    let dir = frozen_example();
    let before: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    let capture = repo("device-fixtures/notes-pass");
    let stdout = Test::new(dir.path())
        .args([
            "audit",
            "--pack",
            "pack.lock.json",
            "--replay",
            capture.to_str().unwrap(),
        ])
        .run()
        .stdout;
    let audits: Vec<PathBuf> = fs::read_dir(dir.path().join(".dwpipe"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(audits.len(), 1, "{audits:?}");
    let folder = audits[0]
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    assert!(folder.starts_with("audit-20"), "{folder}");
    assert!(audits[0].join("audit-1.json").is_file());
    assert!(
        stdout.contains(&format!("wrote .dwpipe/{folder}/audit-1.json")),
        "{stdout}"
    );
    let report = format!(".dwpipe/{folder}/audit-1.json");
    // A second audit, within the same second or not, gets a folder of its own.
    let unstable = repo("device-fixtures/notes-unstable");
    Test::new(dir.path())
        .args([
            "audit",
            "--pack",
            "pack.lock.json",
            "--replay",
            unstable.to_str().unwrap(),
        ])
        .status(0)
        .run();
    let other = fs::read_dir(dir.path().join(".dwpipe"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .find(|name| *name != folder)
        .unwrap();
    let candidate = format!(".dwpipe/{other}/audit-1.json");
    // Three runs a side cannot show the same cold start (exit 1, inconclusive): the folder is
    // what is looked at here.
    let Ran {
        code,
        stdout,
        stderr,
        ..
    } = Test::new(dir.path())
        .args(["compare", &report, &candidate])
        .status_in(EXIT_CODES)
        .run();
    assert!(code < 2, "{stderr}");
    assert!(stdout.contains("wrote .dwpipe/compare-20"), "{stdout}");
    let after: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|name| name != ".dwpipe")
        .collect();
    assert_eq!(after, before, "nothing written beside the pack");
}
