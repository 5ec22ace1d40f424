//! The first hour, as a newcomer meets it: runs through fake-hdc that follow one another as
//! the README's examples do, and what the terminal, the summaries and the reports say when a
//! verdict is not a plain pass.

use std::fs;
use std::path::Path;

use crate::support::{Test, executable, frozen_example, no_sleeps, repo};
use dwpipe::schema::{Cause, Verification, Verified};

const SERIAL: &str = "FMR0223C13000649";

/// An `hdc` in `dir` that is fake-hdc serving `capture`, its state in `state` when one is named,
/// else (as `--hdc target/debug/fake-hdc` in the README) a state of each run's own.
fn fake_hdc(dir: &Path, capture: &str, state: Option<&Path>) -> String {
    let hdc = dir.join("hdc");
    let state = match state {
        Some(state) => format!(
            "DWPIPE_FAKE_HDC_STATE='{}'\nexport DWPIPE_FAKE_HDC_STATE\n",
            state.display()
        ),
        None => "unset DWPIPE_FAKE_HDC_STATE\n".to_owned(),
    };
    executable(
        &hdc,
        &format!(
            "#!/bin/sh\n{state}DWPIPE_FAKE_HDC_CAPTURES='{}' exec '{}' \"$@\"\n",
            repo().join("device-fixtures").join(capture).display(),
            env!("CARGO_BIN_EXE_fake-hdc"),
        ),
    );
    hdc.to_str().unwrap().to_owned()
}

/// `audit` of the example on fake-hdc's phone, without the playbooks' sleeps, into `out`.
#[track_caller]
fn audit(dir: &Path, hdc: &str, out: &str, status: i32) -> crate::support::Ran {
    let playbooks = no_sleeps(dir);
    Test::new(dir)
        .args(["--hdc", hdc, "audit", "--pack", "pack.lock.json"])
        .args(["--device", SERIAL, "--playbooks", &playbooks, "--out", out])
        .status(status)
        .run()
}

/// `audit --replay CAPTURE` (a path in the repository) of the pack frozen in `dir`, into `out`
/// with `extra`, expected to exit `status`.
#[track_caller]
fn replay(dir: &Path, capture: impl AsRef<str>, out: &str, extra: &[&str], status: i32) {
    let capture = repo().join(capture.as_ref());
    Test::new(dir)
        .args(["audit", "--pack", "pack.lock.json", "--replay"])
        .args([capture.to_str().unwrap(), "--out", out])
        .args(extra)
        .status(status)
        .run();
}

#[test]
fn fake_hdc_serves_every_run_from_the_start_of_its_recording() {
    let dir = frozen_example();
    let hdc = fake_hdc(dir.path(), "notes-pass", None);
    // The second run is served as the first was: every criterion measured, exit 0.
    audit(dir.path(), &hdc, "first", 0);
    audit(dir.path(), &hdc, "second", 0);
}

#[test]
fn a_shared_fake_hdc_state_left_by_an_earlier_run_is_said() {
    let dir = frozen_example();
    let state = dir.path().join("shared-state");
    let hdc = fake_hdc(dir.path(), "notes-pass", Some(&state));
    audit(dir.path(), &hdc, "first", 0);
    // The second run finds the first run's places: the recording has nothing left, every
    // criterion is unverified, and each says whose places they are and what to do.
    let second = audit(dir.path(), &hdc, "second", 1);
    let said = format!("{}{}", second.stdout, second.stderr);
    assert!(
        said.contains("left by an earlier run") && said.contains("DWPIPE_FAKE_HDC_STATE unset"),
        "{said}"
    );
    fs::remove_dir_all(&state).unwrap();
    audit(dir.path(), &hdc, "third", 0);
}

