//! The real binary, spawned: freeze, gate and init with their exit codes, and snapshots of
//! what users read. Every test works in its own temporary folder with relative paths, so the
//! snapshots hold no machine-specific path.

use std::fs;
use std::path::{Path, PathBuf};

use crate::support::{Ran, Said, Test, parse, read};
use dwpipe::gate::Verdict;
use dwpipe::pack::PackLock;
use dwpipe::schema::AuditReport;

const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/notes");

/// A temp folder holding the example pack and both example audits.
fn workspace() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    for name in [
        "pack.yaml",
        "auditor-report.json",
        "auditor-report-contradicts.json",
    ] {
        fs::copy(Path::new(EXAMPLE).join(name), dir.path().join(name)).unwrap();
    }
    let path = dir.path().to_owned();
    (dir, path)
}

/// `dwpipe gate` of an audit file against the lock in `dir`, expected to exit `status`.
#[track_caller]
fn gate(dir: &Path, audit: &str, status: i32) -> Ran {
    Test::new(dir)
        .args([
            "gate",
            "--pack",
            "pack.lock.json",
            "--audit",
            audit,
            "--out",
            ".",
        ])
        .status(status)
        .run()
}

fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

fn frozen_workspace() -> (tempfile::TempDir, PathBuf) {
    let (dir, path) = workspace();
    let _run = Test::new(&path)
        .args(["freeze", "pack.yaml"])
        .status(0)
        .run();
    (dir, path)
}

#[test]
fn freeze_writes_the_lock_and_the_spec() {
    let (_dir, path) = workspace();
    let run = Test::new(&path)
        .args(["freeze", "pack.yaml", "--out", "out"])
        .status(0)
        .run();
    let lock: PackLock = read(path.join("out/pack.lock.json"));
    assert_eq!(lock.format_version, 2);
    assert_eq!(lock.sha256.len(), 64);
    // The pack is kept as written, normalized: JSON, not a type.
    assert_eq!(lock.pack["criteria"].as_array().unwrap().len(), 9);
    assert_eq!(
        lock.pack["flows"]["open-note"][1],
        serde_json::json!({ "click": "id:note_item_1", "name": "open" }),
        "flows are kept in the lock as written"
    );
    insta::assert_snapshot!(
        "spec_md",
        fs::read_to_string(path.join("out/spec.md")).unwrap()
    );
    insta::assert_snapshot!("freeze_stdout", run.stdout);
}

#[test]
fn freeze_refuses_a_bad_pack_with_located_diagnostics_and_exit_2() {
    let (_dir, path) = workspace();
    let pack = fs::read_to_string(path.join("pack.yaml"))
        .unwrap()
        .replace(
            "matcher: lte\n      expected: 800",
            "matcher: lte\n      expectd: 800",
        )
        .replace("id: X-02", "id: X-01");
    fs::write(path.join("bad.yaml"), &pack).unwrap();
    let run = Test::new(&path)
        .args(["freeze", "bad.yaml"])
        .status(2)
        .run();
    assert!(
        !path.join("pack.lock.json").exists(),
        "nothing written on error"
    );
    insta::assert_snapshot!("freeze_unknown_key_stderr", run.stderr);

    let semantic = fs::read_to_string(path.join("pack.yaml"))
        .unwrap()
        .replace("id: X-02", "id: X-01")
        .replace("min: 11.5\n      max: 12.5", "min: 12.5\n      max: 11.5");
    fs::write(path.join("bad.yaml"), semantic).unwrap();
    let run = Test::new(&path)
        .args(["freeze", "bad.yaml"])
        .status(2)
        .run();
    insta::assert_snapshot!("freeze_semantic_stderr", run.stderr);

    let run = Test::new(&path)
        .args(["freeze", "bad.yaml", "--json"])
        .status(2)
        .run();
    let out: Said = parse(&run.stdout);
    assert_eq!(
        out.codes(),
        ["E_CRITERION_ASSERTION_INVALID", "E_PACK_DUPLICATE_ID"]
    );
    assert_eq!(
        out.diagnostics[1].location.as_ref().map(|l| l.line),
        Some(122),
        "the second X-01"
    );
}

