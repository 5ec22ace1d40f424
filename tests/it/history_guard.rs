//! The history never costs an audit, through the real binary: a corrupted or a read-only
//! history is refused before the device is touched (exit 3, nothing measured, nothing
//! installed), and a history locked by another writer for the whole run leaves every audit,
//! lab and A/B session whole, each report form saying what was not recorded (exit 3) —
//! `deliver.json` too.

use dwpipe::schema::{
    AbRecord, AuditReport, DeliverReport, DeviceVerdict, LabReport, LabVerdict, Regression,
    TerminalReason,
};
use std::fs;
use std::path::{Path, PathBuf};

use crate::support::delivery::{FIXING_AGENT, SPACING, project};
use crate::support::{
    Ran, Test, device, fake_hdc, frozen_example, frozen_fixture, no_sleeps, root,
};

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// How the history is broken.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Broken {
    /// Bytes that are not a database.
    Corrupted,
    /// A database this user may read but not write.
    ReadOnly,
    /// A database another writer holds the write lock of.
    Locked,
}

/// The audit shapes, each in a folder of its own.
#[derive(Clone, Copy, Debug)]
enum Shape {
    /// One device.
    Audit,
    /// Two devices.
    Lab,
    /// One device's A/B session.
    Ab,
    /// A delivery audited on a capture.
    Deliver,
}

/// `dwpipe args` in `dir`, which ends on the environment's exit code; with `unprivileged`, as a
/// user other than root when the test runs as root (so that a read-only file is read-only to
/// it).
#[track_caller]
fn guarded(dir: &Path, args: &[String], unprivileged: bool) -> Ran {
    let test = Test::new(dir).args(args).status(3);
    if !unprivileged || !root() {
        return test.run();
    }
    // The folders it works in are its to write; the files root wrote are not.
    for folder in folders(dir) {
        let mut open = fs::metadata(&folder).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut open, 0o777);
        fs::set_permissions(&folder, open).unwrap();
    }
    test.unprivileged().run()
}

/// `dir` and every folder under it.
#[track_caller]
fn folders(dir: &Path) -> Vec<PathBuf> {
    let mut all = vec![dir.to_owned()];
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() && !path.is_symlink() {
            all.extend(folders(&path));
        }
    }
    all
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| (*a).to_owned()).collect()
}

/// A folder ready for `shape`, its history at `history` (relative to the folder) holding
/// one replayed audit, and the arguments of the run.
#[track_caller]
fn prepared(shape: Shape) -> (tempfile::TempDir, &'static str, Vec<String>) {
    let (dir, history) = match shape {
        Shape::Deliver => (
            project(FIXING_AGENT, SPACING, "notes-pass", ""),
            ".dwpipe/history.sqlite",
        ),
        Shape::Ab => (frozen_fixture("packs/cold-start.yaml"), "h.sqlite"),
        Shape::Audit | Shape::Lab => (frozen_example(), "h.sqlite"),
    };
    let path = dir.path();
    // The history exists at the current schema, with one audit in it.
    let (seed_pack, seed_capture) = match shape {
        Shape::Deliver => {
            Test::new(path)
                .args(["freeze", "pack.yaml"])
                .status(0)
                .run();
            ("pack.lock.json", "device-fixtures/notes-pass")
        }
        Shape::Ab => ("pack.lock.json", "device-fixtures/regress-base"),
        Shape::Audit | Shape::Lab => ("pack.lock.json", "device-fixtures/notes-pass"),
    };
    let capture = repo(seed_capture).display().to_string();
    Test::new(path)
        .args([
            "audit",
            "--pack",
            seed_pack,
            "--replay",
            &capture,
            "--out",
            "seed",
            "--history",
            history,
        ])
        .status(0)
        .run();
    let args = match shape {
        Shape::Deliver => strings(&["deliver", "--pack", "pack.yaml", "--json"]),
        Shape::Audit | Shape::Lab => {
            let serials: &[&str] = match shape {
                Shape::Audit => &["DEV01"],
                _ => &["LAB01", "LAB02"],
            };
            let captures: Vec<String> = serials
                .iter()
                .map(|s| device(path, "notes-pass", s, false))
                .collect();
            let hdc = fake_hdc(path, "hdc", &captures, "");
            let mut args = strings(&["--hdc", hdc.to_str().unwrap(), "audit"]);
            match shape {
                Shape::Audit => args.extend(strings(&["--device", "DEV01"])),
                _ => args.extend(strings(&["--devices", "all"])),
            }
            args.extend(strings(&[
                "--pack",
                "pack.lock.json",
                "--playbooks",
                &no_sleeps(path),
                "--out",
                "out",
                "--history",
                history,
            ]));
            args
        }
        Shape::Ab => {
            let phone = repo("device-fixtures/ab-phone-1").display().to_string();
            let hdc = fake_hdc(path, "hdc", &[phone], "");
            let hap = |v: &str| {
                repo(&format!("device-fixtures/haps/notes-{v}.hap"))
                    .display()
                    .to_string()
            };
            strings(&[
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
                "8",
                "--max-runs",
                "8",
                "--playbooks",
                &no_sleeps(path),
                "--out",
                "out",
                "--history",
                history,
            ])
        }
    };
    (dir, history, args)
}