#[test]
fn verify_evidence_says_what_it_found_as_json() {
    let dir = frozen_example();
    replay(dir.path(), "device-fixtures/notes-pass", "out", &[], 0);
    let verify = |status: i32| -> Verification {
        let ran = Test::new(dir.path())
            .args(["verify-evidence", "out/audit-1.json", "--json"])
            .status(status)
            .run();
        crate::support::parse(&ran.stdout)
    };
    let checked = verify(0);
    assert!(checked.verified, "{checked:?}");
    assert_eq!(checked.kind, Verified::Audit);
    assert!(!checked.anchored, "no --pack: held to the lock it names");
    assert!(checked.files > 0, "{checked:?}");
    // A relabelled verdict is named, with its path and cause, and exits 1.
    let path = dir.path().join("out/audit-1.json");
    let text = fs::read_to_string(&path).unwrap();
    fs::write(
        &path,
        text.replacen("\"verdict\": \"pass\"", "\"verdict\": \"fail\"", 1),
    )
    .unwrap();
    let checked = verify(1);
    assert!(!checked.verified);
    assert!(
        checked
            .differences
            .iter()
            .any(|d| d.path == "verdict" && d.cause == Cause::Tampered),
        "{checked:?}"
    );
}

#[test]
fn a_median_verdict_shows_every_run_it_took() {
    let dir = crate::support::frozen_fixture("packs/jank.yaml");
    replay(
        dir.path(),
        "device-fixtures/jank-few",
        "out",
        &["--runs", "3"],
        1,
    );
    let page = fs::read_to_string(dir.path().join("out/report.html")).unwrap();
    // Run 1 passes a 40 ms/s threshold on its own; the median of the three fails it: the
    // page names all three, and which run the histogram draws.
    assert!(
        page.contains(
            "run 1: 26.7ms/s · run 2: 55.206ms/s · run 3: 52.7ms/s; the verdict takes their median"
        ),
        "{}",
        page.split("frame intervals")
            .nth(1)
            .unwrap_or(&page)
            .chars()
            .take(600)
            .collect::<String>()
    );
    // The histogram is the run the verdict took: the median of the three is run 3's reading.
    assert!(page.contains("frame intervals of run 3: "), "{page}");
    assert!(page.contains("run 3's intervals"));
}

#[test]
fn an_unstable_pass_is_a_pass_with_warnings_everywhere_it_is_read() {
    let dir = frozen_example();
    let capture = repo().join("device-fixtures/notes-unstable");
    Test::new(dir.path())
        .args(["audit", "--pack", "pack.lock.json", "--replay"])
        .args([capture.to_str().unwrap(), "--out", "out"])
        .args(["--summary-md", "summary.md"])
        .stdout_contains("PASS with warnings")
        .run();
    let summary = fs::read_to_string(dir.path().join("summary.md")).unwrap();
    assert!(
        summary.starts_with("## dwpipe audit: passed with warnings"),
        "{summary}"
    );
    assert!(
        summary.contains("pass ⚠ W_MEASUREMENT_UNSTABLE"),
        "{summary}"
    );
    let page = fs::read_to_string(dir.path().join("out/report.html")).unwrap();
    assert!(
        page.contains("<p class=\"banner amber\""),
        "not a green banner"
    );
    assert!(page.contains("PASS WITH WARNINGS"));
    let junit = fs::read_to_string(dir.path().join("out/junit.xml")).unwrap();
    assert!(junit.contains("warning W_MEASUREMENT_UNSTABLE:"), "{junit}");
}

#[test]
fn an_unverified_must_says_why_in_the_pr_summary() {
    let dir = frozen_example();
    replay(
        dir.path(),
        "device-fixtures/notes-trace-cut",
        "out",
        &["--summary-md", "summary.md"],
        1,
    );
    let summary = fs::read_to_string(dir.path().join("summary.md")).unwrap();
    let p01 = summary
        .lines()
        .find(|l| l.starts_with("| P-01"))
        .unwrap_or_else(|| panic!("{summary}"));
    assert!(p01.contains("unverified | not measured: run 1:"), "{p01}");
}

#[test]
fn deliver_says_why_a_criterion_is_unverified() {
    use crate::support::delivery::{FIXING_AGENT, SPACING, deliver, project};
    let dir = project(FIXING_AGENT, SPACING, "notes-trace-cut", "");
    let (code, summary, stderr) = deliver(dir.path(), &["--summary-md", "summary.md"]);
    assert_eq!(code, 1, "{stderr}");
    let p01 = summary
        .criteria
        .iter()
        .find(|(id, _)| id == "P-01")
        .unwrap();
    assert!(p01.1.starts_with("unverified: run 1:"), "{p01:?}");
    let md = fs::read_to_string(dir.path().join("summary.md")).unwrap();
    assert!(md.contains("| P-01 | unverified: run 1:"), "{md}");
}

