//! `dwpipe compare` through the real binary, on replayed audits whose cold starts come from
//! known distributions (device-fixtures/generate.py): 10 % slower, within the floor, faster,
//! and three noisy runs an arm.

use std::fs;
use std::path::Path;

use dwpipe::schema::{Comparison, Outcome, Regression};

use crate::support::{EXIT_CODES, Ran, Test, fixture, frozen_fixture, parse};

/// A folder with the cold-start pack frozen and every regress-* capture audited into it.
fn audited() -> tempfile::TempDir {
    let dir = frozen_fixture("packs/cold-start.yaml");
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (arm, runs) in [
        ("base", None),
        ("slower", None),
        ("same", None),
        ("faster", None),
        ("few-base", Some("3")),
        ("few", Some("3")),
    ] {
        let capture = repo.join(format!("device-fixtures/regress-{arm}"));
        let mut args = vec![
            "audit",
            "--pack",
            "pack.lock.json",
            "--replay",
            capture.to_str().unwrap(),
            "--strict",
            "--out",
            arm,
        ];
        if let Some(runs) = runs {
            args.extend(["--runs", runs]);
        }
        Test::new(dir.path()).args(&args).status(0).run();
    }
    dir
}

/// `dwpipe compare BASE/audit-1.json CANDIDATE/audit-1.json --out cmp-CANDIDATE --json` plus
/// `extra`, to be told its exit code and run.
fn comparing(dir: &Path, base: &str, candidate: &str, extra: &[&str]) -> Test {
    let (b, c) = (
        format!("{base}/audit-1.json"),
        format!("{candidate}/audit-1.json"),
    );
    let out = format!("cmp-{candidate}");
    Test::new(dir)
        .args(["compare", &b, &c, "--out", &out, "--json"])
        .args(extra)
}

/// A comparison that ends with a verdict: the exit code, the comparison and stderr.
#[track_caller]
fn compare(dir: &Path, base: &str, candidate: &str, extra: &[&str]) -> (i32, Comparison, String) {
    let Ran {
        code,
        stdout,
        stderr,
        ..
    } = comparing(dir, base, candidate, extra)
        .status_in(&[0, 1])
        .run();
    (code, parse(&stdout), stderr)
}

#[test]
fn each_known_shift_gets_its_verdict_and_exit_code() {
    let dir = audited();
    let rows = [
        ("base", "slower", 1, "regressed", "different", 61.5),
        ("base", "same", 0, "same", "same", 2.0),
        ("base", "faster", 0, "improved", "different", -67.5),
    ];
    for (base, candidate, exit, verdict, outcome, delta) in rows {
        let (code, report, stderr) = compare(dir.path(), base, candidate, &[]);
        assert_eq!(code, exit, "{candidate}: {stderr}");
        assert_eq!(report.verdict.as_str(), verdict, "{candidate}");
        let p01 = &report.criteria[0];
        assert_eq!(
            p01.outcome.map(Outcome::as_str),
            Some(outcome),
            "{candidate}: {p01:?}"
        );
        assert_eq!(p01.delta, Some(delta), "{candidate}");
        assert_eq!((p01.baseline.n, p01.candidate.n), (10, 10));
        assert_eq!(
            p01.baseline.median,
            Some(700.5),
            "median of the baseline's ten"
        );
        assert_eq!(p01.floor, Some(20.0), "the built-in floor of a ms probe");
        let [lo, hi] = p01.ci95.expect("an interval");
        assert!(
            lo <= delta && delta <= hi,
            "{candidate}: {lo} ≤ {delta} ≤ {hi}"
        );
        assert!(
            dir.path()
                .join(format!("cmp-{candidate}/compare.md"))
                .is_file()
        );
    }
    // Reproducible: the same two audits give the same numbers, interval included.
    let first = fs::read_to_string(dir.path().join("cmp-slower/compare.json")).unwrap();
    compare(dir.path(), "base", "slower", &[]);
    assert_eq!(
        first,
        fs::read_to_string(dir.path().join("cmp-slower/compare.json")).unwrap()
    );
}

