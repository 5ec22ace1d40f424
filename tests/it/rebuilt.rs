//! Nothing dwpipe is handed turns a verdict: an audit's numbers are rebuilt from its evidence
//! before they are compared or imported, and so is every comparison and A/B record imported.

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::support::{Ran, Test, frozen_fixture, replay_audit_into};

fn repo(path: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// The cold-start pack frozen in a folder with `arms` (regress-* captures) audited into it.
fn audited(arms: &[&str]) -> tempfile::TempDir {
    let dir = frozen_fixture("packs/cold-start.yaml");
    for arm in arms {
        replay_audit_into(
            dir.path(),
            &repo(&format!("device-fixtures/regress-{arm}")),
            arm,
        )
        .args(["--strict"])
        .status(0)
        .run();
    }
    dir
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

/// The candidate's report with the baseline's readings copied in (per-run values and details,
/// the aggregate, the actual), its evidence left as it was: what the attack wrote.
fn copy_readings(dir: &Path, from: &str, into: &str) {
    let base = json(&dir.join(from).join("audit-1.json"));
    let path = dir.join(into).join("audit-1.json");
    let mut doctored = json(&path);
    let (b, d) = (&base["checks"][0], &mut doctored["checks"][0]);
    d["check"]["actual"] = b["check"]["actual"].clone();
    d["check"]["evidence"] = b["check"]["evidence"].clone();
    let (bm, dm) = (&b["measurements"][0], &mut d["measurements"][0]);
    dm["value"] = bm["value"].clone();
    dm["actual"] = bm["actual"].clone();
    for (run, from) in dm["runs"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .zip(bm["runs"].as_array().unwrap())
    {
        run["value"] = from["value"].clone();
        run["detail"] = from["detail"].clone();
    }
    fs::write(&path, doctored.to_string()).unwrap();
}

#[test]
fn compare_refuses_an_audit_whose_numbers_are_not_its_evidences() {
    let dir = audited(&["base", "slower"]);
    let dir = dir.path();
    // Honest: regressed.
    Test::new(dir)
        .args([
            "compare",
            "base/audit-1.json",
            "slower/audit-1.json",
            "--out",
            "honest",
        ])
        .status(1)
        .stdout_contains("compare: REGRESSED")
        .run();
    copy_readings(dir, "base", "slower");
    let Ran { stderr, .. } = Test::new(dir)
        .args([
            "compare",
            "base/audit-1.json",
            "slower/audit-1.json",
            "--out",
            "doctored",
        ])
        .status(2)
        .stderr_contains("E_COMPARE_TAMPERED")
        .stderr_contains("slower/audit-1.json` is not what its evidence gives")
        .run();
    assert!(stderr.contains("difference(s)"), "{stderr}");
    assert!(!dir.join("doctored/compare.json").exists());
    // A report that cannot be rebuilt (its evidence gone) is not compared at its word either.
    fs::remove_dir_all(dir.join("base/evidence")).unwrap();
    Test::new(dir)
        .args([
            "compare",
            "base/audit-1.json",
            "slower/audit-1.json",
            "--out",
            "bare",
        ])
        .status(2)
        .stderr_contains("E_COMPARE_UNVERIFIED")
        .stderr_contains("cannot be rebuilt from its evidence")
        .run();
}

#[test]
fn verify_evidence_counts_what_the_audits_under_a_comparison_hold() {
    let dir = audited(&["base", "slower"]);
    let dir = dir.path();
    compare_into_cmp(dir);
    copy_readings(dir, "base", "slower");
    let Ran { stdout, .. } = Test::new(dir)
        .args(["verify-evidence", "cmp/compare.json"])
        .status(1)
        .run();
    let last = stdout.lines().last().unwrap_or_default();
    assert!(
        last.contains("in the audits it compares") && !last.contains(": 0 difference(s)"),
        "{stdout}"
    );
}

#[test]
fn import_makes_every_comparison_again_and_refuses_one_that_differs() {
    let dir = audited(&["base", "slower"]);
    let dir = dir.path();
    compare_into_cmp(dir);
    // Hand-edited from regressed to same.
    let path = dir.join("cmp/compare.json");
    let honest = fs::read_to_string(&path).unwrap();
    let mut edited = json(&path);
    edited["verdict"] = "same".into();
    fs::write(&path, edited.to_string()).unwrap();
    let Ran { stdout, stderr, .. } = Test::new(dir)
        .args(["history", "--history", "h.sqlite", "import", "cmp"])
        .status(2)
        .run();
    assert!(
        stdout.contains("0 comparison(s)")
            && stderr.contains("it is not what its audits give")
            && stderr.contains("verdict: the report says \"same\""),
        "{stdout}{stderr}"
    );
    // As written, it is recorded.
    fs::write(&path, &honest).unwrap();
    Test::new(dir)
        .args([
            "history",
            "--history",
            "h.sqlite",
            "import",
            "base",
            "slower",
            "cmp",
        ])
        .stdout_contains("imported 2 audit(s)")
        .stdout_contains("1 comparison(s)")
        .run();
    // One built on a doctored audit: the audit and the comparison are both refused.
    copy_readings(dir, "base", "slower");
    let Ran { stdout, stderr, .. } = Test::new(dir)
        .args([
            "history",
            "--history",
            "h2.sqlite",
            "import",
            "slower",
            "cmp",
        ])
        .status(2)
        .run();
    assert!(
        stdout.contains("imported 0 audit(s)")
            && stdout.contains("0 comparison(s)")
            && stderr.contains("it cannot be made again from the audits it names"),
        "{stdout}{stderr}"
    );
}

/// The history's last passing audit is rebuilt from its evidence too when it is taken as the
/// baseline: one changed since it was recorded is refused, never compared at its word.
#[test]
fn a_baseline_from_the_history_is_rebuilt_before_it_is_compared() {
    let dir = frozen_fixture("packs/cold-start.yaml");
    let dir = dir.path();
    crate::support::live_audit(dir, "regress-base", "PHONE-H", "base");
    let candidate = crate::support::live_audit(dir, "regress-slower", "PHONE-H", "slower");
    Test::new(dir)
        .args(["history", "--history", "h.sqlite", "import", "base"])
        .stdout_contains("imported 1 audit(s)")
        .run();
    let against = |out: &str| {
        Test::new(dir)
            .args(["compare", "--against", "last-pass"])
            .args([candidate.to_str().unwrap()])
            .args(["--history", "h.sqlite", "--out", out])
    };
    against("honest")
        .status(1)
        .stdout_contains("compare: REGRESSED")
        .run();
    // The baseline's file made to read slower, like the candidate: a "same" in the making.
    copy_readings(dir, "slower", "base");
    against("doctored")
        .status(2)
        .stderr_contains("E_COMPARE_TAMPERED")
        .stderr_contains("base/audit-1.json` is not what its evidence gives")
        .run();
}

/// An audit's times are bound to its evidence: a copy re-dated in its report alone does not
/// verify, and one re-dated in its kept times too is still the run it was — never its own
/// baseline, never a second audit in the history.
#[test]
fn a_re_dated_copy_of_an_audit_is_the_run_it_was() {
    let dir = frozen_fixture("packs/cold-start.yaml");
    let dir = dir.path();
    let live = crate::support::live_audit(dir, "regress-base", "PHONE-T", "live");
    crate::support::copy_tree(&dir.join("live"), &dir.join("copy"));
    let copy = dir.join("copy/audit-1.json");
    let mut report = json(&copy);
    report["started"] = "2027-03-01T08:00:00Z".into();
    report["ended"] = "2027-03-01T08:05:00Z".into();
    fs::write(&copy, report.to_string()).unwrap();
    let Ran { stdout, .. } = Test::new(dir)
        .args(["verify-evidence", copy.to_str().unwrap()])
        .status(1)
        .run();
    assert!(
        stdout.contains("started")
            && stdout.contains("ended")
            && stdout.contains("2 difference(s)"),
        "{stdout}"
    );
    // Its kept times re-dated too, and their hash: it verifies, and is still the same run.
    let started = "2027-03-01T08:00:00Z";
    let kept = dir
        .join("copy")
        .join(report["inputs"]["times"]["path"].as_str().unwrap());
    let mut times = json(&kept);
    times["started"] = started.into();
    times["ended"] = "2027-03-01T08:05:00Z".into();
    let bytes = serde_json::to_vec_pretty(&times).unwrap();
    fs::write(&kept, &bytes).unwrap();
    report["inputs"]["times"]["sha256"] = dwpipe::hash::sha256_hex(&bytes).into();
    fs::write(&copy, report.to_string()).unwrap();
    // The forms it was published in still give its time.
    let Ran { stdout, .. } = Test::new(dir)
        .args(["verify-evidence", copy.to_str().unwrap()])
        .status(1)
        .run();
    assert!(
        stdout.contains("audit-1.md:7")
            && stdout.contains("report.html")
            && stdout.contains("3 difference(s)"),
        "{stdout}"
    );
    // Without them, it verifies: the copy is consistent, and only its run's name betrays it.
    for form in ["audit-1.md", "junit.xml", "report.html"] {
        fs::remove_file(dir.join("copy").join(form)).unwrap();
    }
    Test::new(dir)
        .args(["verify-evidence", copy.to_str().unwrap()])
        .stdout_contains("0 difference(s)")
        .run();
    Test::new(dir)
        .args(["compare", copy.to_str().unwrap(), live.to_str().unwrap()])
        .args(["--out", "self"])
        .status(2)
        .stderr_contains("E_COMPARE_SAME_AUDIT")
        .run();
    Test::new(dir)
        .args(["history", "--history", "h.sqlite", "import", "live"])
        .stdout_contains("imported 1 audit(s)")
        .run();
    Test::new(dir)
        .args(["history", "--history", "h.sqlite", "import", "copy"])
        .status(2)
        .stderr_contains("holds this audit's run")
        .run();
    // Nor when each was recorded on a host of its own and the hosts' files are joined.
    Test::new(dir)
        .args(["history", "--history", "other.sqlite", "import", "copy"])
        .stdout_contains("imported 1 audit(s)")
        .run();
    Test::new(dir)
        .args(["history", "--history", "h.sqlite", "import", "other.sqlite"])
        .status(2)
        .stderr_contains("holds this audit's run")
        .stdout_contains("imported 0 audit(s)")
        .run();
    // The original is no baseline of itself, nor is the copy of the original.
    Test::new(dir)
        .args(["compare", "--against", "last-pass", copy.to_str().unwrap()])
        .args(["--history", "h.sqlite", "--out", "against"])
        .status(2)
        .stderr_contains("E_HISTORY_NO_BASELINE")
        .run();
}

/// What a reviewer reads is held to the report as the report is to its evidence: the
/// Markdown, the JUnit XML and the page are rendered again and must be what the folder holds.
#[test]
fn a_published_form_edited_after_the_audit_does_not_verify() {
    let dir = audited(&["slower"]);
    let dir = dir.path();
    let report = dir.join("slower/audit-1.json");
    let verdict = json(&report)["verdict"].as_str().unwrap().to_uppercase();
    let other = if verdict == "PASS" { "FAIL" } else { "PASS" };
    Test::new(dir)
        .args(["verify-evidence", report.to_str().unwrap()])
        .stdout_contains("3 published form(s) rendered again")
        .stdout_contains("0 difference(s)")
        .run();
    for (file, from, to) in [
        ("audit-1.md", format!("**{verdict}:"), format!("**{other}:")),
        (
            "junit.xml",
            "<testcase".to_owned(),
            "<testcase data-x=\"1\"".to_owned(),
        ),
        (
            "report.html",
            "<h1".to_owned(),
            "<h1 data-x=\"1\"".to_owned(),
        ),
    ] {
        let path = dir.join("slower").join(file);
        let kept = fs::read_to_string(&path).unwrap();
        assert!(kept.contains(&from), "{file}: {kept}");
        fs::write(&path, kept.replacen(&from, &to, 1)).unwrap();
        let Ran { stdout, .. } = Test::new(dir)
            .args(["verify-evidence", report.to_str().unwrap()])
            .status(1)
            .run();
        assert!(
            stdout.contains(&format!("DIFFERENT  {file}:")) && stdout.contains("1 difference(s)"),
            "{file}: {stdout}"
        );
        fs::write(&path, kept).unwrap();
    }
    // A pipe or a link where a form was written is not the form: it is named, never passed
    // over as a form that is not there.
    let page = dir.join("slower/report.html");
    fs::remove_file(&page).unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(&page)
        .status()
        .unwrap();
    assert!(status.success());
    Test::new(dir)
        .args(["verify-evidence", report.to_str().unwrap()])
        .status(1)
        .stdout_contains("DIFFERENT  report.html: the report says \"a link or a special file\"")
        .run();
}

/// An import walks run folders without following links: a linked report is named, not
/// passed over in silence.
#[test]
fn an_import_names_a_linked_report() {
    let dir = audited(&["base"]);
    let dir = dir.path();
    fs::create_dir_all(dir.join("runs/linked")).unwrap();
    std::os::unix::fs::symlink(
        dir.join("base/audit-1.json"),
        dir.join("runs/linked/audit-1.json"),
    )
    .unwrap();
    Test::new(dir)
        .args(["history", "--history", "h.sqlite", "import", "runs"])
        .status(2)
        .stderr_contains("not imported: runs/linked/audit-1.json: it is a symbolic link to")
        .run();
}

/// `dwpipe compare base/audit-1.json slower/audit-1.json --out cmp` in `dir`: regressed.
fn compare_into_cmp(dir: &Path) {
    Test::new(dir)
        .args(["compare", "base/audit-1.json", "slower/audit-1.json"])
        .args(["--out", "cmp"])
        .status(1)
        .run();
}