#[test]
fn an_inconclusive_comparison_says_how_many_more_runs_it_needs() {
    let dir = crate::support::frozen_fixture("packs/cold-start.yaml");
    for (capture, out) in [("regress-few-base", "base"), ("regress-few", "candidate")] {
        replay(
            dir.path(),
            format!("device-fixtures/{capture}"),
            out,
            &["--runs", "3"],
            0,
        );
    }
    Test::new(dir.path())
        .args(["compare", "base/audit-1.json", "candidate/audit-1.json"])
        .args(["--out", "cmp", "--summary-md", "summary.md"])
        .status(1)
        .run();
    let md = fs::read_to_string(dir.path().join("summary.md")).unwrap();
    assert!(
        md.contains("inconclusive") && md.contains("measure more runs: 2 more on each arm"),
        "{md}"
    );
}

#[test]
fn doctor_help_shows_only_what_doctor_takes() {
    let dir = tempfile::tempdir().unwrap();
    let help = Test::new(dir.path())
        .args(["doctor", "--help"])
        .run()
        .stdout;
    for audit_only in ["--jobs", "--lab", "--realtime"] {
        assert!(
            !help.contains(audit_only),
            "{audit_only} in doctor's help:\n{help}"
        );
    }
    assert!(
        help.contains("--device") && help.contains("--pack"),
        "{help}"
    );
}

#[test]
fn doctor_names_the_agent_runtime_that_is_configured() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("dwpipe.yaml"),
        "workspace: .\nagent:\n  kind: deveco\n  program: /nonexistent/opencode\n  mode: build\nverify: []\n",
    )
    .unwrap();
    let said = Test::new(dir.path()).args(["doctor"]).status(3).run();
    let all = format!("{}{}", said.stdout, said.stderr);
    assert!(all.contains("agent (OpenCode)"), "{all}");
    assert!(!all.contains("DevEco Code"), "{all}");
}

#[test]
fn a_delivery_has_a_page_of_its_rounds() {
    use crate::support::delivery::{FIXING_AGENT, SPACING, deliver, project, run_dir};
    let dir = project(FIXING_AGENT, SPACING, "notes-fail", "");
    let (code, summary, stderr) = deliver(dir.path(), &[]);
    assert_eq!(code, 1, "{stderr}");
    let run = run_dir(&summary, dir.path());
    let page = fs::read_to_string(run.join("deliver.html")).unwrap();
    for shown in [
        "<p class=\"banner fail\"",
        "the agent said pass, dwpipe measured: not verified",
        "on a replay of the capture notes-fail",
        "<th>why it ended</th><td>no_changes</td>",
        "<td>1</td><td>agent</td>",
        "<td>1</td><td><a href=\"verify-1.json\">verify</a></td>",
        "<td>1</td><td><a href=\"audit-round-1/report.html\">audit</a></td><td class=\"fail\">fail</td>",
        "<td>2</td><td>agent</td>",
        "<h2>The last audit (round 1)</h2>",
    ] {
        assert!(page.contains(shown), "no {shown} in:\n{page}");
    }
    // Every link resolves from the page, wherever dwpipe ran; no path of this machine.
    for link in page.split("href=\"").skip(1) {
        let link = &link[..link.find('"').unwrap()];
        assert!(
            run.join(link).exists(),
            "{link} does not resolve from the page"
        );
    }
    assert!(
        page.contains("../../reviews/review-"),
        "the review receipt is linked"
    );
    let home = dir.path().canonicalize().unwrap();
    assert!(
        !page.contains(home.to_str().unwrap()),
        "a host path in:\n{page}"
    );
}

#[test]
fn the_terminal_ends_on_the_deliverys_own_page() {
    use crate::support::delivery::{FIXING_AGENT, SPACING, project};
    let dir = project(FIXING_AGENT, SPACING, "notes-pass", "");
    let said = Test::new(dir.path())
        .args(["deliver", "--pack", "pack.yaml"])
        .run()
        .stdout;
    let last = said.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("open: ") && last.ends_with("/deliver.html"),
        "{said}"
    );
    let page = Path::new(last.trim_start_matches("open: "));
    assert!(dir.path().join(page).is_file(), "{last}");
}

