//! `dwpipe verify-evidence` through the real binary against doctored reports: every edit an
//! auditor could make to a failing audit without touching an evidence byte is named and fails;
//! evidence outside the folder is refused; an older extractor is told apart from tampering;
//! an outside auditor's report is evidence too; first- and second-format audits still verify; a
//! newer format is refused.

use std::fs;
use std::path::{Path, PathBuf};

use dwpipe::gate::Verdict;
use dwpipe::pack::PackLock;

use crate::support::{Audited, EXIT_CODES, Ran, Test, first_audit, read};

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// The example pack frozen in a fresh folder, and `capture` audited into `out/`.
#[track_caller]
fn audited(capture: &str, extra: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let pack = repo("examples/notes/pack.yaml");
    Test::new(dir.path())
        .args(["freeze", pack.to_str().unwrap()])
        .run();
    let capture = repo(&format!("device-fixtures/{capture}"));
    let mut args = vec![
        "audit",
        "--pack",
        "pack.lock.json",
        "--replay",
        capture.to_str().unwrap(),
        "--out",
        "out",
    ];
    args.extend_from_slice(extra);
    Test::new(dir.path()).args(&args).status_in(&[0, 1]).run();
    dir
}

/// `out/audit-1.json` as JSON, for a test to doctor: a doctored report need not fit the schema.
fn report(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&fs::read_to_string(dir.join("out/audit-1.json")).unwrap()).unwrap()
}

fn write(dir: &Path, name: &str, doc: &serde_json::Value) {
    fs::write(
        dir.join("out").join(name),
        serde_json::to_string_pretty(doc).unwrap(),
    )
    .unwrap();
}

/// `verify-evidence out/<name> --pack pack.lock.json`, to be told its exit code and run.
fn verify(dir: &Path, name: &str) -> Test {
    let report = format!("out/{name}");
    Test::new(dir).args(["verify-evidence", &report, "--pack", "pack.lock.json"])
}

fn each_measurement(doc: &mut serde_json::Value, mut f: impl FnMut(&mut serde_json::Value)) {
    for check in doc["checks"].as_array_mut().unwrap() {
        for measurement in check["measurements"].as_array_mut().unwrap() {
            f(measurement);
        }
    }
}

#[test]
fn a_report_as_written_is_exactly_its_rebuild() {
    for capture in [
        "notes-pass",
        "notes-fail",
        "notes-no-screenshot",
        "notes-unstable",
    ] {
        let dir = audited(capture, &[]);
        let Ran { stdout, .. } = verify(dir.path(), "audit-1.json").status(0).run();
        assert!(stdout.contains(": 0 difference(s)"), "{capture}: {stdout}");
        assert!(!stdout.contains("UNANCHORED"), "{capture}: {stdout}");
    }
}

#[test]
fn every_doctored_report_is_named_and_fails() {
    let dir = audited("notes-fail", &[]);
    assert_eq!(first_audit(dir.path()).verdict, Verdict::Fail);
    let original = report(dir.path());
    // A looser pack, frozen for real, for the report to point at.
    let loose = fs::read_to_string(repo("examples/notes/pack.yaml"))
        .unwrap()
        .replace("expected: 800", "expected: 8000");
    fs::write(dir.path().join("loose.yaml"), loose).unwrap();
    Test::new(dir.path())
        .args(["freeze", "loose.yaml", "--out", "loose"])
        .run();
    let loose: PackLock = read(dir.path().join("loose/pack.lock.json"));
    type Edit = fn(&mut serde_json::Value, &PackLock);
    let edits: [(&str, Edit, &str); 5] = [
        (
            "flipped",
            |doc, _| {
                doc["verdict"] = "pass".into();
                for check in doc["checks"].as_array_mut().unwrap() {
                    check["result"] = "pass".into();
                    check["assertionVerdict"] = "pass".into();
                }
            },
            "verdict: the report says \"pass\", its evidence gives \"fail\"",
        ),
        (
            "emptied",
            |doc, _| {
                for check in doc["checks"].as_array_mut().unwrap() {
                    check["measurements"] = serde_json::json!([]);
                }
            },
            "checks[P-01].measurements",
        ),
        (
            "deleted",
            |doc, _| {
                doc["checks"]
                    .as_array_mut()
                    .unwrap()
                    .retain(|c| c["result"] != "fail");
            },
            "checks[P-01]: the report says nothing",
        ),
        (
            "resealed",
            |doc, loose| {
                doc["lock"] = "../loose/pack.lock.json".into();
                doc["pack-sha256"] = loose.sha256.clone().into();
            },
            "pack-sha256: the report says",
        ),
        (
            "elsewhere",
            |doc, _| {
                each_measurement(doc, |m| {
                    for run in m["runs"].as_array_mut().unwrap() {
                        for file in run["files"].as_array_mut().unwrap() {
                            let path = format!("/tmp/copy/{}", file["path"].as_str().unwrap());
                            file["path"] = path.into();
                        }
                    }
                });
            },
            "files[0].path: the report says \"/tmp/copy/evidence/",
        ),
    ];
    for (name, edit, named) in edits {
        let mut doc = original.clone();
        edit(&mut doc, &loose);
        write(dir.path(), &format!("{name}.json"), &doc);
        let Ran { stdout, .. } = verify(dir.path(), &format!("{name}.json")).status(1).run();
        assert!(stdout.contains(named), "{name}: {stdout}");
        assert!(stdout.contains("DIFFERENT  "), "{name}: {stdout}");
    }
    // Without --pack the report's own lock is used, and the output says so.
    let Ran { code, stdout, .. } = Test::new(dir.path())
        .args(["verify-evidence", "out/resealed.json"])
        .status_in(EXIT_CODES)
        .run();
    let sha = loose.sha256.as_str();
    assert!(
        stdout.contains("UNANCHORED") && stdout.contains(sha),
        "{stdout}"
    );
    assert_eq!(
        code, 1,
        "the looser lock still rebuilds other verdicts: {stdout}"
    );
}

