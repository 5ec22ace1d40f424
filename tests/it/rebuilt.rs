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
    Test::new(dir)
        .args([
            "compare",
            "base/audit-1.json",
            "slower/audit-1.json",
            "--out",
            "cmp",
        ])
        .status(1)
        .run();
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
    Test::new(dir)
        .args([
            "compare",
            "base/audit-1.json",
            "slower/audit-1.json",
            "--out",
            "cmp",
        ])
        .status(1)
        .run();
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
