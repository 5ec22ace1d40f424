//! The history through the real binary: runs made elsewhere imported and queried back, the
//! change point found at the run where the series was planted to shift, the last passing audit
//! on a device taken as a baseline (never a replay), the trend drawn on an audit's page, a
//! database from a newer dwpipe refused, and a killed import leaving no partial run.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::support::pg::each_store;
use crate::support::{Ran, Test, frozen_fixture, parse, replay_audit, replay_audit_into};
use dwpipe::schema::{Comparison, SeriesOutput, ShiftsOutput};
use serde_json::{Value, json};

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// A replayed audit of regress-base in `dir/out/`, as a template for the runs written below.
#[track_caller]
fn seed(dir: &Path) -> Value {
    replay_audit(dir, &repo("device-fixtures/regress-base"))
        .status(0)
        .run();
    serde_json::from_str(&fs::read_to_string(dir.join("out/audit-1.json")).unwrap()).unwrap()
}

/// `count` audits made on a device (reports of format 3, which kept no source record),
/// `runs/run-NN/audit-1.json`, one an hour from 2026-01-01:
/// cold starts around 700 ms, around 770 ms from run `shift` on (a deterministic wobble of
/// ±6 ms, and a thousandth of a millisecond per run so that no two reports are the same).
pub(super) fn runs(dir: &Path, count: usize, shift: usize) {
    let template = seed(dir);
    for i in 1..=count {
        let base = if i >= shift { 770.0 } else { 700.0 };
        let mut report = template.clone();
        let values: Vec<f64> = (0..10)
            .map(|r| base + ((i * 7 + r * 3) % 13) as f64 - 6.0 + i as f64 / 1000.0)
            .collect();
        let mut sorted = values.clone();
        sorted.sort_by(f64::total_cmp);
        let median = (sorted[4] + sorted[5]) / 2.0;
        let m = &mut report["checks"][0]["measurements"][0];
        m["value"] = json!(median);
        for (run, value) in m["runs"].as_array_mut().unwrap().iter_mut().zip(&values) {
            run["value"] = json!(value);
        }
        report["lock"] = json!("../../pack.lock.json");
        let (day, hour) = (i / 24, i % 24);
        let when = format!("2026-{:02}-{:02}T{hour:02}", 1 + day / 28, 1 + day % 28);
        report["started"] = json!(format!("{when}:00:00Z"));
        report["ended"] = json!(format!("{when}:05:00Z"));
        report["format-version"] = json!(3);
        let inputs = report["inputs"].as_object_mut().unwrap();
        inputs.remove("source");
        inputs.remove("lock");
        inputs.remove("times");
        report.as_object_mut().unwrap().remove("run-id");
        report["source"] = json!({
            "kind": "device",
            "serial": "FMR0223C13000649",
            "model": "ALN-AL00",
            "software-version": "ALN-AL00 5.0.0.22(SP35DEVC00E22R4P1log)"
        });
        let folder = dir.join(format!("runs/run-{i:02}"));
        fs::create_dir_all(&folder).unwrap();
        fs::write(
            folder.join("audit-1.json"),
            serde_json::to_string_pretty(&report).unwrap(),
        )
        .unwrap();
    }
}

/// `dwpipe history --history H --json ARGS`: its points, or with `--changes` its shifts.
#[track_caller]
fn history_json<T: serde::de::DeserializeOwned>(dir: &Path, h: &str, args: &[&str]) -> T {
    let stdout = Test::new(dir)
        .args(["history", "--history", h, "--json"])
        .args(args)
        .run()
        .stdout;
    parse(&stdout)
}