#[test]
fn freeze_records_warnings_in_the_lock() {
    let (_dir, path) = workspace();
    let pack = fs::read_to_string(path.join("pack.yaml")).unwrap();
    let start = pack
        .find("    assertion:\n      matcher: gte\n      expected: 4.5")
        .unwrap();
    fs::write(path.join("warn.yaml"), &pack[..start]).unwrap();
    let run = Test::new(&path)
        .args(["freeze", "warn.yaml", "--json"])
        .status(0)
        .run();
    let out: Said = parse(&run.stdout);
    assert_eq!(out.codes()[0], "W_CRITERION_NO_ASSERTION");
    let lock: PackLock = read(path.join("pack.lock.json"));
    assert_eq!(lock.diagnostics[0].criterion_id.as_deref(), Some("X-02"));
}

#[test]
fn gate_passes_a_consistent_audit() {
    let (_dir, path) = frozen_workspace();
    let run = gate(&path, "auditor-report.json", 0);
    let report: AuditReport = read(path.join("audit-1.json"));
    assert_eq!(report.verdict, Verdict::Pass);
    assert!(path.join("audit-1.md").exists());
    insta::assert_snapshot!("gate_pass_stdout", run.stdout);
}

#[test]
fn gate_fails_a_contradicting_audit_and_numbers_its_reports() {
    let (_dir, path) = frozen_workspace();
    let args = [
        "gate",
        "--pack",
        "pack.lock.json",
        "--audit",
        "auditor-report-contradicts.json",
        "--out",
        ".",
    ];
    Test::new(&path).args(args).status(1).run();
    let run = Test::new(&path)
        .args([&args[..], &["--json"]].concat())
        .status(1)
        .run();
    let stdout: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let written: serde_json::Value = read_json(&path.join("audit-2.json"));
    assert_eq!(stdout, written, "--json prints the report it writes");
    assert_eq!(written["verdict"], "fail");
    for key in [
        "format-version",
        "pack-sha256",
        "verdict",
        "diagnostics",
        "checks",
    ] {
        assert!(written.get(key).is_some(), "contract key {key}");
    }
    for key in [
        "criterionId",
        "result",
        "actual",
        "assertionVerdict",
        "evidence",
    ] {
        assert!(written["checks"][0].get(key).is_some(), "check key {key}");
    }
    for key in ["code", "severity", "criterionId", "message"] {
        assert!(
            written["diagnostics"][0].get(key).is_some(),
            "diagnostic key {key}"
        );
    }
    let sha = written["pack-sha256"].as_str().unwrap().to_owned();
    insta::assert_snapshot!(
        "gate_contradiction_md",
        fs::read_to_string(path.join("audit-2.md"))
            .unwrap()
            .replace(&sha, "[sha256]")
    );
}

#[test]
fn gate_refuses_a_tampered_lock() {
    let (_dir, path) = frozen_workspace();
    let lock = fs::read_to_string(path.join("pack.lock.json")).unwrap();
    fs::write(
        path.join("pack.lock.json"),
        lock.replacen("\"expected\": 800", "\"expected\": 8000", 1),
    )
    .unwrap();
    let run = gate(&path, "auditor-report.json", 2);
    assert!(run.stderr.contains("E_LOCK_TAMPERED"), "{}", run.stderr);
    assert!(!path.join("audit-1.json").exists());
}