#[test]
fn banners_summaries_and_junit_name_the_capture_not_the_hosts_path() {
    let dir = frozen_example();
    replay(
        dir.path(),
        "device-fixtures/notes-fail",
        "out",
        &["--summary-md", "summary.md"],
        1,
    );
    let host = repo().display().to_string();
    for file in ["summary.md", "out/junit.xml", "out/audit-1.md"] {
        let text = fs::read_to_string(dir.path().join(file)).unwrap();
        assert!(
            text.contains("the capture notes-fail (transcript "),
            "{file}: {text}"
        );
        assert!(
            !text.contains(&host),
            "{file} names a path of this host: {text}"
        );
    }
    let page = fs::read_to_string(dir.path().join("out/report.html")).unwrap();
    let banner = page.split("<p class=\"banner").nth(1).unwrap();
    let banner = banner.split("</p>").next().unwrap();
    assert!(!banner.contains(&host), "{banner}");
}

#[test]
fn trend_points_link_to_each_audits_page_relative_to_the_report() {
    let dir = crate::support::frozen_fixture("packs/cold-start.yaml");
    for arm in ["base", "same", "slower", "faster"] {
        replay(
            dir.path(),
            format!("device-fixtures/regress-{arm}"),
            arm,
            &["--history", "history.sqlite"],
            0,
        );
    }
    let page = fs::read_to_string(dir.path().join("faster/report.html")).unwrap();
    assert!(page.contains("href=\"../base/report.html\""), "{page}");
    let host = dir.path().display().to_string();
    assert!(
        !page.contains(&format!("href=\"{host}")) && !page.contains("audit-1.json\"><"),
        "a trend link to a host path or to JSON"
    );
}

#[test]
fn a_comparison_written_before_statements_were_kept_still_verifies() {
    let dir = crate::support::frozen_fixture("packs/cold-start.yaml");
    for arm in ["base", "slower"] {
        replay(
            dir.path(),
            format!("device-fixtures/regress-{arm}"),
            arm,
            &[],
            0,
        );
    }
    Test::new(dir.path())
        .args([
            "compare",
            "base/audit-1.json",
            "slower/audit-1.json",
            "--out",
            ".",
        ])
        .status(1)
        .run();
    let path = dir.path().join("compare.json");
    let mut doc: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    let first = &mut doc["criteria"][0];
    assert!(
        first["statement"].is_string() && first["device-seconds"].is_number(),
        "{first}"
    );
    // As an earlier dwpipe wrote it: without the optional keys.
    for criterion in doc["criteria"].as_array_mut().unwrap() {
        let criterion = criterion.as_object_mut().unwrap();
        criterion.remove("statement");
        criterion.remove("device-seconds");
    }
    fs::write(&path, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    Test::new(dir.path())
        .args([
            "verify-evidence",
            "compare.json",
            "--pack",
            "pack.lock.json",
        ])
        .stdout_contains("0 difference(s)")
        .run();
}

/// An audit where nothing failed but criteria could not be measured is said as unverified,
/// amber and with why, in every form: never styled as the app's failure.
#[test]
fn an_audit_that_could_not_measure_is_unverified_not_a_product_failure() {
    let dir = frozen_example();
    let capture = repo().join("device-fixtures/notes-no-window");
    let said = Test::new(dir.path())
        .args(["audit", "--pack", "pack.lock.json", "--replay"])
        .args([capture.to_str().unwrap(), "--out", "out"])
        .args(["--summary-md", "summary.md"])
        .status(1)
        .run()
        .stdout;
    assert!(said.contains(": UNVERIFIED — "), "{said}");
    let page = fs::read_to_string(dir.path().join("out/report.html")).unwrap();
    assert!(page.contains("<p class=\"banner amber\""), "{page}");
    assert!(
        page.contains("UNVERIFIED: 3 of 9 criteria could not be measured ("),
        "{page}"
    );
    assert!(!page.contains("banner fail"), "{page}");
    let md = fs::read_to_string(dir.path().join("summary.md")).unwrap();
    assert!(md.contains("UNVERIFIED"), "{md}");
    let junit = fs::read_to_string(dir.path().join("out/junit.xml")).unwrap();
    assert!(
        junit.contains("<property name=\"verdict\" value=\"unverified\"/>"),
        "{junit}"
    );
    let report: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.path().join("out/audit-1.json")).unwrap())
            .unwrap();
    assert_eq!(
        report["verdict"], "fail",
        "the contract CI reads is unchanged"
    );
}
