//! `dwpipe review` through the real binary: built-in rules, outside reviewers that pass,
//! revise, fail, hang, crash or flood, the three fail modes, the waiver, receipts and the ledger.

use std::fs;
use std::path::{Path, PathBuf};

use crate::support::{EXIT_CODES, Ran, Test, parse};
use dwpipe::schema::{ReviewReport, ReviewVerdict};

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// A folder with the example pack frozen in it.
#[track_caller]
fn frozen() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    Test::new(dir.path())
        .args(["freeze", repo("examples/notes/pack.yaml").to_str().unwrap()])
        .run();
    dir
}

/// A config whose reviewer runs `script` through sh (the user's argv; dwpipe builds no shell string).
fn config(dir: &Path, name: &str, script: Option<&str>, fail_mode: &str, extra: &str) -> PathBuf {
    let reviewer = script.map_or_else(String::new, |s| {
        format!(
            "  reviewer:\n    argv: [sh, -c, {}]\n    timeout: 2s\n",
            serde_json::to_string(s).unwrap()
        )
    });
    let path = dir.join(name);
    fs::write(
        &path,
        format!("review:\n  fail-mode: {fail_mode}\n  max-rounds: 2\n{reviewer}{extra}"),
    )
    .unwrap();
    path
}

/// `dwpipe review pack.lock.json --config CONFIG --out OUT --json` plus `extra`, to be told
/// its exit code and run.
fn reviewing(dir: &Path, config: &Path, out: &str, extra: &[&str]) -> Test {
    Test::new(dir)
        .args([
            "review",
            "pack.lock.json",
            "--config",
            config.to_str().unwrap(),
        ])
        .args(["--out", out, "--json"])
        .args(extra)
}

/// A review that reached a verdict: the exit code, its report and stderr.
#[track_caller]
fn review(dir: &Path, config: &Path, out: &str, extra: &[&str]) -> (i32, ReviewReport, String) {
    let Ran {
        code,
        stdout,
        stderr,
        ..
    } = reviewing(dir, config, out, extra).status_in(&[0, 1]).run();
    (code, parse(&stdout), stderr)
}

/// A review's verdict and what its outside reviewer did, as the report spells them.
fn said(report: &ReviewReport) -> (&str, &str) {
    (report.verdict.as_str(), report.reviewer.as_str())
}