#[test]
fn imported_runs_are_queried_back_and_the_planted_change_is_found() {
    each_store(|store| {
        let h = store.arg();
        let dir = frozen_fixture("packs/cold-start.yaml");
        runs(dir.path(), 20, 13);
        let stdout = Test::new(dir.path())
            .args(["history", "--history", h, "import", "runs"])
            .run()
            .stdout;
        // Reports without their evidence (these are planted): each re-gated from its own
        // readings, which agree with it, and counted as unverified.
        assert!(
            stdout.contains("imported 20 audit(s) (20 without their evidence")
                && stdout.contains("and 0 comparison(s)"),
            "{stdout}"
        );
        // Importing again records nothing twice.
        let Ran { stdout, .. } = Test::new(dir.path())
            .args(["history", "--history", h, "import", "runs"])
            .status(0)
            .run();
        assert!(
            stdout.contains("imported 0 audit(s)") && stdout.contains("20 already there"),
            "{stdout}"
        );

        let series: SeriesOutput = history_json(
            dir.path(),
            h,
            &["--criterion", "P-01", "--device-model", "ALN-AL00"],
        );
        let points = &series.points;
        assert_eq!(points.len(), 20);
        assert!(points[0].report.ends_with("run-01/audit-1.json"));
        assert_eq!(points[0].app, "com.example.notes");
        assert_eq!(points[0].runs.len(), 10);
        assert!(!points[0].replay);
        let none: SeriesOutput = history_json(dir.path(), h, &["--device-model", "NOH-AL00"]);
        assert!(none.points.is_empty(), "{none:?}");
        let later: SeriesOutput = history_json(dir.path(), h, &["--since", "2999-01-01"]);
        assert!(later.points.is_empty(), "{later:?}");

        let found: ShiftsOutput = history_json(dir.path(), h, &["--changes"]);
        let changes = &found.changes;
        assert_eq!(changes.len(), 1, "{found:?}");
        assert!(
            changes[0].report.ends_with("run-13/audit-1.json"),
            "{found:?}"
        );
        let (before, after) = (changes[0].before, changes[0].after);
        assert!(
            (before - 700.0).abs() < 5.0 && (after - 770.0).abs() < 5.0,
            "{found:?}"
        );
        assert!(changes[0].p <= 0.05);
        assert_eq!(found.window, Some(5000), "{found:?}");
        assert_eq!(found.series[0].searched, 20, "{found:?}");
        // A narrower window searches the latest audits only, and says so.
        let narrow: ShiftsOutput = history_json(dir.path(), h, &["--changes", "--window", "12"]);
        assert_eq!(narrow.series[0].audits, 20, "{narrow:?}");
        assert_eq!(narrow.series[0].searched, 12, "{narrow:?}");
        assert_eq!(narrow.changes.len(), 1, "{narrow:?}");
        let stdout = Test::new(dir.path())
            .args(["history", "--history", h, "--changes", "--window", "12"])
            .run()
            .stdout;
        assert!(
            stdout.contains("the latest 12 audits of each series")
                && stdout
                    .contains("searched the latest 12 of 20 audits, since 2026-01-01T09:00:00Z"),
            "{stdout}"
        );
        Test::new(dir.path())
            .args(["history", "--history", h, "--window", "3"])
            .status(2)
            .run();

        // Planted reports, taken at their readings' word, are never a baseline (the last
        // passing audit whose verdict dwpipe reached is: the_candidate_is_never_its_own_baseline).
        let Ran { stdout, .. } = Test::new(dir.path())
            .args([
                "compare",
                "--against",
                "last-pass",
                "runs/run-20/audit-1.json",
                "--history",
                h,
                "--out",
                "cmp",
                "--json",
            ])
            .status(2)
            .run();
        assert!(stdout.contains("E_HISTORY_NO_BASELINE"), "{stdout}");
        // A comparison given both audits (each rebuilt from its evidence: planted reports
        // have none, and are refused) is recorded in the history it was given.
        Test::new(dir.path())
            .args([
                "compare",
                "runs/run-19/audit-1.json",
                "runs/run-20/audit-1.json",
            ])
            .args(["--history", h, "--out", "cmp"])
            .status(2)
            .stderr_contains("E_COMPARE_UNVERIFIED")
            .run();
        replay_audit_into(dir.path(), &repo("device-fixtures/regress-same"), "same")
            .status(0)
            .run();
        Test::new(dir.path())
            .args(["compare", "out/audit-1.json", "same/audit-1.json"])
            .args(["--history", h, "--out", "cmp"])
            .stdout_contains("compare: SAME")
            .run();
        assert_eq!(
            store.count(dir.path(), "SELECT count(*) FROM comparisons"),
            1
        );

        // An audit recorded now draws its criterion's trend, the change marked.
        let capture = repo("device-fixtures/regress-slower");
        Test::new(dir.path())
            .args([
                "audit",
                "--pack",
                "pack.lock.json",
                "--replay",
                capture.to_str().unwrap(),
                "--out",
                "now",
                "--history",
                h,
            ])
            .run();
        let page = fs::read_to_string(dir.path().join("now/report.html")).unwrap();
        assert!(page.contains("Trend of P-01"), "no trend drawn");
        assert!(
            page.contains("Trend of P-01 on FMR0223C13000649")
                && page.contains("21 audits of this device in the history"),
            "the history and this audit"
        );
        assert!(page.contains("changed from"), "the change point is marked");
    });
}