#[test]
fn evidence_outside_the_audit_folder_is_refused() {
    let dir = audited("notes-pass", &[]);
    let layout = dir
        .path()
        .join("out/evidence/FMR0223C13000649/1/ui/layout.json");
    let outside = dir.path().join("layout-copy.json");
    fs::copy(&layout, &outside).unwrap();
    fs::remove_file(&layout).unwrap();
    std::os::unix::fs::symlink(&outside, &layout).unwrap();
    let Ran { stderr, .. } = verify(dir.path(), "audit-1.json").status(2).run();
    assert!(stderr.contains("E_EVIDENCE_PATH_ESCAPE"), "{stderr}");
}

#[test]
fn an_edited_evidence_file_changes_its_hash_and_its_number() {
    let dir = audited("notes-pass", &[]);
    let layout = dir
        .path()
        .join("out/evidence/FMR0223C13000649/1/ui/layout.json");
    let edited = fs::read_to_string(&layout).unwrap().replacen(
        "[48,400][1212,595]",
        "[48,400][1212,605]",
        2,
    );
    fs::write(&layout, edited).unwrap();
    let Ran { stdout, .. } = verify(dir.path(), "audit-1.json").status(1).run();
    assert!(
        stdout.contains("checks[A-01].measurements[A-01].runs[1].files[0].sha256"),
        "{stdout}"
    );
    assert!(
        stdout.contains("checks[A-01].measurements[A-01].runs[1].value"),
        "the number changes too: {stdout}"
    );
}

#[test]
fn a_reading_of_an_older_extractor_is_told_apart_from_tampering() {
    let dir = audited("notes-pass", &[]);
    let mut doc = report(dir.path());
    let mut current = serde_json::Value::Null;
    each_measurement(&mut doc, |m| {
        if m["criterion-id"] == "P-01" {
            current = m["extractor-revision"].clone();
            // Read by a revision this dwpipe does not have; the median of the runs still holds.
            m["extractor-revision"] = 0.into();
            m["runs"][0]["value"] = 701.into();
        }
    });
    write(dir.path(), "older.json", &doc);
    let Ran { stdout, .. } = verify(dir.path(), "older.json").status(1).run();
    assert!(
        stdout
            .contains("EXTRACTOR CHANGED  checks[P-01].measurements[P-01].runs[1].value: read 701"),
        "{stdout}"
    );
    assert!(!stdout.contains("DIFFERENT"), "{stdout}");
    assert!(stdout.contains("(1 from a changed extractor)"), "{stdout}");
    // The same edit without the older revision is tampering.
    each_measurement(&mut doc, |m| {
        if m["criterion-id"] == "P-01" {
            m["extractor-revision"] = current.clone();
        }
    });
    write(dir.path(), "edited.json", &doc);
    let Ran { stdout, .. } = verify(dir.path(), "edited.json").status(1).run();
    assert!(
        stdout.contains("DIFFERENT  checks[P-01].measurements[P-01].runs[1].value"),
        "{stdout}"
    );
}

