//! What CI reads agrees with what dwpipe decided: the JUnit of every exit path (an audit that
//! passes, fails, fails only on a should, cannot verify a must, finds its device not ready; a
//! lab that fails or is incomplete; a comparison that regressed or is the same) fails the
//! dashboard exactly when the exit code fails the job; and `--summary-md` writes the outcome
//! for a job's page, appended run after run, on `audit`, `compare` and `deliver`.

use std::fs;
use std::path::Path;

use crate::support::delivery::{FIXING_AGENT, SPACING, deliver, project};
use crate::support::{
    EXIT_CODES, Ran, Test, copy_tree, device, frozen_example, frozen_fixture, replay_audit_into,
};

fn repo(path: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// The `failures` and `errors` of a JUnit document's root.
#[track_caller]
fn counts(junit: &str) -> (usize, usize) {
    let root = junit
        .split("<testsuites ")
        .nth(1)
        .and_then(|rest| rest.split('>').next())
        .unwrap_or_else(|| panic!("no <testsuites>: {junit}"));
    let attribute = |name: &str| -> usize {
        root.split(&format!(" {name}=\""))
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no {name} in {root}"))
    };
    (attribute("failures"), attribute("errors"))
}

/// A dashboard reading `junit` goes red exactly when `exit` fails the job: failures for a
/// verdict (exit 1), errors for the environment (exit 3).
#[track_caller]
fn agrees(what: &str, exit: i32, junit: &Path) {
    let junit = fs::read_to_string(junit).unwrap_or_else(|e| panic!("{what}: {e}"));
    let (failures, errors) = counts(&junit);
    match exit {
        0 => assert_eq!((failures, errors), (0, 0), "{what}: exit 0\n{junit}"),
        1 => assert!(failures > 0, "{what}: exit 1 with no failure\n{junit}"),
        3 => assert!(errors > 0, "{what}: exit 3 with no error\n{junit}"),
        other => panic!("{what}: exit {other}"),
    }
}

#[test]
fn junit_agrees_with_the_exit_code_on_every_exit_path() {
    let dir = frozen_example();
    let capture = |name: &str| repo(&format!("device-fixtures/{name}"));
    for (what, fixture, extra, exit) in [
        ("an audit that passes", "notes-pass", &[][..], 0),
        ("an audit that fails", "notes-fail", &[][..], 1),
        (
            "a must that could not be verified",
            "notes-trace-cut",
            &[][..],
            1,
        ),
        (
            "a device that is not ready",
            "notes-pass",
            &["--require", "battery >= 95%"][..],
            3,
        ),
    ] {
        let out = what.replace(' ', "-");
        let Ran {
            code,
            stdout,
            stderr,
            ..
        } = replay_audit_into(dir.path(), &capture(fixture), &out)
            .args(extra)
            .status_in(EXIT_CODES)
            .run();
        assert_eq!(code, exit, "{what}: {stdout}{stderr}");
        agrees(what, code, &dir.path().join(&out).join("junit.xml"));
    }

    // Only a should criterion fails: the audit passes, and so does its JUnit.
    let cpu = frozen_fixture("packs/cpu.yaml");
    let busy = cpu.path().join("busy");
    copy_tree(&capture("notes-cpu"), &busy);
    let transcript = fs::read_to_string(busy.join("transcript.yaml")).unwrap();
    fs::write(
        busy.join("transcript.yaml"),
        transcript
            .replace("      12.00%", "      32.00%")
            .replace("      14.00%", "      34.00%")
            .replace("      13.00%", "      33.00%"),
    )
    .unwrap();
    let Ran { code, .. } = replay_audit_into(cpu.path(), &busy, "out").status(0).run();
    agrees("a failed should", code, &cpu.path().join("out/junit.xml"));

    // A lab with a failing device, and one whose second server never answered.
    for (what, servers, captures, exit) in [
        (
            "a lab with a failing device",
            &["10.0.0.1:8710"][..],
            &[("notes-pass", "LAB01"), ("notes-fail", "LAB02")][..],
            1,
        ),
        (
            "a lab that is incomplete",
            &["10.0.0.1:8710", "10.0.0.9:8710"][..],
            &[("notes-pass", "LAB01")][..],
            3,
        ),
    ] {
        let lab = frozen_example();
        let served: Vec<String> = captures
            .iter()
            .map(|(from, serial)| {
                format!("10.0.0.1:8710={}", device(lab.path(), from, serial, false))
            })
            .collect();
        let mut args = vec!["--devices", "all", "--out", "lab"];
        for server in servers {
            args.extend(["--server", server]);
        }
        let Ran {
            code,
            stdout,
            stderr,
            ..
        } = crate::lab::lab_audit(lab.path(), "hdc", &served, &args)
            .status_in(EXIT_CODES)
            .run();
        assert_eq!(code, exit, "{what}: {stdout}{stderr}");
        agrees(what, code, &lab.path().join("lab/lab-junit.xml"));
        let classes = fs::read_to_string(lab.path().join("lab/lab-junit.xml")).unwrap();
        assert!(
            classes.contains("classname=\"LAB01.function\""),
            "each device's cases carry its serial: {classes}"
        );
    }

    // A comparison that regressed, and one that is the same.
    let cold = frozen_fixture("packs/cold-start.yaml");
    for arm in ["base", "slower", "same"] {
        replay_audit_into(cold.path(), &capture(&format!("regress-{arm}")), arm)
            .status(0)
            .run();
    }
    for (candidate, exit) in [("slower", 1), ("same", 0)] {
        let out = format!("cmp-{candidate}");
        let candidate_report = format!("{candidate}/audit-1.json");
        let Ran {
            code,
            stdout,
            stderr,
            ..
        } = Test::new(cold.path())
            .args([
                "compare",
                "base/audit-1.json",
                &candidate_report,
                "--out",
                &out,
            ])
            .status_in(EXIT_CODES)
            .run();
        assert_eq!(code, exit, "{candidate}: {stdout}{stderr}");
        agrees(
            candidate,
            code,
            &cold.path().join(out).join("compare-junit.xml"),
        );
    }
}

#[test]
fn a_case_is_named_by_its_statement_and_timed() {
    let dir = frozen_example();

    replay_audit_into(dir.path(), &repo("device-fixtures/notes-fail"), "out")
        .status(1)
        .run();
    let junit = fs::read_to_string(dir.path().join("out/junit.xml")).unwrap();
    assert!(
        junit.contains("name=\"P-01 (must): Cold start to first frame ≤ 800ms\""),
        "{junit}"
    );
    // P-01 was read from the three cold-start visits on the device's clock: 3 s waited
    // inside the trace in run 1, then what the earlier runs needed (1150 ms, then 1200 ms)
    // and a quarter: 1.45 s and 1.5 s.
    assert!(
        junit.contains("name=\"P-01 (must): Cold start to first frame ≤ 800ms\" time=\"5.950\""),
        "{junit}"
    );
    assert!(junit.contains("<testsuite name=\"dwpipe audit FMR0223C13000649\" tests=\"9\""));
    assert!(
        junit.contains(" time=\"12.700\""),
        "the suite's device time: {junit}"
    );
}

#[test]
fn the_summary_for_a_job_page_is_appended_run_after_run() {
    let dir = frozen_example();
    let summary = dir.path().join("summary.md");
    for (out, fixture) in [("fail", "notes-fail"), ("pass", "notes-pass")] {
        replay_audit_into(
            dir.path(),
            &repo(&format!("device-fixtures/{fixture}")),
            out,
        )
        .args(["--summary-md", summary.to_str().unwrap()])
        .status_in(&[0, 1])
        .run();
    }
    let text = fs::read_to_string(&summary).unwrap();
    let failed = text
        .find("## dwpipe audit: FAILED")
        .expect("the failed audit's summary");
    let passed = text
        .find("## dwpipe audit: passed")
        .expect("the passing audit's summary");
    assert!(failed < passed, "appended in order: {text}");
    // What failed comes first, measured against its threshold; the passes are folded.
    assert!(
        text.contains(
            "**FAIL: 7 of 9 failed (6 must, 1 should), 0 unverified — replay of the capture"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "| P-01 (must) | Cold start to first frame ≤ 800ms | fail | 1200ms | 1200 ms > 800 ms |"
        ),
        "{text}"
    );
    assert!(
        text.contains("<details><summary>2 passed</summary>"),
        "{text}"
    );
    assert!(text.contains("Full report: `"), "{text}");

    // A comparison's and a delivery's.
    let cold = frozen_fixture("packs/cold-start.yaml");
    for arm in ["base", "slower"] {
        let capture = repo(&format!("device-fixtures/regress-{arm}"));
        replay_audit_into(cold.path(), &capture, arm).run();
    }
    Test::new(cold.path())
        .args([
            "compare",
            "base/audit-1.json",
            "slower/audit-1.json",
            "--out",
            "cmp",
            "--summary-md",
            "compare.md",
        ])
        .status(1)
        .run();
    let text = fs::read_to_string(cold.path().join("compare.md")).unwrap();
    assert!(
        text.starts_with("## dwpipe regression check: FAILED"),
        "{text}"
    );
    assert!(text.contains("| P-01 (must) | regressed |"), "{text}");

    let project = project(FIXING_AGENT, SPACING, "notes-pass", "");
    let (code, report, _) = deliver(project.path(), &["--summary-md", "summary.md"]);
    assert_eq!(code, 0, "{report:?}");
    let text = fs::read_to_string(project.path().join("summary.md")).unwrap();
    assert!(text.starts_with("## dwpipe deliver: verified"), "{text}");
    assert!(
        text.contains("| P-01 | pass: 720ms (threshold ≤ 800 ms) |"),
        "each criterion measured against its threshold: {text}"
    );
}