fn ledger(dir: &Path, out: &str) -> Vec<serde_json::Value> {
    fs::read_to_string(dir.join(out).join("ledger.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

const PASS: &str = r#"cat > /dev/null; echo '{"verdict": "pass", "findings": []}'"#;
const REVISE: &str =
    r#"cat > /dev/null; echo '{"verdict": "revise", "findings": ["F-02 has no probe"]}'"#;

#[test]
fn a_passing_reviewer_and_a_receipt_that_stands() {
    let dir = frozen();
    let cfg = config(dir.path(), "c.yaml", Some(PASS), "warn", "");
    let (code, report, stderr) = review(dir.path(), &cfg, "out", &[]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(said(&report), ("pass", "pass"));
    // The same lock is never reviewed twice: no second report, no second ledger line.
    let (code, again, _) = review(dir.path(), &cfg, "out", &[]);
    assert_eq!(code, 0);
    assert_eq!(again.verdict, ReviewVerdict::Pass);
    assert!(!dir.path().join("out/review-2.json").exists());
    let lines = ledger(dir.path(), "out");
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["stage"], "review");
    assert_eq!(lines[0]["outcome"], "pass");
    assert_eq!(lines[0]["inputs"]["pack"].as_str().unwrap().len(), 64);
    let text = fs::read_to_string(dir.path().join("out/ledger.jsonl")).unwrap();
    assert!(
        !text.contains("findings") && !text.contains("verdict\""),
        "metadata only: {text}"
    );
}

#[test]
fn the_reviewer_receives_the_lock_on_stdin() {
    let dir = frozen();
    let script = r#"grep -q '"format-version"' && echo '{"verdict": "pass", "findings": []}'"#;
    let cfg = config(dir.path(), "c.yaml", Some(script), "closed", "");
    let (code, report, stderr) = review(dir.path(), &cfg, "out", &[]);
    assert_eq!((code, report.verdict), (0, ReviewVerdict::Pass), "{stderr}");
}

#[test]
fn revise_within_the_rounds_then_exhausted_under_each_fail_mode() {
    let dir = frozen();
    let cfg = config(dir.path(), "c.yaml", Some(REVISE), "warn", "");
    let (code, report, _) = review(dir.path(), &cfg, "out", &[]);
    assert_eq!(
        (code, report.verdict, report.round),
        (1, ReviewVerdict::Revise, 1)
    );
    assert!(
        report
            .diagnostics
            .iter()
            .any(|d| d.code == "W_REVIEW_FINDING")
    );
    // The author changes the pack; the next review is round 2 of 2: exhausted.
    let edited = fs::read_to_string(repo("examples/notes/pack.yaml"))
        .unwrap()
        .replace("expected: saved", "expected: note saved");
    fs::write(dir.path().join("pack2.yaml"), edited).unwrap();
    Test::new(dir.path()).args(["freeze", "pack2.yaml"]).run();
    let rows = [
        ("open", 0, "incomplete", None),
        ("warn", 0, "incomplete", Some("W_REVIEW_INCOMPLETE")),
        ("closed", 1, "blocked", Some("E_REVIEW_BLOCKED")),
    ];
    for (mode, exit, verdict, code) in rows {
        let out = format!("out-{mode}");
        fs::create_dir_all(dir.path().join(&out)).unwrap();
        fs::copy(
            dir.path().join("out/review-1.json"),
            dir.path().join(&out).join("review-1.json"),
        )
        .unwrap();
        let cfg = config(dir.path(), &format!("{mode}.yaml"), Some(REVISE), mode, "");
        let (got, report, stderr) = review(dir.path(), &cfg, &out, &[]);
        assert_eq!(
            (got, report.verdict.as_str()),
            (exit, verdict),
            "{mode}: {stderr}"
        );
        assert_eq!(report.round, 2);
        let codes: Vec<&str> = report.diagnostics.iter().map(|d| d.code.as_str()).collect();
        if let Some(code) = code {
            assert!(codes.contains(&code), "{mode}: {codes:?}");
        }
    }
}

#[test]
fn reviewer_failures_are_never_a_pass() {
    let dir = frozen();
    let rows = [
        ("garbage", "cat > /dev/null; echo 'LGTM, ship it'"),
        ("silent", "cat > /dev/null"),
        (
            "crash",
            "cat > /dev/null; echo '{\"verdict\": \"pass\", \"findings\": []}'; exit 3",
        ),
        ("hang", "sleep 30"),
        (
            "flood",
            "cat > /dev/null; head -c 50000000 /dev/zero | tr '\\0' x",
        ),
    ];
    for (name, script) in rows {
        let cfg = config(
            dir.path(),
            &format!("{name}.yaml"),
            Some(script),
            "closed",
            "",
        );
        let started = std::time::Instant::now();
        let (code, report, stderr) = review(dir.path(), &cfg, &format!("out-{name}"), &[]);
        assert_eq!(
            (code, said(&report)),
            (1, ("blocked", "failure")),
            "{name}: {stderr}"
        );
        assert!(
            started.elapsed().as_secs() < 20,
            "{name} took {:?}",
            started.elapsed()
        );
    }
}

#[test]
fn the_waiver_is_recorded_and_refused_under_closed() {
    let dir = frozen();
    let warn = config(dir.path(), "warn.yaml", Some(PASS), "warn", "");
    let (code, report, _) = review(dir.path(), &warn, "w", &["--no-review"]);
    assert_eq!((code, report.verdict), (0, ReviewVerdict::Waived));
    assert_eq!(ledger(dir.path(), "w")[0]["outcome"], "waived");
    let closed = config(dir.path(), "closed.yaml", Some(PASS), "closed", "");
    reviewing(dir.path(), &closed, "c", &["--no-review"])
        .status(2)
        .stdout_contains("E_REVIEW_WAIVER_REFUSED")
        .run();
    assert_eq!(ledger(dir.path(), "c")[0]["outcome"], "waiver-refused");
    let allowed = config(
        dir.path(),
        "allowed.yaml",
        Some(PASS),
        "closed",
        "  allow-waiver-when-closed: true\n",
    );
    let (code, report, _) = review(dir.path(), &allowed, "a", &["--no-review"]);
    assert_eq!((code, report.verdict), (0, ReviewVerdict::Waived));
}

#[test]
fn built_in_errors_stop_the_review_before_the_reviewer_is_asked() {
    let dir = frozen();
    let contradicting = fs::read_to_string(repo("examples/notes/pack.yaml"))
        .unwrap()
        .replace("expected: 800", "expected: 1000");
    fs::write(dir.path().join("bad.yaml"), contradicting).unwrap();
    Test::new(dir.path()).args(["freeze", "bad.yaml"]).run();
    let cfg = config(
        dir.path(),
        "c.yaml",
        Some("touch asked; echo '{\"verdict\": \"pass\", \"findings\": []}'"),
        "warn",
        "",
    );
    let (code, report, _) = review(dir.path(), &cfg, "out", &[]);
    assert_eq!((code, said(&report)), (1, ("revise", "not-asked")));
    let codes: Vec<&str> = report.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert!(
        codes.contains(&"E_REVIEW_STATEMENT_CONTRADICTS"),
        "{codes:?}"
    );
    assert!(
        !dir.path().join("asked").exists(),
        "the reviewer was not run"
    );
}

#[test]
fn briefs_through_the_binary() {
    let dir = frozen();
    let config = repo("examples/notes/dwpipe.yaml");
    let Ran { stdout: brief, .. } = Test::new(dir.path())
        .args([
            "brief",
            "pack.lock.json",
            "--config",
            config.to_str().unwrap(),
        ])
        .status(0)
        .run();
    assert!(
        brief.contains("Your own PASS is a claim, not the verdict") && brief.contains("### X-02"),
        "{brief}"
    );
    let capture = repo("device-fixtures/notes-fail");
    crate::support::replay_audit_into(dir.path(), &capture, "audit")
        .status(1)
        .run();
    let Ran {
        code,
        stdout: repair,
        ..
    } = Test::new(dir.path())
        .args([
            "brief",
            "pack.lock.json",
            "--round",
            "2",
            "--repair-from",
            "audit/audit-1.json",
            "--out",
            "repair.md",
        ])
        .status_in(EXIT_CODES)
        .run();
    assert_eq!((code, repair.as_str()), (0, ""));
    let repair = fs::read_to_string(dir.path().join("repair.md")).unwrap();
    assert!(
        repair.starts_with("# Repair round 2")
            && repair.contains("measured: 36vp; required: ≥ 48 vp"),
        "{repair}"
    );
    fs::write(dir.path().join("other.json"), "{\"hello\": 1}").unwrap();
    let stderr = Test::new(dir.path())
        .args(["brief", "pack.lock.json", "--repair-from", "other.json"])
        .status(2)
        .run()
        .stderr;
    assert!(stderr.contains("E_BRIEF_INVALID"), "{stderr}");
}

#[test]
fn a_failed_review_does_not_stand_once_the_reviewer_is_fixed() {
    let dir = frozen();
    let broken = config(
        dir.path(),
        "broken.yaml",
        Some("cat > /dev/null; exit 9"),
        "closed",
        "",
    );
    let (code, report, _) = review(dir.path(), &broken, "out", &[]);
    assert_eq!((code, report.verdict), (1, ReviewVerdict::Blocked));
    let fixed = config(dir.path(), "fixed.yaml", Some(PASS), "closed", "");
    let (code, report, stderr) = review(dir.path(), &fixed, "out", &[]);
    assert_eq!((code, said(&report)), (0, ("pass", "pass")), "{stderr}");
    assert!(dir.path().join("out/review-2.json").exists());
    // The completed review now stands: a third run asks nobody.
    let (code, report, _) = review(dir.path(), &broken, "out", &[]);
    assert_eq!((code, report.verdict), (0, ReviewVerdict::Pass));
    assert!(!dir.path().join("out/review-3.json").exists());
}

#[test]
fn a_review_is_written_beside_its_lock_and_never_into_a_run_folder() {
    let dir = frozen();
    let elsewhere = dir.path().join("elsewhere");
    fs::create_dir_all(&elsewhere).unwrap();
    let lock = dir.path().join("pack.lock.json");
    Test::new(&elsewhere)
        .args(["review", lock.to_str().unwrap()])
        .run();
    assert!(
        dir.path().join("review-1.json").is_file() && dir.path().join("ledger.jsonl").is_file()
    );
    assert_eq!(
        fs::read_dir(&elsewhere).unwrap().count(),
        0,
        "nothing in the current folder"
    );
    // A delivery's run folder keeps its ledger for `deliver` alone.
    fs::write(dir.path().join("run.json"), "{}").unwrap();
    Test::new(&elsewhere)
        .args(["review", lock.to_str().unwrap()])
        .status(2)
        .stderr_contains("E_REVIEW_IN_RUN")
        .stderr_contains("--out")
        .run();
}
