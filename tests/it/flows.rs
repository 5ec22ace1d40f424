//! Flows through the real binary: the editor reached by a flow and measured there, a flow
//! whose selector never appears, hostile flows refused at freeze, and a live run through a
//! fake app that answers taps by changing screens, recorded and replayed to the same evidence.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use dwpipe::schema::AuditReport;

use crate::support::{Audited, EXIT_CODES, Ran, Test, fake_hdc, fixture, frozen_fixture, parse};

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// A strict replay of `capture` against `dir`'s lock into `out`: the exit code, the report
/// and stderr.
#[track_caller]
fn replay_capture(dir: &Path, capture: &Path, out: &str) -> (i32, AuditReport, String) {
    let Ran {
        code,
        stdout,
        stderr,
        ..
    } = Test::new(dir)
        .args([
            "audit",
            "--pack",
            "pack.lock.json",
            "--replay",
            capture.to_str().unwrap(),
            "--strict",
            "--out",
            out,
            "--json",
        ])
        .status_in(EXIT_CODES)
        .run();
    let report = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("no report ({e}): {stdout}\n{stderr}"));
    (code, report, stderr)
}

/// A strict replay of one of `device-fixtures/`.
#[track_caller]
fn replay(dir: &Path, fixture: &str, out: &str) -> (i32, AuditReport, String) {
    replay_capture(dir, &repo(&format!("device-fixtures/{fixture}")), out)
}

/// `(result, actual)` of a criterion.
#[track_caller]
fn outcome(report: &AuditReport, id: &str) -> (String, String) {
    (
        report.result(id).as_str().to_owned(),
        report.actual(id).unwrap_or("-").to_owned(),
    )
}

fn pair(result: &str, actual: &str) -> (String, String) {
    (result.to_owned(), actual.to_owned())
}

/// The first run's reading detail of a criterion.
#[track_caller]
fn detail(report: &AuditReport, id: &str) -> String {
    report.check(id).measurements[0].runs[0].detail.clone()
}

#[test]
fn the_editor_reached_by_a_flow_is_the_screen_measured() {
    let dir = frozen_fixture("packs/editor.yaml");
    let (code, report, stderr) = replay(dir.path(), "notes-editor-pass", "pass");
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        outcome(&report, "A-02"),
        pair("pass", "12vp"),
        "the editor's gap"
    );
    assert_eq!(outcome(&report, "X-03"), pair("pass", "48vp"));
    assert_eq!(outcome(&report, "P-03"), pair("pass", "700ms"));
    assert_eq!(
        outcome(&report, "P-04"),
        pair("pass", "60ms"),
        "40 ms to the page switch + 20 ms compensation"
    );
    assert!(
        detail(&report, "P-04").contains("ABILITY_OR_PAGE_SWITCH"),
        "the reading says which end it used: {}",
        detail(&report, "P-04")
    );
    assert!(detail(&report, "P-03").contains("trace-based"));
    // Each step's evidence is kept and hashed: its layout, its screenshot, the trace.
    let flow = dir
        .path()
        .join("pass/evidence/FMR0223C13000649/1/flow-open-note");
    let record: serde_json::Value =
        serde_json::from_slice(&fs::read(flow.join("flow.json")).unwrap()).unwrap();
    assert_eq!(record["steps"][1]["at"], serde_json::json!([630, 731]));
    assert_eq!(record["steps"][1]["node"], "id:note_item_1");
    let hashed: Vec<String> = report.check("A-02").measurements[0].runs[0]
        .files
        .iter()
        .map(|f| f.path.clone())
        .collect();
    // The launch polled for the app's window, its 100 ms timeout the ceiling.
    let ready = fs::read_to_string(flow.join("step-01-ready.txt")).unwrap();
    assert!(
        ready.starts_with("ready: window 13 focused and visible after 100 ms (2 looks;")
            && ready.contains("signal: SceneBoard: IsVisible"),
        "{ready}"
    );
    for name in [
        "flow.json",
        "step-01-ready.txt",
        "step-02-layout.json",
        "step-02.ftrace",
        "step-03-screen.png",
        "layout.json",
    ] {
        assert!(
            hashed.iter().any(|p| p.ends_with(name)),
            "{name} in {hashed:?}"
        );
    }
    Test::new(dir.path())
        .args(["verify-evidence", "pass/audit-1.json"])
        .stdout_contains("0 difference(s)")
        .run();
}

#[test]
fn the_failing_editor_fails_on_the_editor() {
    let dir = frozen_fixture("packs/editor.yaml");
    let (code, report, _) = replay(dir.path(), "notes-editor-fail", "fail");
    assert_eq!(code, 1);
    assert_eq!(
        outcome(&report, "A-02"),
        pair("fail", "30.154vp"),
        "98 px at 3.25"
    );
    assert_eq!(outcome(&report, "X-03"), pair("fail", "40vp"));
    assert_eq!(outcome(&report, "P-03"), pair("fail", "1400ms"));
    assert_eq!(outcome(&report, "P-04"), pair("pass", "60ms"));
}

