//! The device's state is part of every audit: read before and after the runs, kept, shown,
//! recomputed by `verify-evidence`.

use std::fs;
use std::path::{Path, PathBuf};

use crate::support::{copy_tree, dwpipe, first_audit, frozen_example, replay_audit};

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// A copy of `notes-pass` whose state before the runs is `before` (edits of the recorded
/// reply) and, when given, after them `after`.
fn in_state(dir: &Path, before: &[(&str, &str)], after: &[(&str, &str)]) -> PathBuf {
    let capture = dir.join("state");
    copy_tree(&repo("device-fixtures/notes-pass"), &capture);
    let transcript = fs::read_to_string(capture.join("transcript.yaml")).unwrap();
    let first = transcript.find("__DWPIPE_STATE=battery\\n").unwrap();
    let last = transcript.rfind("__DWPIPE_STATE=battery\\n").unwrap();
    let edit = |mut text: String, edits: &[(&str, &str)]| {
        for (from, to) in edits {
            assert!(text.contains(from), "{from}");
            text = text.replacen(from, to, 1);
        }
        text
    };
    let head = &transcript[..first];
    let middle = edit(transcript[first..last].to_owned(), before);
    let tail = edit(transcript[last..].to_owned(), after);
    fs::write(
        capture.join("transcript.yaml"),
        format!("{head}{middle}{tail}"),
    )
    .unwrap();
    capture
}

#[test]
fn every_state_is_read_as_its_services_print_it() {
    let dir = frozen_example();
    // Low, charging over USB and hot before; the adaptive panel at 120 Hz before, 60 after.
    let capture = in_state(
        dir.path(),
        &[
            ("capacity: 90 ", "capacity: 15 "),
            ("chargingStatus: 0 ", "chargingStatus: 1 "),
            ("pluggedType: 0 ", "pluggedType: 2 "),
            ("temperature: 300 ", "temperature: 452 "),
            ("Temperature: 36000", "Temperature: 52000"),
            ("screenLocked  \\t\\tfalse", "screenLocked  \\t\\ttrue"),
            ("refreshrate=60", "refreshrate=120"),
        ],
        &[],
    );
    let (code, stdout, stderr) = replay_audit(dir.path(), &capture);
    assert_eq!(code, 0, "the state alone fails nothing: {stdout}{stderr}");
    let report = first_audit(dir.path());
    let before = &report["device-state"]["before"];
    assert_eq!(before["battery-percent"], 15, "{before}");
    assert_eq!(before["charging"], "charging");
    assert_eq!(before["plugged"], "usb");
    assert_eq!(before["battery-temperature-c"], 45.2);
    assert_eq!(before["thermal"][0]["temperature"], 52000);
    assert_eq!(before["screen-locked"], true);
    assert_eq!(before["refresh-hz"], 120);
    let after = &report["device-state"]["after"];
    assert_eq!(after["refresh-hz"], 60, "{after}");
    assert_eq!(after["battery-percent"], 90);
    // Every form shows it.
    let markdown = fs::read_to_string(dir.path().join("out/audit-1.md")).unwrap();
    assert!(
        markdown.contains("- Device state before the runs: battery 15% charging 45.2 °C · power AWAKE · hottest zone soc_thermal 52000 · brightness 120 · screen locked · 120 Hz"),
        "{markdown}"
    );
    let junit = fs::read_to_string(dir.path().join("out/junit.xml")).unwrap();
    assert!(junit.contains("name=\"device-state-after\""), "{junit}");
    let html = fs::read_to_string(dir.path().join("out/report.html")).unwrap();
    assert!(html.contains("state before") && html.contains("battery 15%"));
    // The state is recomputed from the files kept, like every reading.
    let (code, stdout, _) = dwpipe(
        dir.path(),
        &[
            "verify-evidence",
            "out/audit-1.json",
            "--pack",
            "pack.lock.json",
        ],
    );
    assert_eq!(code, 0, "{stdout}");
}

#[test]
fn a_doctored_state_is_a_difference() {
    let dir = frozen_example();
    let (code, _, stderr) = replay_audit(dir.path(), &repo("device-fixtures/notes-pass"));
    assert_eq!(code, 0, "{stderr}");
    let report = dir.path().join("out/audit-1.json");
    let text = fs::read_to_string(&report).unwrap();
    fs::write(
        &report,
        text.replacen("\"battery-percent\": 90", "\"battery-percent\": 95", 1),
    )
    .unwrap();
    let (code, stdout, _) = dwpipe(
        dir.path(),
        &[
            "verify-evidence",
            "out/audit-1.json",
            "--pack",
            "pack.lock.json",
        ],
    );
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains("DIFFERENT") && stdout.contains("device-state.before.battery-percent"),
        "{stdout}"
    );
    // The kept reply changed under the report: its hash no longer holds.
    fs::write(&report, text).unwrap();
    let kept = dir
        .path()
        .join("out/evidence/FMR0223C13000649/state-before.txt");
    let said = fs::read_to_string(&kept).unwrap();
    fs::write(&kept, said.replace("capacity: 90 ", "capacity: 99 ")).unwrap();
    let (code, stdout, _) = dwpipe(
        dir.path(),
        &[
            "verify-evidence",
            "out/audit-1.json",
            "--pack",
            "pack.lock.json",
        ],
    );
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("inputs.state-before.sha256"), "{stdout}");
}

#[test]
fn a_capture_that_never_recorded_the_state_names_every_reading_unread() {
    let dir = frozen_example();
    let capture = dir.path().join("older");
    copy_tree(&repo("device-fixtures/notes-pass"), &capture);
    let transcript = fs::read_to_string(capture.join("transcript.yaml")).unwrap();
    let mut kept = String::new();
    let mut skip = false;
    for line in transcript.split_inclusive('\n') {
        if line.starts_with("  - shell: echo __DWPIPE_STATE=") {
            skip = true;
            continue;
        }
        if skip && line.starts_with("    reply: ") {
            skip = false;
            continue;
        }
        kept.push_str(line);
    }
    fs::write(capture.join("transcript.yaml"), kept).unwrap();
    let (code, stdout, stderr) = replay_audit(dir.path(), &capture);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let report = first_audit(dir.path());
    let unread = report["device-state"]["before"]["unread"]
        .as_array()
        .unwrap();
    assert_eq!(unread.len(), 6, "{unread:?}");
    assert!(
        unread[0]
            .as_str()
            .unwrap()
            .starts_with("battery (`hidumper -s BatteryService -a -i`): not in the reply")
    );
}