#[test]
fn a_replay_is_never_a_baseline() {
    each_store(|store| {
        let h = store.arg();
        let dir = frozen_fixture("packs/cold-start.yaml");
        seed(dir.path());
        Test::new(dir.path())
            .args(["history", "--history", h, "import", "out"])
            .run();
        let capture = repo("device-fixtures/regress-slower");
        replay_audit_into(dir.path(), &capture, "cand").run();
        Test::new(dir.path())
            .args([
                "compare",
                "--against",
                "last-pass",
                "cand/audit-1.json",
                "--history",
                h,
            ])
            .status(2)
            .stderr_contains("E_HISTORY_NO_BASELINE")
            .stderr_contains("replays never count")
            .run();
    });
}

#[test]
fn a_history_from_a_newer_dwpipe_is_refused_with_a_fix() {
    let dir = tempfile::tempdir().unwrap();
    let conn = rusqlite::Connection::open(dir.path().join("h.sqlite")).unwrap();
    conn.pragma_update(None, "user_version", 99).unwrap();
    drop(conn);
    Test::new(dir.path())
        .args(["history", "--history", "h.sqlite"])
        .status(3)
        .stderr_contains("E_HISTORY_NEWER")
        .stderr_contains("schema version 99")
        .run();
    Test::new(dir.path())
        .args(["history", "--history", "missing.sqlite"])
        .status(2)
        .stderr_contains("there is no history")
        .run();
}

#[test]
fn a_killed_import_leaves_whole_runs_only() {
    let dir = frozen_fixture("packs/cold-start.yaml");
    runs(dir.path(), 400, 200);
    let mut child = crate::support::dwpipe_command()
        .args(["history", "--history", "h.sqlite", "import", "runs"])
        .current_dir(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Killed (no chance to clean up) once it is writing.
    let deadline = Instant::now() + Duration::from_secs(30);
    while !dir.path().join("h.sqlite-wal").exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(1));
    }
    std::thread::sleep(Duration::from_millis(30));
    child.kill().unwrap();
    child.wait().unwrap();
    let conn = rusqlite::Connection::open(dir.path().join("h.sqlite")).unwrap();
    let integrity: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(integrity, "ok");
    // Every run recorded has its measurement and all ten samples; nothing half a run.
    let partial: i64 = conn
        .query_row(
            "SELECT count(*) FROM runs r WHERE (SELECT count(*) FROM measurements m WHERE m.run_id = r.id) != 1 \
             OR (SELECT count(*) FROM samples s WHERE s.run_id = r.id) != 10",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(partial, 0);
    let recorded: i64 = conn
        .query_row("SELECT count(*) FROM runs", [], |r| r.get(0))
        .unwrap();
    eprintln!("{recorded} of 400 runs were recorded when the import was killed");
    drop(conn);
    // The import, run again, records the rest.
    let stdout = Test::new(dir.path())
        .args(["history", "--history", "h.sqlite", "import", "runs"])
        .run()
        .stdout;
    assert!(
        stdout.contains(&format!("imported {} audit(s)", 400 - recorded)),
        "{recorded} before: {stdout}"
    );
}