#[test]
fn a_selector_that_never_appears_leaves_what_needed_it_unverified() {
    let dir = frozen_fixture("packs/editor.yaml");
    let (code, report, _) = replay(dir.path(), "notes-editor-missing", "missing");
    assert_eq!(code, 1, "a must criterion unverified is never a pass");
    for id in ["A-02", "X-03"] {
        assert_eq!(outcome(&report, id).0, "unverified", "{id}");
        let why = detail(&report, id);
        for part in [
            "flow `open-note`, step 3",
            "wait-for: id:editor_title",
            "did not appear within 2000 ms",
            "step-03-layout.json",
        ] {
            assert!(why.contains(part), "{id}: {part} in {why}");
        }
    }
    // The step before the failure was traced: its response is still measured (without a
    // transition lane: the first frame after the tap ends it, and the reading says so).
    assert_eq!(outcome(&report, "P-04").0, "pass");
    assert!(detail(&report, "P-04").contains("no transition lane"));
    let record: serde_json::Value = serde_json::from_slice(
        &fs::read(
            dir.path()
                .join("missing/evidence/FMR0223C13000649/1/flow-open-note/flow.json"),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(
        record["steps"][2]["dumps"], 5,
        "polled at 0, 0.5, 1, 1.5 and 2 s"
    );
    assert!(
        record["steps"][2]["failed"]
            .as_str()
            .unwrap()
            .contains("did not appear")
    );
    Test::new(dir.path())
        .args(["verify-evidence", "missing/audit-1.json"])
        .status(0)
        .run();
}

#[test]
fn hostile_or_broken_flows_are_refused_at_freeze_with_their_location() {
    let pack = fs::read_to_string(fixture("packs/editor.yaml")).unwrap();
    let rows: &[(&str, &str, &str)] = &[
        (
            "    - wait-for: { target: \"id:editor_title\", timeout: 2s }",
            "    - input: { target: \"id:editor_title\", text: \"x'; reboot; echo '\" }",
            "`'` cannot be typed",
        ),
        (
            "    - wait-for: { target: \"id:editor_title\", timeout: 2s }",
            "    - input: { target: \"id:editor_title\", text: \"$(reboot)\" }",
            "`$` cannot be typed",
        ),
        (
            "    - wait-for: { target: \"id:editor_title\", timeout: 2s }",
            "    - click: \"name:editor_title\"",
            "is not `id:…`",
        ),
        (
            "    - { launch: cold, timeout: 100ms }",
            "    - { click: \"id:x\" }",
            "not `launch`",
        ),
        (
            "    - wait-for: { target: \"id:editor_title\", timeout: 2s }",
            "    - tap: \"id:x\"",
            "unknown field",
        ),
        (
            "flow: open-note, from: \"id:editor_title\"",
            "flow: open-notes, from: \"id:editor_title\"",
            "does not declare",
        ),
        (
            "step: open, metric: complete",
            "step: 3, metric: complete",
            "sends no input",
        ),
    ];
    for (from, to, expected) in rows {
        let dir = tempfile::tempdir().unwrap();
        assert!(pack.contains(from), "{from}");
        fs::write(dir.path().join("bad.yaml"), pack.replacen(from, to, 1)).unwrap();
        let stderr = Test::new(dir.path())
            .args(["freeze", "bad.yaml"])
            .status(2)
            .run()
            .stderr;
        assert!(stderr.contains(expected), "{to}: {stderr}");
        assert!(stderr.contains("--> bad.yaml:"), "located: {stderr}");
        assert!(!dir.path().join("pack.lock.json").exists());
    }
}

/// Every evidence file of an audit with its hash, by path under the device's folder.
fn evidence(report: &AuditReport) -> BTreeMap<String, String> {
    report
        .checks
        .iter()
        .flat_map(|c| &c.measurements)
        .flat_map(|m| &m.runs)
        .flat_map(|r| &r.files)
        .map(|f| (f.path.clone(), f.sha256.clone()))
        .collect()
}

/// Audits `pack` live through the screens app (recording it), then replays the recording:
/// the folder, and both reports.
#[track_caller]
fn live_then_replayed(pack: &str) -> (tempfile::TempDir, AuditReport, AuditReport) {
    let dir = frozen_fixture(pack);
    let screens = repo("device-fixtures/notes-screens").display().to_string();
    let hdc = fake_hdc(dir.path(), "hdc", &[screens], "");
    let hdc = hdc.to_str().unwrap();
    let stdout = Test::new(dir.path())
        .args([
            "audit",
            "--pack",
            "pack.lock.json",
            "--device",
            "SCREENS01",
            "--hdc",
            hdc,
            "--record",
            "recorded",
            "--out",
            "live",
            "--json",
        ])
        .run()
        .stdout;
    let live: AuditReport = parse(&stdout);
    let (code, replayed, stderr) =
        replay_capture(dir.path(), &dir.path().join("recorded"), "replayed");
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        evidence(&live),
        evidence(&replayed),
        "the same files with the same hashes, flow.json's device times too"
    );
    (dir, live, replayed)
}

fn flow_record(dir: &Path, flow: &str) -> serde_json::Value {
    let path = dir.join(format!("live/evidence/SCREENS01/1/flow-{flow}/flow.json"));
    serde_json::from_slice(&fs::read(path).unwrap()).unwrap()
}

#[test]
fn a_live_flow_through_a_screen_changing_device_replays_to_the_same_evidence() {
    let (dir, live, replayed) = live_then_replayed("packs/editor.yaml");
    assert_eq!(outcome(&live, "A-02"), pair("pass", "12vp"));
    assert_eq!(outcome(&live, "X-03"), pair("pass", "48vp"));
    for id in ["A-02", "X-03", "P-03", "P-04"] {
        assert_eq!(outcome(&live, id), outcome(&replayed, id), "{id}");
    }
    assert!(evidence(&live).keys().any(|p| p.ends_with("flow.json")));
    assert_eq!(
        flow_record(dir.path(), "open-note")["steps"][2]["dumps"],
        2,
        "the editor shows from the second dump after the tap: wait-for polled twice"
    );
    // The live launch found the app's window drawn at its first look, not at the ceiling.
    let ready = dir
        .path()
        .join("live/evidence/SCREENS01/1/flow-open-note/step-01-ready.txt");
    let ready = fs::read_to_string(ready).unwrap();
    assert!(
        ready.starts_with("ready: window 13 focused and drawn after")
            && ready.contains("(1 looks;"),
        "{ready}"
    );
}

#[test]
fn scroll_until_swipes_the_live_list_until_its_target_shows() {
    let (dir, live, replayed) = live_then_replayed("packs/archive.yaml");
    assert_eq!(outcome(&live, "F-03"), pair("pass", "Archive (3 notes)"));
    assert_eq!(outcome(&replayed, "F-03"), outcome(&live, "F-03"));
    let record = flow_record(dir.path(), "open-archive");
    let scroll = &record["steps"][1];
    assert_eq!(scroll["dumps"], 2, "not there, one swipe, there: {scroll}");
    assert_eq!(scroll["node"], "id:archive_item");
    assert_eq!(record["steps"][2]["node"], "id:archive_item");
    assert_eq!(
        record["steps"][4]["action"],
        "input: 'Groceries 2' into id:archive_title"
    );
}

#[test]
fn a_flows_swipe_is_measured_by_its_trace_and_by_renderservice_alike() {
    let dir = frozen_fixture("packs/scroll.yaml");
    let (code, report, stderr) = replay(dir.path(), "notes-scroll", "out");
    assert_eq!(code, 0, "{stderr}");
    // 60 intervals, one of 50 ms: 33.3 ms dropped over 1.033 s, by either source.
    assert_eq!(outcome(&report, "P-05"), pair("pass", "32.257ms/s"));
    assert_eq!(outcome(&report, "P-06"), pair("pass", "32.257ms/s"));
    let why = detail(&report, "P-06");
    assert!(
        why.contains("UniRender") && why.contains("no records for the app's window `notes0`"),
        "the surface read and why: {why}"
    );
    // The idle records read before the flow are not the flow's frames.
    assert!(why.contains("over 61 presented frames"), "{why}");
    let disagrees = |report: &AuditReport| {
        report
            .with_code("W_EVIDENCE_DISAGREES")
            .iter()
            .any(|d| d.criterion_id.as_deref() == Some("P-06"))
    };
    assert!(
        !disagrees(&report),
        "the ring still held the records read before"
    );

    // A ring overrun during the flow: nothing left of what was read before it.
    let capture = dir.path().join("overrun");
    crate::support::copy_tree(&repo("device-fixtures/notes-scroll"), &capture);
    let transcript = fs::read_to_string(capture.join("transcript.yaml")).unwrap();
    let last = transcript.rfind("'UniRender fps'").unwrap();
    let (head, tail) = transcript.split_at(last);
    // Drop the ten idle records the last read still held (they are 100.xxx s; the swipe is 102.5 s).
    let tail = tail
        .split("\\n")
        .filter(|record| !record.starts_with("1003") && !record.starts_with("1004"))
        .collect::<Vec<_>>()
        .join("\\n");
    fs::write(capture.join("transcript.yaml"), format!("{head}{tail}")).unwrap();
    let (code, report, stderr) = replay_capture(dir.path(), &capture, "overrun-out");
    assert_eq!(code, 0, "{stderr}");
    assert!(disagrees(&report), "{:?}", report.diagnostics);
}