#[test]
fn gate_refuses_audits_that_are_not_audits() {
    let (_dir, path) = frozen_workspace();
    let rows = [
        ("not json at all", "E_AUDIT_INVALID"),
        ("", "E_AUDIT_INVALID"),
        ("[1, 2]", "E_AUDIT_INVALID"),
        (
            r#"{"checks": [{"criterionId": "P-01", "result": "passed"}]}"#,
            "E_AUDIT_INVALID",
        ),
        (
            r#"{"checks": [{"criterionId": "P-01", "result": "pass", "actaul": "1ms"}]}"#,
            "E_AUDIT_INVALID",
        ),
        (
            r#"{"pack-sha256": "00", "checks": []}"#,
            "E_AUDIT_PACK_MISMATCH",
        ),
        (r#"{"density": -3, "checks": []}"#, "E_AUDIT_INVALID"),
    ];
    for (text, code) in rows {
        fs::write(path.join("audit.json"), text).unwrap();
        let run = gate(&path, "audit.json", 2);
        assert!(run.stderr.contains(code), "{text}: {}", run.stderr);
    }
    let run = Test::new(&path)
        .args([
            "gate",
            "--pack",
            "pack.yaml",
            "--audit",
            "auditor-report.json",
        ])
        .status(2)
        .run();
    assert!(run.stderr.contains("E_LOCK_INVALID"), "{}", run.stderr);
}

#[test]
fn init_writes_a_pack_that_freezes_and_will_not_overwrite() {
    let dir = tempfile::tempdir().unwrap();
    let _run = Test::new(dir.path()).args(["init", "proj"]).status(0).run();
    assert!(dir.path().join("proj/dwpipe.yaml").is_file());
    let run = Test::new(dir.path())
        .args(["freeze", "proj/pack.yaml", "--out", "proj"])
        .status(0)
        .run();
    assert!(run.stderr.is_empty(), "no warnings: {}", run.stderr);
    let run = Test::new(dir.path()).args(["init", "proj"]).status(2).run();
    assert!(run.stderr.contains("E_INIT_EXISTS"));
    Test::new(dir.path())
        .args(["init", "proj", "--force"])
        .run();
}

#[test]
fn usage_errors_exit_2_and_help_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    Test::new(dir.path()).args(["frobnicate"]).status(2).run();
    Test::new(dir.path()).args(["freeze"]).status(2).run();
    let help = Test::new(dir.path()).args(["--help"]).status(0).run();
    assert!(help.stdout.contains("Exit codes"));
    let missing = Test::new(dir.path())
        .args(["freeze", "nope.yaml"])
        .status(2)
        .run();
    assert!(
        missing.stderr.contains("E_PACK_UNREADABLE"),
        "{}",
        missing.stderr
    );
}

/// The example pack frozen from `warn.yaml`, whose X-02 states a number without an assertion.
fn frozen_with_a_warning() -> (tempfile::TempDir, PathBuf) {
    let (dir, path) = workspace();
    let pack = fs::read_to_string(path.join("pack.yaml")).unwrap();
    let start = pack
        .find("    assertion:\n      matcher: gte\n      expected: 4.5")
        .unwrap();
    fs::write(path.join("warn.yaml"), &pack[..start]).unwrap();
    Test::new(&path).args(["freeze", "warn.yaml"]).run();
    (dir, path)
}

#[test]
fn a_lock_seals_its_warnings() {
    let (_dir, path) = frozen_with_a_warning();
    let text = fs::read_to_string(path.join("pack.lock.json")).unwrap();
    let lock: PackLock = parse(&text);
    assert!(
        lock.diagnostics[0].location.is_none(),
        "where it was frozen from is not sealed: {:?}",
        lock.diagnostics[0]
    );
    let message = &lock.diagnostics[0].message;
    let injected = text.replace(
        &serde_json::to_string(message).unwrap(),
        "\"<script>alert(1)</script>\"",
    );
    assert_ne!(injected, text);
    fs::write(path.join("pack.lock.json"), injected).unwrap();
    let run = gate(&path, "auditor-report.json", 2);
    assert!(run.stderr.contains("E_LOCK_TAMPERED"), "{}", run.stderr);
    let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/device-fixtures/notes-pass");
    let run = Test::new(&path)
        .args([
            "audit",
            "--pack",
            "pack.lock.json",
            "--replay",
            fixtures,
            "--out",
            "a",
        ])
        .status(2)
        .run();
    assert!(run.stderr.contains("E_LOCK_TAMPERED"), "{}", run.stderr);
}