#[test]
fn an_outside_auditors_report_is_kept_and_rebuilt_as_evidence() {
    let auditor = repo("examples/notes/auditor-report.json");
    let dir = audited(
        "notes-pass",
        &["--auditor-report", auditor.to_str().unwrap()],
    );
    let doc = first_audit(dir.path());
    let kept = &doc
        .inputs
        .as_ref()
        .unwrap()
        .auditor_report
        .as_ref()
        .unwrap()
        .path;
    assert_eq!(kept, "evidence/FMR0223C13000649/auditor-report.json");
    verify(dir.path(), "audit-1.json").status(0).run();
    // The auditor's word on F-02 (which no probe measures) is read from the kept file.
    let path = dir.path().join("out").join(kept);
    let text = fs::read_to_string(&path).unwrap();
    let at = text.find("\"F-02\"").unwrap();
    let edited = format!(
        "{}{}",
        &text[..at],
        text[at..].replacen("\"pass\"", "\"fail\"", 1)
    );
    fs::write(&path, edited).unwrap();
    let Ran { stdout, .. } = verify(dir.path(), "audit-1.json").status(1).run();
    assert!(stdout.contains("inputs.auditor-report.sha256"), "{stdout}");
    assert!(stdout.contains("checks[F-02].result"), "{stdout}");
}