/// Breaks the history at `path`; for a lock, the connection that holds it.
fn break_history(path: &Path, broken: Broken) -> Option<rusqlite::Connection> {
    match broken {
        Broken::Corrupted => {
            fs::write(path, "this is not a database\n".repeat(400)).unwrap();
            None
        }
        Broken::ReadOnly => {
            for file in [
                path.to_owned(),
                PathBuf::from(format!("{}-wal", path.display())),
            ] {
                if let Ok(meta) = fs::metadata(&file) {
                    let mut read_only = meta.permissions();
                    read_only.set_readonly(true);
                    fs::set_permissions(&file, read_only).unwrap();
                }
            }
            None
        }
        Broken::Locked => {
            let conn = rusqlite::Connection::open(path).unwrap();
            conn.execute_batch("BEGIN IMMEDIATE; UPDATE runs SET arm = arm;")
                .unwrap();
            Some(conn)
        }
    }
}

/// The audits the history holds.
fn recorded(path: &Path) -> i64 {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.query_row("SELECT count(*) FROM runs", [], |row| row.get(0))
        .unwrap()
}

/// Every file under `dir`, relative to it.
fn files(dir: &Path) -> Vec<String> {
    walk(dir)
        .iter()
        .map(|p| p.strip_prefix(dir).unwrap().display().to_string())
        .collect()
}

#[track_caller]
fn walk(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flat_map(|e| {
            let path = e.unwrap().path();
            if path.is_dir() {
                walk(&path)
            } else {
                vec![path]
            }
        })
        .collect()
}

/// A history that cannot be used is refused before anything is measured or installed.
#[track_caller]
fn refused(shape: Shape, broken: Broken) {
    let (dir, history, args) = prepared(shape);
    let path = dir.path();
    break_history(&path.join(history), broken);
    let ran = guarded(path, &args, broken == Broken::ReadOnly);
    let said = format!("{shape:?} {broken:?}: {}\n{}", ran.stdout, ran.stderr);
    let code = match broken {
        Broken::Corrupted => "E_HISTORY_OPEN",
        _ => "E_HISTORY_READ_ONLY",
    };
    assert!(
        ran.stderr.contains(code) || ran.stdout.contains(code),
        "{said}"
    );
    // Nothing measured, nothing installed, no report.
    let out = match shape {
        Shape::Deliver => path.join(".dwpipe/runs"),
        _ => path.join("out"),
    };
    assert_eq!(files(&out), Vec::<String>::new(), "{said}");
    assert_eq!(
        fs::read_to_string(path.join("state/AB0PHONE01.installed")).unwrap_or_default(),
        "",
        "{said}"
    );
    if broken == Broken::ReadOnly {
        assert_eq!(recorded(&path.join(history)), 1, "the history is as it was");
    }
}

