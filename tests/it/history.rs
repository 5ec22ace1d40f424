//! The history through the real binary: runs made elsewhere imported and queried back, the
//! change point found at the run where the series was planted to shift, the last passing audit
//! on a device taken as a baseline (never a replay), the trend drawn on an audit's page, a
//! database from a newer dwpipe refused, and a killed import leaving no partial run.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{Test, dwpipe, frozen_fixture, replay_audit};
use serde_json::{Value, json};

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// A replayed audit of regress-base in `dir/out/`, as a template for the runs written below.
fn seed(dir: &Path) -> Value {
    let (code, _, stderr) = replay_audit(dir, &repo("device-fixtures/regress-base"));
    assert_eq!(code, 0, "{stderr}");
    serde_json::from_str(&fs::read_to_string(dir.join("out/audit-1.json")).unwrap()).unwrap()
}

/// `count` audits made on a device, `runs/run-NN/audit-1.json`: cold starts around 700 ms,
/// around 770 ms from run `shift` on (a deterministic wobble of ±6 ms, and a thousandth of a
/// millisecond per run so that no two reports are the same bytes).
fn runs(dir: &Path, count: usize, shift: usize) {
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

fn history_json(dir: &Path, args: &[&str]) -> Value {
    let mut all = vec!["history", "--history", "h.sqlite", "--json"];
    all.extend(args);
    let stdout = Test::new(dir).args(&all).run().stdout;
    serde_json::from_str(&stdout).unwrap()
}

#[test]
fn imported_runs_are_queried_back_and_the_planted_change_is_found() {
    let dir = frozen_fixture("packs/cold-start.yaml");
    runs(dir.path(), 20, 13);
    let stdout = Test::new(dir.path())
        .args(["history", "--history", "h.sqlite", "import", "runs"])
        .run()
        .stdout;
    assert!(
        stdout.contains("imported 20 audit(s) and 0 comparison(s)"),
        "{stdout}"
    );
    // Importing again records nothing twice.
    let (_, stdout, _) = dwpipe(
        dir.path(),
        &["history", "--history", "h.sqlite", "import", "runs"],
    );
    assert!(
        stdout.contains("imported 0 audit(s)") && stdout.contains("20 already there"),
        "{stdout}"
    );

    let series = history_json(
        dir.path(),
        &["--criterion", "P-01", "--device-model", "ALN-AL00"],
    );
    let points = series["points"].as_array().unwrap();
    assert_eq!(points.len(), 20);
    assert!(
        points[0]["report"]
            .as_str()
            .unwrap()
            .ends_with("run-01/audit-1.json")
    );
    assert_eq!(points[0]["app"], "com.example.notes");
    assert_eq!(points[0]["runs"].as_array().unwrap().len(), 10);
    assert_eq!(points[0]["replay"], false);
    let none = history_json(dir.path(), &["--device-model", "NOH-AL00"]);
    assert_eq!(none["points"], json!([]));
    let later = history_json(dir.path(), &["--since", "2999-01-01"]);
    assert_eq!(later["points"], json!([]));

    let found = history_json(dir.path(), &["--changes"]);
    let changes = found["changes"].as_array().unwrap();
    assert_eq!(changes.len(), 1, "{found}");
    assert!(
        changes[0]["report"]
            .as_str()
            .unwrap()
            .ends_with("run-13/audit-1.json"),
        "{found}"
    );
    let (before, after) = (
        changes[0]["before"].as_f64().unwrap(),
        changes[0]["after"].as_f64().unwrap(),
    );
    assert!(
        (before - 700.0).abs() < 5.0 && (after - 770.0).abs() < 5.0,
        "{found}"
    );
    assert!(changes[0]["p"].as_f64().unwrap() <= 0.05);

    // The last passing audit on a device is the baseline; the candidate is not its own.
    let (code, stdout, stderr) = dwpipe(
        dir.path(),
        &[
            "compare",
            "--against",
            "last-pass",
            "runs/run-20/audit-1.json",
            "--history",
            "h.sqlite",
            "--out",
            "cmp",
            "--json",
        ],
    );
    assert!(code == 0 || code == 1, "{stderr}");
    let comparison: Value = serde_json::from_str(&stdout).unwrap();
    assert!(
        comparison["baseline"]["report"]
            .as_str()
            .unwrap()
            .ends_with("run-19/audit-1.json"),
        "{comparison}"
    );
    // ... and recorded in the history it came from.
    let conn = rusqlite::Connection::open(dir.path().join("h.sqlite")).unwrap();
    let compared: i64 = conn
        .query_row("SELECT count(*) FROM comparisons", [], |r| r.get(0))
        .unwrap();
    assert_eq!(compared, 1);

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
            "h.sqlite",
        ])
        .run();
    let page = fs::read_to_string(dir.path().join("now/report.html")).unwrap();
    assert!(page.contains("Trend of P-01"), "no trend drawn");
    assert!(
        page.contains("21 audit(s) of this device model"),
        "the history and this audit"
    );
    assert!(page.contains("changed from"), "the change point is marked");
}

#[test]
fn a_replay_is_never_a_baseline() {
    let dir = frozen_fixture("packs/cold-start.yaml");
    seed(dir.path());
    Test::new(dir.path())
        .args(["history", "--history", "h.sqlite", "import", "out"])
        .run();
    let capture = repo("device-fixtures/regress-slower");
    dwpipe(
        dir.path(),
        &[
            "audit",
            "--pack",
            "pack.lock.json",
            "--replay",
            capture.to_str().unwrap(),
            "--out",
            "cand",
        ],
    );
    Test::new(dir.path())
        .args([
            "compare",
            "--against",
            "last-pass",
            "cand/audit-1.json",
            "--history",
            "h.sqlite",
        ])
        .status(2)
        .stderr_contains("E_HISTORY_NO_BASELINE")
        .stderr_contains("replays never count")
        .run();
}

#[test]
fn a_history_from_a_newer_dwpipe_is_refused_with_a_fix() {
    let dir = tempfile::tempdir().unwrap();
    let conn = rusqlite::Connection::open(dir.path().join("h.sqlite")).unwrap();
    conn.pragma_update(None, "user_version", 99).unwrap();
    drop(conn);
    Test::new(dir.path())
        .args(["history", "--history", "h.sqlite"])
        .status(2)
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
    let mut child = Command::new(env!("CARGO_BIN_EXE_dwpipe"))
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