#[test]
fn a_clean_pack_keeps_its_hash_across_lock_formats_and_new_optional_keys() {
    // The first release's example pack, frozen again by this dwpipe (which has lock format 2,
    // flows and more probe keys): the same hash, because absent optional keys leave the
    // canonical JSON as it was.
    let (_dir, path) = workspace();
    let first_release: PackLock = read(
        Path::new(EXAMPLE).join("../../tests/fixtures/runs/environment-error-v1/pack.lock.json"),
    );
    fs::write(
        path.join("first.json"),
        serde_json::to_string_pretty(&first_release.pack).unwrap(),
    )
    .unwrap();
    let _run = Test::new(&path)
        .args(["freeze", "first.json", "--json"])
        .status(0)
        .run();
    let now: PackLock = read(path.join("pack.lock.json"));
    assert_eq!((first_release.format_version, now.format_version), (1, 2));
    assert_eq!(now.sha256, first_release.sha256);
}

#[test]
fn a_format_1_lock_is_read_with_a_note_and_without_its_unsealed_warnings() {
    let (_dir, path) = workspace();
    let mut lock: serde_json::Value = read_json(
        &Path::new(EXAMPLE).join("../../tests/fixtures/runs/environment-error-v1/pack.lock.json"),
    );
    // Format 1 never sealed its warnings, so this still hashes right.
    lock["diagnostics"] = serde_json::json!([{
        "severity": "warning",
        "code": "W_INJECTED",
        "message": "<script>alert(1)</script>"
    }]);
    fs::write(path.join("pack.lock.json"), lock.to_string()).unwrap();
    // The first release's pack had no P-03 or P-04: the auditor checks what it had.
    let mut report: serde_json::Value = read_json(&path.join("auditor-report.json"));
    report["checks"]
        .as_array_mut()
        .unwrap()
        .retain(|c| c["criterionId"] != "P-03" && c["criterionId"] != "P-04");
    fs::write(path.join("auditor-report-v1.json"), report.to_string()).unwrap();
    let run = gate(&path, "auditor-report-v1.json", 0);
    assert!(run.stderr.contains("W_LOCK_FORMAT_1"), "{}", run.stderr);
    assert!(
        run.stderr.contains("freeze the pack again"),
        "{}",
        run.stderr
    );
    for name in ["audit-1.json", "audit-1.md"] {
        let written = fs::read_to_string(path.join(name)).unwrap();
        assert!(!written.contains("<script>"), "{name}");
    }
}

#[test]
fn the_probe_reference_comes_from_the_catalog() {
    let dir = tempfile::tempdir().unwrap();
    let run = Test::new(dir.path()).args(["probes"]).status(0).run();
    insta::assert_snapshot!("probes_stdout", run.stdout);
    let json: serde_json::Value = serde_json::from_str(
        &Test::new(dir.path())
            .args(["probes", "--json"])
            .run()
            .stdout,
    )
    .unwrap();
    let ids: Vec<&str> = json["probes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    let catalog: Vec<&str> = dwpipe::pack::CATALOG
        .iter()
        .map(dwpipe::pack::ProbeKind::id)
        .collect();
    assert_eq!(ids, catalog, "every probe of the catalog, in its order");
    let frames = &json["probes"][1];
    assert_eq!(
        frames["units"][4],
        serde_json::json!({ "metric": "jank", "unit": "ms/s" })
    );
    // Completions come from the same definitions as --help.
    let bash = Test::new(dir.path())
        .args(["completions", "bash"])
        .status(0)
        .run();
    assert!(bash.stdout.contains("verify-evidence") && bash.stdout.contains("--baseline-hap"));
}

#[test]
fn runs_in_a_folder_with_nothing_to_show_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let run = Test::new(dir.path()).args(["runs"]).run();
    assert!(
        run.stdout.starts_with("no delivery has run here:")
            && run.stdout.contains("`dwpipe deliver` starts one"),
        "{}",
        run.stdout
    );
}