#[test]
fn three_runs_an_arm_are_inconclusive_and_say_why() {
    let dir = audited();
    let (code, report, _) = compare(dir.path(), "few-base", "few", &[]);
    assert_eq!(code, 1, "inconclusive is never a pass");
    assert_eq!(report.verdict, Regression::Inconclusive);
    let reason = &report.criteria[0].reason;
    assert!(
        reason.contains("3 against 3") && reason.contains("0.029"),
        "{reason}"
    );
    let md = fs::read_to_string(dir.path().join("cmp-few/compare.md")).unwrap();
    assert!(md.starts_with("# Regression check: inconclusive"), "{md}");
    // Inconclusive is never green in CI either.
    let junit = fs::read_to_string(dir.path().join("cmp-few/compare-junit.xml")).unwrap();
    assert!(
        junit.contains("failures=\"1\"")
            && junit.contains("<failure message=\"inconclusive: 3 against 3"),
        "{junit}"
    );
    let page = fs::read_to_string(dir.path().join("cmp-few/compare.html")).unwrap();
    assert!(
        page.contains("baseline (n=3)")
            && page.contains("candidate (n=3)")
            && page.contains("±20 ms around the baseline"),
        "{page}"
    );
}

#[test]
fn the_floor_comes_from_the_criterion_then_the_pack_and_must_fit_the_probe() {
    let dir = audited();
    let pack = fs::read_to_string(fixture("packs/cold-start.yaml")).unwrap();
    // A 100 ms floor on the criterion: 61.5 ms slower is within it.
    let wide = pack.replace(
        "      probe: { id: perf.cold-start, runs: 10 }\n",
        "      probe: { id: perf.cold-start, runs: 10 }\n    regression: { floor: 100ms }\n",
    );
    fs::create_dir_all(dir.path().join("wide")).unwrap();
    fs::write(dir.path().join("wide/pack.yaml"), wide).unwrap();
    Test::new(dir.path())
        .args(["freeze", "wide/pack.yaml", "--out", "wide"])
        .run();
    let (code, report, _) = compare(
        dir.path(),
        "base",
        "slower",
        &["--pack", "wide/pack.lock.json"],
    );
    assert_eq!((code, report.criteria[0].floor), (0, Some(100.0)));
    assert_eq!(report.verdict, Regression::Same);
    // A pack-wide 5 % of the 700.5 ms baseline: 35.025 ms, and 61.5 ms is past it.
    let share = pack.replace("criteria:\n", "regression: { floor: 5% }\ncriteria:\n");
    fs::create_dir_all(dir.path().join("share")).unwrap();
    fs::write(dir.path().join("share/pack.yaml"), share).unwrap();
    Test::new(dir.path())
        .args(["freeze", "share/pack.yaml", "--out", "share"])
        .run();
    let (code, report, _) = compare(
        dir.path(),
        "base",
        "slower",
        &["--pack", "share/pack.lock.json"],
    );
    assert_eq!(code, 1);
    assert!((report.criteria[0].floor.unwrap() - 35.025).abs() < 1e-9);
    // A floor in a unit the probe does not measure is refused at freeze, located.
    let wrong = pack.replace(
        "      probe: { id: perf.cold-start, runs: 10 }\n",
        "      probe: { id: perf.cold-start, runs: 10 }\n    regression: { floor: 3vp }\n",
    );
    fs::write(dir.path().join("wrong.yaml"), wrong).unwrap();
    Test::new(dir.path())
        .args(["freeze", "wrong.yaml", "--out", "wrong"])
        .status(2)
        .stderr_contains("E_PACK_BAD_FLOOR")
        .stderr_contains("--> wrong.yaml:")
        .run();
}