/// A baseline is never the candidate: a copy of the candidate already in the history (moved
/// to another folder, re-serialized), or another report of its run, is not taken as its own
/// baseline; compared with itself explicitly, it is refused.
#[test]
fn the_candidate_is_never_its_own_baseline() {
    each_store(|store| {
        let h = store.arg();
        let dir = frozen_fixture("packs/cold-start.yaml");
        // Three audits made on a device (a baseline is never a report taken at its word), on
        // phones of one model: one phone's audits begun in one second would be one run.
        for run in 1..=3 {
            crate::support::live_audit(
                dir.path(),
                "regress-base",
                &format!("PHONE-B{run}"),
                &format!("runs/run-0{run}"),
            );
        }
        // A copy of run 3 with its evidence, re-serialized compactly into another folder,
        // recorded first.
        crate::support::copy_tree(
            &dir.path().join("runs/run-03"),
            &dir.path().join("copy/run-03"),
        );
        let run3: Value =
            serde_json::from_slice(&fs::read(dir.path().join("runs/run-03/audit-1.json")).unwrap())
                .unwrap();
        fs::write(
            dir.path().join("copy/run-03/audit-1.json"),
            run3.to_string(),
        )
        .unwrap();
        let stdout = Test::new(dir.path())
            .args(["history", "--history", h, "import", "copy", "runs"])
            .run()
            .stdout;
        assert!(
            stdout.contains("imported 3 audit(s)") && stdout.contains("1 already there"),
            "the copy and the original are one audit: {stdout}"
        );
        // Its baseline is run 2, not the copy of itself.
        let stdout = Test::new(dir.path())
            .args([
                "compare",
                "--against",
                "last-pass",
                "runs/run-03/audit-1.json",
                "--history",
                h,
                "--out",
                "cmp",
                "--json",
            ])
            .run()
            .stdout;
        let comparison: Comparison = parse(&stdout);
        assert!(
            comparison.baseline.report.ends_with("run-02/audit-1.json"),
            "{comparison:?}"
        );
        Test::new(dir.path())
            .args([
                "compare",
                "copy/run-03/audit-1.json",
                "runs/run-03/audit-1.json",
                "--out",
                "self",
            ])
            .status(2)
            .stderr_contains("E_COMPARE_SAME_AUDIT")
            .run();
    });
}

/// An import records what happened: each audit at the time it started, an A/B session's arms
/// as arms, every readable report whatever one of them is; it says which were not recorded
/// and why, and leaves no empty history behind when nothing was.
#[test]
fn an_import_records_what_happened_and_says_what_it_could_not() {
    let dir = frozen_fixture("packs/cold-start.yaml");
    runs(dir.path(), 3, 99);
    fs::write(
        dir.path().join("runs/run-02/audit-1.json"),
        "{\"checks\": [",
    )
    .unwrap();
    let run = Test::new(dir.path())
        .args(["history", "--history", "h.sqlite", "import", "runs"])
        .status(2)
        .stderr_contains("not imported: runs/run-02/audit-1.json")
        .run();
    assert!(
        run.stdout.contains("imported 2 audit(s)") && run.stdout.contains("1 not imported"),
        "{}",
        run.stdout
    );
    let series: SeriesOutput = history_json(dir.path(), "h.sqlite", &[]);
    let times: Vec<&str> = series
        .points
        .iter()
        .map(|p| p.recorded_at.as_str())
        .collect();
    assert_eq!(
        times,
        ["2026-01-01T01:00:00Z", "2026-01-01T03:00:00Z"],
        "when each audit started"
    );
    // Nothing importable into a new history: no file is left to read as an empty history.
    fs::create_dir_all(dir.path().join("junk")).unwrap();
    fs::write(dir.path().join("junk/audit-1.json"), "not json").unwrap();
    Test::new(dir.path())
        .args(["history", "--history", "fresh.sqlite", "import", "junk"])
        .status(2)
        .run();
    assert!(!dir.path().join("fresh.sqlite").exists());
    Test::new(dir.path())
        .args(["history", "--history", "fresh.sqlite"])
        .status(2)
        .stderr_contains("there is no history")
        .run();
    // A history is a regular file: nothing is written beside a device.
    Test::new(dir.path())
        .args(["history", "--history", "/dev/null", "import", "runs"])
        .status(3)
        .stderr_contains("E_HISTORY_NOT_A_FILE")
        .run();
    assert!(!Path::new("/dev/null-journal").exists());
}