#[test]
fn a_corrupted_history_is_refused_before_the_device_is_touched() {
    for shape in [Shape::Audit, Shape::Lab, Shape::Ab, Shape::Deliver] {
        refused(shape, Broken::Corrupted);
    }
}

#[test]
fn a_read_only_history_is_refused_before_the_device_is_touched() {
    for shape in [Shape::Audit, Shape::Lab, Shape::Ab, Shape::Deliver] {
        refused(shape, Broken::ReadOnly);
    }
}

/// Every shape at once against a history another writer holds for the whole run (each waits
/// the history's 30 s busy timeout): the audits stand, each form says what was not recorded,
/// and the exit code is the environment's.
#[test]
fn a_locked_history_costs_no_audit_and_every_form_says_what_was_not_recorded() {
    let runs: Vec<_> = [Shape::Audit, Shape::Lab, Shape::Ab, Shape::Deliver]
        .into_iter()
        .map(|shape| {
            std::thread::spawn(move || {
                let (dir, history, args) = prepared(shape);
                let lock = break_history(&dir.path().join(history), Broken::Locked);
                let ran = guarded(dir.path(), &args, false);
                drop(lock);
                (shape, dir, history, ran)
            })
        })
        .collect();
    for run in runs {
        let (shape, dir, history, ran) = run.join().unwrap();
        let path = dir.path();
        let said = format!("{shape:?}: {}\n{}", ran.stdout, ran.stderr);
        assert_eq!(
            recorded(&path.join(history)),
            1,
            "nothing half-recorded: {said}"
        );
        let read = |file: &str| {
            fs::read_to_string(path.join(file)).unwrap_or_else(|e| panic!("{file}: {e}\n{said}"))
        };
        match shape {
            Shape::Audit => {
                let report: AuditReport = crate::support::read(path.join("out/audit-1.json"));
                let why = report
                    .unrecorded
                    .as_deref()
                    .unwrap_or_else(|| panic!("{report:?}"));
                assert!(why.contains("could not be written"), "{why}");
                assert!(read("out/audit-1.md").contains("Not recorded in the history"));
                assert!(read("out/junit.xml").contains("not-recorded-in-history"));
                assert!(read("out/report.html").contains("not in the history"));
                assert!(ran.stderr.contains("not recorded in the history"), "{said}");
            }
            Shape::Lab => {
                let lab: LabReport = crate::support::read(path.join("out/lab.json"));
                assert_eq!(lab.verdict, LabVerdict::Incomplete, "{lab:?}");
                for device in &lab.devices {
                    assert_eq!(device.verdict, DeviceVerdict::Pass, "{lab:?}");
                    assert!(device.unrecorded.is_some(), "{lab:?}");
                }
                assert!(read("out/lab.md").contains("not recorded in the history"));
                assert!(read("out/lab.html").contains("not recorded in the history"));
                let lab02: AuditReport = crate::support::read(path.join("out/LAB02/audit-1.json"));
                assert!(lab02.unrecorded.is_some());
            }
            Shape::Ab => {
                let record: AbRecord = crate::support::read(path.join("out/ab.json"));
                assert_eq!(record.regression, Regression::Same, "{record:?}");
                let why = record
                    .unrecorded
                    .as_deref()
                    .unwrap_or_else(|| panic!("{record:?}"));
                assert!(
                    why.contains("baseline/audit-1.json, candidate/audit-1.json, compare.json"),
                    "{why}"
                );
                assert!(path.join("out/compare.json").is_file());
            }
            Shape::Deliver => {
                let summary: DeliverReport = serde_json::from_str(&ran.stdout).unwrap();
                assert_eq!(
                    summary.terminal_reason,
                    TerminalReason::EnvironmentError,
                    "{summary:?}"
                );
                let detail = format!("{summary:?}");
                assert!(
                    detail.contains("the history did not record the audit"),
                    "{summary:?}"
                );
            }
        }
    }
}