#[test]
fn audits_of_another_device_are_refused_and_an_unknown_refresh_rate_is_said() {
    let dir = audited();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    // The same phone's capture said to run at 120 Hz, and one from before dwpipe read it.
    for (name, edit) in [("fast", Some("refresh-rate: 120")), ("unknown", None)] {
        let capture = dir.path().join(format!("capture-{name}"));
        crate::support::copy_tree(&repo.join("device-fixtures/regress-slower"), &capture);
        let identity = fs::read_to_string(capture.join("device.yaml")).unwrap();
        let edited = match edit {
            Some(to) => identity.replace("refresh-rate: 60", to),
            None => identity.replace("refresh-rate: 60\n", ""),
        };
        assert_ne!(edited, identity);
        fs::write(capture.join("device.yaml"), edited).unwrap();
        Test::new(dir.path())
            .args([
                "audit",
                "--pack",
                "pack.lock.json",
                "--strict",
                "--out",
                name,
            ])
            .args(["--replay", capture.to_str().unwrap()])
            .status(0)
            .run();
    }
    // Under --json a refusal is JSON on stdout too.
    comparing(dir.path(), "base", "fast", &[])
        .status(2)
        .stdout_contains("E_COMPARE_DEVICE_DIFFERS")
        .stdout_contains("refresh rate 60 Hz against 120 Hz")
        .run();
    // An audit recorded before the refresh rate was: compared, with a warning.
    let (code, comparison, stderr) = compare(dir.path(), "base", "unknown", &[]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(comparison.diagnostics[0].code, "W_COMPARE_REFRESH_UNKNOWN");
    comparing(dir.path(), "base", "nowhere", &[])
        .status(2)
        .stdout_contains("E_COMPARE_INVALID")
        .run();
}

#[test]
fn verify_evidence_recomputes_a_comparison_and_names_what_was_changed() {
    let dir = audited();
    let (code, _, _) = compare(dir.path(), "base", "slower", &[]);
    assert_eq!(code, 1);
    let Ran { stdout, .. } = Test::new(dir.path())
        .args(["verify-evidence", "cmp-slower/compare.json"])
        .status(0)
        .run();
    assert!(
        stdout.contains("base/audit-1.json: ") && stdout.contains("slower/audit-1.json: "),
        "both audits verified first: {stdout}"
    );
    assert!(
        stdout.contains("VERIFIED  cmp-slower/compare.json: 1 criterion recomputed from the two audits against lock ")
            && stdout.contains(": 0 difference(s)"),
        "{stdout}"
    );
    // A regression rewritten as `same` is found.
    let path = dir.path().join("cmp-slower/compare.json");
    let mut comparison: serde_json::Value =
        serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    comparison["verdict"] = "same".into();
    comparison["criteria"][0]["verdict"] = "same".into();
    fs::write(&path, comparison.to_string()).unwrap();
    let stdout = Test::new(dir.path())
        .args(["verify-evidence", "cmp-slower/compare.json"])
        .status(1)
        .run()
        .stdout;
    assert!(
        stdout.contains(
            "DIFFERENT  verdict: the report says \"same\", its evidence gives \"regressed\""
        ),
        "{stdout}"
    );
}

#[test]
fn jank_drawn_from_known_distributions_gets_its_verdicts() {
    // One long frame per scroll (device-fixtures/jank-*): around 50 ms in the baseline (about
    // 32 ms/s of jank), 53.5 ms (+10 %), 50.1 ms (within the 1 ms/s floor), 40 ms; three noisy
    // scrolls an arm.
    let dir = frozen_fixture("packs/jank.yaml");
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (arm, runs) in [
        ("base", "10"),
        ("slower", "10"),
        ("same", "10"),
        ("faster", "10"),
        ("few-base", "3"),
        ("few", "3"),
    ] {
        let capture = repo.join(format!("device-fixtures/jank-{arm}"));
        let Ran { code, stderr, .. } = Test::new(dir.path())
            .args([
                "audit",
                "--pack",
                "pack.lock.json",
                "--replay",
                capture.to_str().unwrap(),
                "--strict",
                "--runs",
                runs,
                "--out",
                arm,
            ])
            .status_in(EXIT_CODES)
            .run();
        // A verdict either way: three noisy scrolls may exceed the pack's 40 ms/s.
        assert!(code == 0 || code == 1, "{arm}: {stderr}");
    }
    let rows = [
        ("base", "slower", 1, "regressed", 8.0..12.0),
        ("base", "same", 0, "same", -1.0..1.0),
        ("base", "faster", 0, "improved", -35.0..-25.0),
        ("few-base", "few", 1, "inconclusive", -100.0..100.0),
    ];
    for (base, candidate, exit, verdict, pct) in rows {
        let (code, report, stderr) = compare(dir.path(), base, candidate, &[]);
        assert_eq!(code, exit, "{candidate}: {stderr}");
        assert_eq!(report.verdict.as_str(), verdict, "{candidate}: {report:?}");
        let p02 = &report.criteria[0];
        assert_eq!(p02.floor, Some(1.0), "the built-in floor of a ms/s probe");
        let delta_pct = p02.delta_pct.unwrap();
        assert!(pct.contains(&delta_pct), "{candidate}: {delta_pct}%");
    }
}

/// A comparison is bound to what it compared: its lock and both reports by SHA-256. Judged by
/// a laxer lock (a 100 ms floor turns the regression into `same`), it verifies only against
/// that lock, and is a difference against the trusted one; a lock path or a report swapped
/// under it is a difference too. Each audit is held to the lock it recorded.
#[test]
fn a_comparison_is_bound_to_its_lock_and_its_reports() {
    let dir = audited();
    let lax = fs::read_to_string(fixture("packs/cold-start.yaml")).unwrap()
        + "regression:\n  floor: 100ms\n";
    fs::write(dir.path().join("lax.yaml"), lax).unwrap();
    Test::new(dir.path())
        .args(["freeze", "lax.yaml", "--out", "lax"])
        .run();
    let (code, judged, _) = compare(
        dir.path(),
        "base",
        "slower",
        &["--pack", "lax/pack.lock.json"],
    );
    assert_eq!((code, judged.verdict), (0, Regression::Same), "{judged:?}");
    assert_eq!(judged.format_version, 2);
    assert_eq!(judged.lock_sha256.as_deref().map(str::len), Some(64));
    assert_eq!(
        judged.candidate.report_sha256.as_deref().map(str::len),
        Some(64)
    );
    // Held to the lock it names, it is consistent (and says it is unanchored)...
    Test::new(dir.path())
        .args(["verify-evidence", "cmp-slower/compare.json"])
        .stdout_contains("UNANCHORED  the comparison is held to the lock it names itself")
        .stdout_contains(": 0 difference(s)")
        .run();
    // ...held to the trusted lock, the lock it was judged by is a difference.
    Test::new(dir.path())
        .args([
            "verify-evidence",
            "cmp-slower/compare.json",
            "--pack",
            "pack.lock.json",
        ])
        .status(1)
        .stdout_contains("DIFFERENT  lock-sha256")
        .stdout_contains(
            "DIFFERENT  verdict: the report says \"same\", its evidence gives \"regressed\"",
        )
        .run();
    // Its lock path pointed at the lax lock after a comparison by the trusted one.
    let (code, _, _) = compare(dir.path(), "base", "same", &[]);
    assert_eq!(code, 0);
    let path = dir.path().join("cmp-same/compare.json");
    let mut doc: serde_json::Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    doc["lock"] = "../lax/pack.lock.json".into();
    fs::write(&path, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
    Test::new(dir.path())
        .args(["verify-evidence", "cmp-same/compare.json"])
        .status(1)
        .stdout_contains("DIFFERENT  lock-sha256")
        .run();
    // A report swapped under it.
    fs::copy(
        dir.path().join("faster/audit-1.json"),
        dir.path().join("same/audit-1.json"),
    )
    .unwrap();
    Test::new(dir.path())
        .args([
            "verify-evidence",
            "cmp-same/compare.json",
            "--pack",
            "pack.lock.json",
        ])
        .status(1)
        .stdout_contains("DIFFERENT  candidate.report-sha256")
        .run();
}

/// A baseline measured under last release's lock stays verifiable after the pack changed:
/// each audit is held to the lock it recorded, the comparison to the one it was judged by.
#[test]
fn a_comparison_across_a_changed_pack_verifies() {
    let dir = audited();
    let changed = fs::read_to_string(fixture("packs/cold-start.yaml"))
        .unwrap()
        .replace("≤ 1100ms", "≤ 1000ms")
        .replace("expected: 1100", "expected: 1000");
    fs::write(dir.path().join("next.yaml"), changed).unwrap();
    Test::new(dir.path())
        .args(["freeze", "next.yaml", "--out", "next"])
        .run();
    let capture = Path::new(env!("CARGO_MANIFEST_DIR")).join("device-fixtures/regress-same");
    Test::new(dir.path())
        .args([
            "audit",
            "--pack",
            "next/pack.lock.json",
            "--replay",
            capture.to_str().unwrap(),
            "--out",
            "candidate",
        ])
        .run();
    let (code, _, stderr) = compare(
        dir.path(),
        "base",
        "candidate",
        &["--pack", "next/pack.lock.json"],
    );
    assert_eq!(code, 0, "{stderr}");
    Test::new(dir.path())
        .args([
            "verify-evidence",
            "cmp-candidate/compare.json",
            "--pack",
            "next/pack.lock.json",
        ])
        .stdout_contains(": 0 difference(s)")
        .run();
}

/// A regression gate that compares nothing is refused, never green; audits of different
/// packs are compared on what both measured, with a warning.
#[test]
fn a_comparison_of_nothing_in_common_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let freeze = |pack: &str, out: &str| {
        Test::new(dir.path())
            .args(["freeze", fixture(pack).to_str().unwrap(), "--out", out])
            .status(0)
            .run();
    };
    let audit = |lock: &str, capture: &str, out: &str| {
        let capture = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("device-fixtures")
            .join(capture);
        Test::new(dir.path())
            .args([
                "audit",
                "--pack",
                lock,
                "--replay",
                capture.to_str().unwrap(),
                "--out",
                out,
            ])
            .status_in(&[0, 1])
            .run();
    };
    freeze("packs/resources.yaml", "resources");
    freeze("packs/cold-start.yaml", "cold");
    audit("resources/pack.lock.json", "notes-resources", "r");
    audit("cold/pack.lock.json", "regress-base", "c");
    let Ran { stderr, .. } = Test::new(dir.path())
        .args([
            "compare",
            "r/audit-1.json",
            "c/audit-1.json",
            "--pack",
            "cold/pack.lock.json",
            "--out",
            "cmp",
        ])
        .status(2)
        .run();
    assert!(stderr.contains("E_COMPARE_NOTHING_IN_COMMON"), "{stderr}");
    assert!(
        !dir.path().join("cmp/junit.xml").exists(),
        "no green JUnit of 0 tests"
    );
    // The example pack's audit against the cold-start pack's: P-01 in both, with a warning.
    freeze("packs/../../../examples/notes/pack.yaml", "example");
    audit("example/pack.lock.json", "notes-pass", "e");
    let Ran { stdout, .. } = Test::new(dir.path())
        .args([
            "compare",
            "e/audit-1.json",
            "c/audit-1.json",
            "--pack",
            "cold/pack.lock.json",
            "--out",
            "cmp2",
            "--json",
        ])
        .status_in(&[0, 1])
        .run();
    let comparison: Comparison = parse(&stdout);
    assert_eq!(comparison.criteria.len(), 1);
    assert!(
        comparison
            .diagnostics
            .iter()
            .any(|d| d.code == "W_COMPARE_PACKS_DIFFER"),
        "{comparison:?}"
    );
}