/// Any number of writers meeting a history that does not exist yet agree: the first creates
/// it, the others find it made, and no audit is lost (three rounds of sixteen processes, each
/// round a new history; on PostgreSQL a new database).
#[test]
fn sixteen_first_writers_lose_no_audit() {
    let dir = frozen_fixture("packs/cold-start.yaml");
    runs(dir.path(), 16, 99);
    for round in 0..3 {
        each_store(|store| {
            // A folder of its own: a new SQLite file each round.
            let here = dir.path().join(format!("round-{round}"));
            fs::create_dir_all(&here).unwrap();
            let writers: Vec<_> = (1..=16)
                .map(|i| {
                    crate::support::dwpipe_command()
                        .args(["history", "--history", store.arg(), "import"])
                        .arg(format!("../runs/run-{i:02}"))
                        .current_dir(&here)
                        .env("PGPASSFILE", crate::support::pg::pgpass())
                        .stdout(Stdio::null())
                        .stderr(Stdio::piped())
                        .spawn()
                        .unwrap()
                })
                .collect();
            for writer in writers {
                let output = writer.wait_with_output().unwrap();
                assert!(
                    output.status.success(),
                    "round {round}: {}",
                    String::from_utf8_lossy(&output.stderr)
                );
            }
            assert_eq!(
                store.count(&here, "SELECT count(*) FROM runs"),
                16,
                "round {round}"
            );
        });
    }
}

/// An A/B session's folder is imported with its arms: each arm's audit is recorded as the
/// arm it was, and the comparison of them beside.
#[test]
fn an_ab_session_is_imported_with_its_arms() {
    let dir = frozen_fixture("packs/cold-start.yaml");
    let phone = repo("device-fixtures/ab-phone-1").display().to_string();
    let hdc = crate::support::fake_hdc(dir.path(), "hdc", &[phone], "");
    let hap = |v: &str| {
        repo(&format!("device-fixtures/haps/notes-{v}.hap"))
            .display()
            .to_string()
    };
    let playbooks = crate::support::no_sleeps(dir.path());
    Test::new(dir.path())
        .args([
            "--hdc",
            hdc.to_str().unwrap(),
            "audit",
            "--device",
            "AB0PHONE01",
            "--pack",
            "pack.lock.json",
            "--baseline-hap",
            &hap("1.0"),
            "--candidate-hap",
            &hap("1.1"),
            "--runs",
            "4",
            "--max-runs",
            "4",
            "--playbooks",
            &playbooks,
            "--out",
            "ab",
        ])
        .run();
    let stdout = Test::new(dir.path())
        .args(["history", "--history", "h.sqlite", "import", "ab"])
        .run()
        .stdout;
    assert!(
        stdout.contains("imported 2 audit(s) and 1 comparison(s)"),
        "{stdout}"
    );
    let series: SeriesOutput = history_json(dir.path(), "h.sqlite", &[]);
    let arms: Vec<(&str, &str)> = series
        .points
        .iter()
        .map(|p| {
            let folder = Path::new(&p.report).parent().unwrap().file_name().unwrap();
            (folder.to_str().unwrap(), p.arm.as_deref().unwrap_or("none"))
        })
        .collect();
    assert!(arms.contains(&("baseline", "baseline")), "{arms:?}");
    assert!(arms.contains(&("candidate", "candidate")), "{arms:?}");
}