/// Read by the first release (every extractor at revision 1): still read, every field rebuilt;
/// the one reading that revision 2 makes differently (hypium, now judged by the criterion's
/// suite) is an extractor change, never tampering.
#[test]
fn a_first_format_audit_is_still_read_and_told_apart_from_tampering() {
    let fixture = repo("tests/fixtures/audits/first-format");
    let Ran { stdout, .. } = Test::new(&fixture)
        .args([
            "verify-evidence",
            "no-screenshot/audit-1.json",
            "--pack",
            "pack.lock.json",
        ])
        .status(1)
        .run();
    assert!(
        stdout.contains(": 1 difference(s) (1 from a changed extractor)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("EXTRACTOR CHANGED  checks[F-01].measurements[F-01].runs[1].detail"),
        "{stdout}"
    );
    assert!(!stdout.contains("DIFFERENT"), "{stdout}");
}

/// Written before format 3: every run named in a check's evidence, no statement; rebuilt so,
/// field for field.
#[test]
fn a_second_format_audit_is_still_read_as_it_was_worded() {
    let fixture = repo("tests/fixtures/audits/second-format");
    let Ran { stdout, .. } = Test::new(&fixture)
        .args([
            "verify-evidence",
            "regress-base/audit-1.json",
            "--pack",
            "pack.lock.json",
        ])
        .status(0)
        .run();
    assert!(stdout.contains(": 0 difference(s)"), "{stdout}");
}

/// What a review meeting asks first is in the report, and held against the lock: the
/// statement is the lock's, runs that say the same thing are named once.
#[test]
fn a_report_states_each_criterion_and_names_repeated_runs_once() {
    let dir = audited("notes-fail", &[]);
    let doc = first_audit(dir.path());
    assert_eq!(doc.format_version, 5);
    let (started, ended) = (doc.started.clone().unwrap(), doc.ended.clone().unwrap());
    for text in [&started, &ended] {
        assert!(text.len() == 20 && text.ends_with('Z'), "{text}");
    }
    assert!(started <= ended);
    // The device's time, on its clock: a replay's runs on the recorded delays and sleeps.
    let device_time = doc.device_time.as_ref().unwrap();
    let visits = &device_time.visits;
    let sum: f64 = visits.iter().map(|v| v.seconds).sum();
    let total = device_time.seconds;
    assert!(total > 1.0 && (total - sum).abs() < 1e-6, "{total} {sum}");
    assert_eq!(visits.len(), 9, "every visit of every run: {visits:?}");
    let p01 = &doc.check("P-01").check;
    assert_eq!(
        p01.statement.as_deref(),
        Some("Cold start to first frame ≤ 800ms")
    );
    let evidence = &p01.evidence;
    assert!(evidence.starts_with("runs 1–3: from "), "{evidence}");
    assert!(!evidence.contains("run 2"), "{evidence}");
    let markdown = fs::read_to_string(dir.path().join("out/audit-1.md")).unwrap();
    assert!(
        markdown.contains("| P-01 | Cold start to first frame ≤ 800ms |"),
        "{markdown}"
    );
    assert!(markdown.contains("- Audited: "), "{markdown}");

    let times = regex::Regex::new(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ").unwrap();
    let sha = doc.pack_sha256.as_str();
    // Paths and hashes that move with the checkout and the fixtures are redacted.
    let transcript = regex::Regex::new(r"transcript [0-9a-f]{12}").unwrap();
    let redacted = markdown
        .replace(sha, "[sha256]")
        .replace(env!("CARGO_MANIFEST_DIR"), "[repo]");
    let redacted = times.replace_all(&redacted, "[time]");
    insta::assert_snapshot!(
        "audit_md",
        transcript.replace_all(&redacted, "transcript [hash]")
    );

    let mut edited = report(dir.path());
    for check in edited["checks"].as_array_mut().unwrap() {
        if check["criterionId"] == "P-01" {
            check["statement"] = "Cold start to first frame ≤ 8000ms".into();
        }
    }
    write(dir.path(), "audit-1.json", &edited);
    let Ran { stdout, .. } = verify(dir.path(), "audit-1.json").status(1).run();
    assert!(stdout.contains("checks[P-01].statement"), "{stdout}");
}

#[test]
fn a_report_of_a_newer_format_is_refused_with_the_version_that_reads_it() {
    let dir = audited("notes-pass", &[]);
    let mut doc = report(dir.path());
    doc["format-version"] = 99.into();
    doc["dwpipe-version"] = "9.0.0".into();
    write(dir.path(), "audit-1.json", &doc);
    let Ran { stderr, .. } = verify(dir.path(), "audit-1.json").status(2).run();
    assert!(
        stderr.contains("E_EVIDENCE_INVALID") && stderr.contains("format-version 99"),
        "{stderr}"
    );
    assert!(stderr.contains("dwpipe 9.0.0 or newer"), "{stderr}");
}

#[test]
fn verify_evidence_help_names_what_is_recomputed_and_what_is_recorded() {
    let stdout = Test::new(Path::new("."))
        .args(["verify-evidence", "--help"])
        .status(0)
        .run()
        .stdout;
    for word in [
        "Recomputed from the lock",
        "Recorded facts",
        "UNANCHORED",
        "EXTRACTOR CHANGED",
    ] {
        assert!(
            stdout.contains(word) || stdout.contains(&word.to_lowercase()),
            "{word}: {stdout}"
        );
    }
}

/// An audit carries a copy of its lock (format 4 on): freezing another pack over the lock of
/// its folder leaves it verifiable, held to the copy. An older audit names the folder's lock
/// itself: freezing over that lock is refused, unless forced.
#[test]
fn an_audit_carries_its_lock_and_an_older_one_is_not_orphaned() {
    let dir = audited("notes-fail", &[]);
    let loose = fs::read_to_string(repo("examples/notes/pack.yaml"))
        .unwrap()
        .replace("expected: 800", "expected: 8000");
    fs::write(dir.path().join("loose.yaml"), &loose).unwrap();
    assert_eq!(
        first_audit(dir.path()).lock.as_deref(),
        Some("evidence/FMR0223C13000649/pack.lock.json"),
        "the report names its copy"
    );
    Test::new(dir.path()).args(["freeze", "loose.yaml"]).run();
    Test::new(dir.path())
        .args(["verify-evidence", "out/audit-1.json"])
        .stdout_contains("UNANCHORED  held to the lock the report names itself")
        .stdout_contains("0 difference(s)")
        .run();
    // A second-format audit names the folder's lock: replacing it is refused.
    let old = dir.path().join("old");
    crate::support::copy_tree(&repo("tests/fixtures/audits/second-format"), &old);
    fs::write(old.join("loose.yaml"), &loose).unwrap();
    Test::new(&old)
        .args(["freeze", "loose.yaml"])
        .status(2)
        .stderr_contains("E_FREEZE_REPLACES_AUDITED")
        .stderr_contains("regress-base/audit-1.json")
        .run();
    // The same pack again is the everyday loop: free; another folder is free; --force
    // replaces it anyway.
    Test::new(&old)
        .args(["freeze", "loose.yaml", "--out", "elsewhere"])
        .run();
    Test::new(&old)
        .args(["freeze", "loose.yaml", "--force"])
        .run();
}

/// An audit written before a playbook was added (it kept one file fewer) still verifies: the
/// embedded file stands in for the probe it never had. A kept file that went missing is
/// still a difference.
#[test]
fn an_audit_that_predates_a_playbook_verifies_and_a_missing_kept_one_does_not() {
    let dir = audited("notes-pass", &[]);
    let kept = dir
        .path()
        .join("out/evidence/FMR0223C13000649/playbooks/a11y.labels.yaml");
    fs::remove_file(&kept).unwrap();
    let Ran { stdout, .. } = verify(dir.path(), "audit-1.json").status(1).run();
    assert!(stdout.contains("DIFFERENT  inputs.playbooks"), "{stdout}");
    // As an older dwpipe would have written it: the file never kept, never listed.
    let mut doc = report(dir.path());
    doc["inputs"]["playbooks"]
        .as_array_mut()
        .unwrap()
        .retain(|p| !p["path"].as_str().unwrap().ends_with("a11y.labels.yaml"));
    write(dir.path(), "older.json", &doc);
    let Ran { stdout, .. } = verify(dir.path(), "older.json").status(0).run();
    assert!(stdout.contains(": 0 difference(s)"), "{stdout}");
}

/// Where an audit came from is evidence (`source.json`, hashed among its inputs), not a label:
/// a replay relabelled a device's audit is a difference.
#[test]
fn a_relabelled_source_is_a_difference() {
    let dir = audited("notes-pass", &[]);
    let path = dir.path().join("out/audit-1.json");
    let mut doc: serde_json::Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    assert_eq!(doc["source"]["kind"], "replay");
    doc["source"] = serde_json::json!({
        "kind": "device",
        "serial": "FMR0223C13000649",
        "model": "ALN-AL00",
        "software-version": "ALN-AL00 5.0.0.22(SP35DEVC00E22R4P1log)"
    });
    fs::write(&path, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
    let Ran { stdout, .. } = verify(dir.path(), "audit-1.json").status(1).run();
    assert!(stdout.contains("DIFFERENT  source.kind"), "{stdout}");
}

/// An audit folder carries what verifying and importing it need: moved away from the lock it
/// was frozen beside, it still verifies and imports.
#[test]
fn an_audit_folder_travels() {
    let dir = audited("notes-pass", &[]);
    let moved = tempfile::tempdir().unwrap();
    crate::support::copy_tree(&dir.path().join("out"), &moved.path().join("artifact"));
    Test::new(moved.path())
        .args(["verify-evidence", "artifact/audit-1.json"])
        .stdout_contains("0 difference(s)")
        .run();
    Test::new(moved.path())
        .args(["history", "--history", "h.sqlite", "import", "artifact"])
        .stdout_contains("imported 1 audit(s)")
        .run();
}

/// Every form says what a person must not miss: each error and warning with its code and fix
/// (on the page too, where a pass with unstable runs looked clean), each criterion not
/// verified with why, and that the readings came from a replay.
#[test]
fn every_form_shows_the_diagnostics_what_was_not_verified_and_a_replay() {
    let dir = crate::support::frozen_example();
    let capture = |name: &str| {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("device-fixtures")
            .join(name)
    };
    let Ran { stdout, .. } = crate::support::replay_audit(dir.path(), &capture("notes-unstable"))
        .status(0)
        .run();
    assert!(stdout.contains("(replay of the capture "), "{stdout}");
    let page = fs::read_to_string(dir.path().join("out/report.html")).unwrap();
    assert!(
        page.contains("<h2>Errors and warnings</h2>")
            && page.contains("<code>W_MEASUREMENT_UNSTABLE</code> (P-01)")
            && page.contains("fix: measure again with more runs"),
        "the unstable runs are on the page"
    );
    assert!(page.contains("<th>replay</th><td>measured from the capture "));
    let markdown = fs::read_to_string(dir.path().join("out/audit-1.md")).unwrap();
    assert!(
        markdown.contains("- **Replay**: measured from the capture "),
        "{markdown}"
    );
    let junit = fs::read_to_string(dir.path().join("out/junit.xml")).unwrap();
    assert!(
        junit.contains("<property name=\"replay-of\" value=\"the capture "),
        "{junit}"
    );

    crate::support::replay_audit_into(dir.path(), &capture("notes-trace-cut"), "cut")
        .status(1)
        .run();
    let page = fs::read_to_string(dir.path().join("cut/report.html")).unwrap();
    assert!(
        page.contains("<h2>Not verified</h2>")
            && page.contains("<li><b>P-01</b>: run 1: the trace `trace.ftrace` ends mid-line"),
        "{}",
        &page[page.find("Not verified").unwrap_or(0)..][..400.min(page.len())]
    );
}