/// What an imported report said is data: a criterion id with a newline and a model with
/// escape bytes are shown escaped, each on its row of the table, never as lines of their own.
#[test]
fn an_imported_newline_or_escape_stays_in_its_cell() {
    let dir = frozen_fixture("packs/cold-start.yaml");
    runs(dir.path(), 2, 99);
    // A model with escape bytes is the device's to say: recorded, and shown escaped.
    let path = dir.path().join("runs/run-01/audit-1.json");
    let mut report: Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    report["device"]["model"] = json!("ALN\u{1b}[2J\u{7}");
    fs::write(&path, serde_json::to_string(&report).unwrap()).unwrap();
    // A criterion the pack does not have is no reading of it: refused, and named on one line.
    let path = dir.path().join("runs/run-02/audit-1.json");
    let mut report: Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    report["checks"][0]["criterionId"] = json!("P-01\nINJECTED line");
    report["checks"][0]["measurements"][0]["criterion-id"] = json!("P-01\nINJECTED line");
    fs::write(&path, serde_json::to_string(&report).unwrap()).unwrap();
    let refused = Test::new(dir.path())
        .args(["history", "--history", "h.sqlite", "import", "runs"])
        .status(2)
        .stderr_contains("not imported: runs/run-02/audit-1.json")
        .run();
    assert!(
        !refused.stderr.lines().any(|l| l.starts_with("INJECTED")),
        "{}",
        refused.stderr
    );
    let stdout = Test::new(dir.path())
        .args(["history", "--history", "h.sqlite"])
        .run()
        .stdout;
    assert!(
        !stdout.lines().any(|l| l.starts_with("INJECTED")),
        "{stdout}"
    );
    assert!(!stdout.contains("INJECTED"), "{stdout}");
    assert!(stdout.contains("ALN\\u{1b}[2J\\u{7}"), "{stdout}");
    assert_eq!(
        stdout.lines().count(),
        3,
        "a heading, one point, the count: {stdout}"
    );
}

/// `history prune` keeps what is asked and the last-pass baseline: the latest N audits of each
/// series, then by age; every audit's measurements and runs' values go with it.
#[test]
fn prune_keeps_the_latest_of_each_series_and_the_baseline() {
    each_store(|store| {
        let h = store.arg();
        let dir = frozen_fixture("packs/cold-start.yaml");
        runs(dir.path(), 20, 99);
        // The one audit whose verdict dwpipe reached itself (made on a device, rebuilt from its
        // evidence at its import), dated between runs 19 and 20: the only baseline.
        let live = crate::support::live_audit(dir.path(), "regress-base", "PHONE-B", "live");
        crate::support::redate(&live, "2026-01-01T19:30:00Z");
        Test::new(dir.path())
            .args(["history", "--history", h, "import", "runs", "live"])
            .stdout_contains("imported 21 audit(s) (20 without their evidence")
            .run();
        Test::new(dir.path())
            .args(["history", "--history", h, "prune"])
            .status(2)
            .run();
        Test::new(dir.path())
            .args(["history", "--history", h, "prune", "--keep-last", "5"])
            .stdout_contains("pruned 16 audit(s) and 0 comparison(s)")
            .stdout_contains("5 audit(s) kept")
            .run();
        let left: SeriesOutput = history_json(dir.path(), h, &[]);
        let reports: Vec<&str> = left.points.iter().map(|p| p.report.as_str()).collect();
        assert_eq!(reports.len(), 5);
        assert!(reports[0].ends_with("run-17/audit-1.json"), "{reports:?}");
        assert!(reports[3].ends_with("live/audit-1.json"), "{reports:?}");
        assert_eq!(
            store.count(dir.path(), "SELECT count(*) FROM samples"),
            5 * 10
        );
        // Everything is older than a day; the latest passing audit whose verdict dwpipe reached
        // stays, the baseline.
        Test::new(dir.path())
            .args(["history", "--history", h, "prune", "--older-than", "1d"])
            .stdout_contains("pruned 4 audit(s)")
            .stdout_contains("1 audit(s) kept")
            .run();
        assert_eq!(
            store.count(dir.path(), "SELECT count(*) FROM measurements"),
            1
        );
        // The baseline kept is compared with a candidate measured since (on the same phone).
        let candidate = crate::support::live_audit(dir.path(), "regress-same", "PHONE-B", "again");
        Test::new(dir.path())
            .args(["compare", "--against", "last-pass"])
            .args([candidate.to_str().unwrap()])
            .args(["--history", h, "--out", "cmp"])
            .stderr_contains("baseline: ")
            .stderr_contains("live/audit-1.json")
            .run();
    });
}
