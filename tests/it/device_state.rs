//! The device's state is part of every audit: read before and after the runs, kept, shown,
//! recomputed by `verify-evidence`.

use dwpipe::gate::CheckResult;
use dwpipe::schema::{AuditReport, Comparison, TerminalReason};
use std::fs;
use std::path::{Path, PathBuf};

use crate::support::{
    Audited, EXIT_CODES, Ran, Test, copy_tree, first_audit, frozen_example, replay_audit,
};

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// `dwpipe verify-evidence out/audit-1.json --pack pack.lock.json` in `dir`: `(exit code,
/// stdout)`.
fn verify_evidence(dir: &Path) -> (i32, String) {
    let Ran { code, stdout, .. } = Test::new(dir)
        .args([
            "verify-evidence",
            "out/audit-1.json",
            "--pack",
            "pack.lock.json",
        ])
        .status_in(EXIT_CODES)
        .run();
    (code, stdout)
}

/// A copy of `notes-pass` whose state before the runs is `before` (edits of the recorded
/// reply) and, when given, after them `after`.
#[track_caller]
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
    // The state alone fails nothing.
    replay_audit(dir.path(), &capture).status(0).run();
    let report = first_audit(dir.path());
    let states = report.device_state.as_ref().expect("the device's state");
    let before = &states.before;
    assert_eq!(before.battery_percent, Some(15), "{before:?}");
    assert_eq!(before.charging.as_deref(), Some("charging"));
    assert_eq!(before.plugged.as_deref(), Some("usb"));
    assert_eq!(before.battery_temperature_c, Some(45.2));
    assert_eq!(before.thermal[0].temperature, 52000);
    assert_eq!(before.screen_locked, Some(true));
    assert_eq!(before.refresh_hz, Some(120));
    let after = states.after.as_ref().expect("the state after the runs");
    assert_eq!(after.refresh_hz, Some(60), "{after:?}");
    assert_eq!(after.battery_percent, Some(90));
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
    let (code, stdout) = verify_evidence(dir.path());
    assert_eq!(code, 0, "{stdout}");
}

#[test]
fn a_doctored_state_is_a_difference() {
    let dir = frozen_example();
    replay_audit(dir.path(), &repo("device-fixtures/notes-pass"))
        .status(0)
        .run();
    let report = dir.path().join("out/audit-1.json");
    let text = fs::read_to_string(&report).unwrap();
    fs::write(
        &report,
        text.replacen("\"battery-percent\": 90", "\"battery-percent\": 95", 1),
    )
    .unwrap();
    let (code, stdout) = verify_evidence(dir.path());
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
    let (code, stdout) = verify_evidence(dir.path());
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
    replay_audit(dir.path(), &capture).status(0).run();
    let report = first_audit(dir.path());
    let unread = &report.device_state.as_ref().unwrap().before.unread;
    assert_eq!(unread.len(), 7, "{unread:?}");
    assert!(
        unread[0].starts_with("battery (`hidumper -s BatteryService -a -i`): not in the reply")
    );
}

/// The example pack frozen with `require`, in a fresh folder.
fn frozen_requiring(require: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let pack = fs::read_to_string(repo("examples/notes/pack.yaml")).unwrap();
    let lines: String = require.iter().map(|r| format!("\n  - \"{r}\"")).collect();
    let list = if require.is_empty() { " []" } else { &lines };
    let pack = pack.replacen(
        "\ncriteria:\n",
        &format!("\nrequire:{list}\n\ncriteria:\n"),
        1,
    );
    fs::write(dir.path().join("pack.yaml"), pack).unwrap();
    Test::new(dir.path())
        .args(["freeze", "pack.yaml"])
        .status(0)
        .run();
    dir
}

#[test]
fn a_device_that_does_not_meet_the_packs_preconditions_is_not_audited() {
    let dir = frozen_requiring(&["battery >= 80%", "screen-lock: off"]);
    let capture = in_state(dir.path(), &[("capacity: 90 ", "capacity: 15 ")], &[]);
    // The environment's failure, not the app's.
    let Ran { stderr, .. } = replay_audit(dir.path(), &capture).status(3).run();
    let report = first_audit(dir.path());
    assert_eq!(
        report.device_state.as_ref().unwrap().unmet,
        ["`battery >= 80%` (the pack): battery 15%"]
    );
    for check in &report.checks {
        let check = &check.check;
        assert_eq!(check.result, CheckResult::Unverified, "{check:?}");
        assert!(
            check
                .evidence
                .contains("the device was not audited: `battery >= 80%` (the pack): battery 15%"),
            "{check:?}"
        );
    }
    let codes = report.codes();
    assert!(codes.contains(&"E_DEVICE_NOT_READY"), "{codes:?}");
    assert!(stderr.contains("the device was not audited"), "{stderr}");
    // What was decided is recomputed from the kept state and the lock.
    let (code, stdout) = verify_evidence(dir.path());
    assert_eq!(code, 0, "{stdout}");
    // The same device, charged, is audited as before.
    crate::support::replay_audit_into(dir.path(), &repo("device-fixtures/notes-pass"), "charged")
        .status(0)
        .run();
}

#[test]
fn a_lab_adds_its_own_preconditions_and_says_which_stopped_holding() {
    let dir = frozen_example();
    // dwpipe.yaml's `device.require` and `--require` both apply.
    fs::write(
        dir.path().join("lab.yaml"),
        "agent:\n  kind: command\n  argv: [\"true\"]\nverify: []\ndevice:\n  require: [\"screen-lock: off\"]\n",
    )
    .unwrap();
    let capture = in_state(
        dir.path(),
        &[("screenLocked  \\t\\tfalse", "screenLocked  \\t\\ttrue")],
        &[],
    );
    let audit = |out: &str| crate::support::replay_audit_into(dir.path(), &capture, out);
    let Ran { stderr, .. } = audit("locked")
        .args(["--config", "lab.yaml"])
        .status(3)
        .run();
    assert!(
        stderr.contains("`screen-lock: off` (dwpipe.yaml): the screen is locked"),
        "{stderr}"
    );
    // A condition that held before the runs and not after them warns.
    let capture = in_state(
        dir.path(),
        &[],
        &[("temperature: 300 ", "temperature: 455 ")],
    );
    let Ran {
        code,
        stdout,
        stderr,
        ..
    } = crate::support::replay_audit_into(dir.path(), &capture, "warmed")
        .args(["--require", "battery-temperature <= 40", "--json"])
        .status_in(EXIT_CODES)
        .run();
    assert_eq!(code, 0, "measured, with a warning: {stderr}");
    let report: AuditReport = crate::support::parse(&stdout);
    let warnings = report.with_code("W_DEVICE_STATE_CHANGED");
    let warning = warnings.first().expect("a warning");
    assert!(
        warning
            .message
            .contains("`battery-temperature <= 40` (--require): battery temperature 45.5 °C"),
        "{warning:?}"
    );
    let Ran { stderr, .. } = audit("bad")
        .args(["--require", "thermal <= normal"])
        .status(2)
        .run();
    assert!(stderr.contains("`thermal` is not a reading"), "{stderr}");
}

#[test]
fn a_pack_without_preconditions_keeps_its_hash_and_a_bad_one_is_refused() {
    let sha = |dir: &Path| {
        let lock: serde_json::Value =
            serde_json::from_slice(&fs::read(dir.join("pack.lock.json")).unwrap()).unwrap();
        lock["sha256"].as_str().unwrap().to_owned()
    };
    // The key added empty is the pack it was (the snapshots pin the example's hash).
    let plain = frozen_example();
    let empty = frozen_requiring(&[]);
    assert_eq!(sha(plain.path()), sha(empty.path()));
    let required = frozen_requiring(&["battery >= 80%"]);
    assert_ne!(
        sha(plain.path()),
        sha(required.path()),
        "a precondition is sealed"
    );
    let dir = tempfile::tempdir().unwrap();
    let pack = fs::read_to_string(repo("examples/notes/pack.yaml"))
        .unwrap()
        .replacen(
            "\ncriteria:\n",
            "\nrequire:\n  - \"battery >= plenty\"\n\ncriteria:\n",
            1,
        );
    fs::write(dir.path().join("pack.yaml"), pack).unwrap();
    let stderr = Test::new(dir.path())
        .args(["freeze", "pack.yaml"])
        .status(2)
        .run()
        .stderr;
    assert!(stderr.contains("E_PACK_BAD_REQUIRE"), "{stderr}");
}

#[test]
fn a_lab_shows_a_device_that_did_not_meet_a_precondition_as_not_measured() {
    use crate::support::device;
    let dir = frozen_example();
    let captures: Vec<String> = ["LAB01", "LAB02"]
        .iter()
        .map(|serial| device(dir.path(), "notes-pass", serial, false))
        .collect();
    // LAB02's battery is at 15 % when its audit begins.
    let transcript = Path::new(&captures[1]).join("transcript.yaml");
    let text = fs::read_to_string(&transcript).unwrap();
    fs::write(
        &transcript,
        text.replacen("capacity: 90 ", "capacity: 15 ", 1),
    )
    .unwrap();
    let Ran {
        code,
        stdout,
        stderr,
        ..
    } = crate::lab::lab_audit(
        dir.path(),
        "hdc",
        &captures,
        &[
            "--devices",
            "all",
            "--require",
            "battery >= 80%",
            "--out",
            "lab",
            "--json",
        ],
    )
    .status_in(EXIT_CODES)
    .run();
    assert_eq!(code, 3, "none failed, one was not measured: {stderr}");
    let lab: dwpipe::schema::LabReport = crate::support::parse(&stdout);
    assert_eq!(
        lab.verdict,
        dwpipe::schema::LabVerdict::Incomplete,
        "{lab:?}"
    );
    assert_eq!(
        crate::support::Matrix::device_verdicts(&lab),
        [("LAB01", "pass"), ("LAB02", "not-measured")]
    );
    let markdown = fs::read_to_string(dir.path().join("lab/lab.md")).unwrap();
    assert!(markdown.contains("not-measured"), "{markdown}");
}

#[test]
fn a_comparison_names_the_state_its_arms_ran_in_when_it_differs() {
    let dir = frozen_example();
    let audit = |capture: &Path, out: &str| {
        crate::support::replay_audit_into(dir.path(), capture, out)
            .status(0)
            .run();
    };
    audit(&repo("device-fixtures/notes-pass"), "cool");
    // The same build on the same phone, hot and charging.
    let hot = in_state(
        dir.path(),
        &[
            ("Temperature: 36000", "Temperature: 52000"),
            ("chargingStatus: 0 ", "chargingStatus: 1 "),
        ],
        &[],
    );
    audit(&hot, "hot");
    let Ran {
        code,
        stdout,
        stderr,
        ..
    } = Test::new(dir.path())
        .args([
            "compare",
            "cool/audit-1.json",
            "hot/audit-1.json",
            "--pack",
            "pack.lock.json",
            "--out",
            "cmp",
            "--json",
        ])
        .status_in(EXIT_CODES)
        .run();
    assert!(code == 0 || code == 1, "{stderr}");
    let comparison: Comparison = crate::support::parse(&stdout);
    let warning = comparison
        .diagnostics
        .iter()
        .find(|d| d.code == "W_COMPARE_STATE_DIFFERS")
        .unwrap_or_else(|| panic!("a warning: {comparison:?}"));
    assert_eq!(
        warning.message,
        "the arms ran in different device states: charging discharging against charging; hottest zone 36000 against 52000"
    );
}

/// The recorded reply of the cpu sessions' two reads of /proc (as device-fixtures/generate.py
/// writes it, JSON-quoted as the transcript keeps it): the app at `percent` of all 8 cores
/// over 2.5 s.
fn cpu_reply(percent: f64) -> String {
    serde_json::to_string(&dwpipe::probe::proc_cpu::render(
        5000,
        "com.example.not",
        (percent, 8),
        (120.0, 2.5),
    ))
    .unwrap()
}

#[test]
fn the_app_cpu_load_in_the_foreground_and_the_background() {
    let dir = crate::support::frozen_fixture("packs/cpu.yaml");
    replay_audit(dir.path(), &repo("device-fixtures/notes-cpu"))
        .status(0)
        .run();
    let report = first_audit(dir.path());
    let actual = |id: &str| report.actual(id).unwrap_or_default().to_owned();
    // The median of 12, 14 and 13 %; the background load after Home and 3 minutes.
    assert_eq!(actual("P-05"), "13%");
    assert_eq!(actual("P-06"), "0.8%");
    // A background load above AppAnalyzer's 5 % fails the must criterion.
    let capture = dir.path().join("busy");
    copy_tree(&repo("device-fixtures/notes-cpu"), &capture);
    let transcript = fs::read_to_string(capture.join("transcript.yaml")).unwrap();
    let busy = transcript.replace(&cpu_reply(0.8), &cpu_reply(7.5));
    assert_ne!(busy, transcript);
    fs::write(capture.join("transcript.yaml"), busy).unwrap();
    crate::support::replay_audit_into(dir.path(), &capture, "busy-out")
        .status(1)
        .run();
    let busy: AuditReport = crate::support::read(dir.path().join("busy-out/audit-1.json"));
    assert_eq!(
        (busy.result("P-06"), busy.actual("P-06")),
        (CheckResult::Fail, Some("7.5%"))
    );
    // The parser through inspect, on the evidence the audit kept.
    let kept = dir
        .path()
        .join("out/evidence/FMR0223C13000649/1/cpu-background/cpu.txt");
    let Ran { stdout, .. } = crate::support::inspect(&["cpu", kept.to_str().unwrap()])
        .status(0)
        .run();
    assert!(
        stdout.contains(
            "com.example.not (pid 5000): 16 of 2000 ticks of 8 online cores over 2.500 s"
        ),
        "{stdout}"
    );
}

#[test]
fn the_appanalyzer_preset_freezes_passes_review_and_audits_the_example() {
    let dir = tempfile::tempdir().unwrap();
    Test::new(dir.path())
        .args(["init", "--preset", "appanalyzer"])
        .status(0)
        .run();
    let pack = fs::read_to_string(dir.path().join("pack.yaml")).unwrap();
    assert!(
        pack.contains("ide-peak-background-cpu-usage-0420"),
        "each rule is named"
    );
    Test::new(dir.path())
        .args(["freeze", "pack.yaml"])
        .status(0)
        .run();
    // The fail bands are looser than the baselines by design: their pass bands hold them.
    let Ran { stderr, .. } = Test::new(dir.path())
        .args(["review", "pack.lock.json"])
        .status(0)
        .run();
    assert!(
        !stderr.contains("W_REVIEW_LOOSER_THAN_BASELINE"),
        "{stderr}"
    );
    replay_audit(dir.path(), &repo("device-fixtures/notes-appanalyzer"))
        .status(0)
        .run();
    let report = first_audit(dir.path());
    assert_eq!(report.summary.pass, 12, "{:?}", report.summary);
    assert_eq!(report.actual("AA-0420"), Some("0.8%"));
    // No crash or freeze in any of the 3 runs' visits (the fault logger's older crash is
    // from the day before).
    assert_eq!(report.actual("AA-STABILITY"), Some("0"));
    let (code, stdout) = verify_evidence(dir.path());
    assert_eq!(code, 0, "{stdout}");
    // Its preconditions are DevEco Testing's: a phone at 50 % is not audited.
    let low = dir.path().join("low");
    copy_tree(&repo("device-fixtures/notes-appanalyzer"), &low);
    let transcript = fs::read_to_string(low.join("transcript.yaml")).unwrap();
    fs::write(
        low.join("transcript.yaml"),
        transcript.replacen("capacity: 90 ", "capacity: 50 ", 1),
    )
    .unwrap();
    let Ran { stderr, .. } = crate::support::replay_audit_into(dir.path(), &low, "low-out")
        .status(3)
        .run();
    assert!(
        stderr.contains("`battery >= 80%` (the pack): battery 50%"),
        "{stderr}"
    );
}

#[test]
fn gpu_power_and_heat_are_measured_and_read_back() {
    let dir = crate::support::frozen_fixture("packs/resources.yaml");
    replay_audit(dir.path(), &repo("device-fixtures/notes-resources"))
        .status(0)
        .run();
    let report = first_audit(dir.path());
    let actual = |id: &str| report.actual(id).unwrap_or_default().to_owned();
    // Hand-worked: loads 40/45/50/45/45 → 45 %; 279000000 Hz → 279 MHz; currents 350–450 mA
    // (mean 400) at 4 V → 1600 mW; the hottest of ThermalService's two zones, refreshed during
    // the visit (the shell lists no sysfs zone on 5.0), 41000 m°C → 41 °C.
    assert_eq!(actual("R-01"), "45%");
    assert_eq!(actual("R-02"), "279MHz");
    assert_eq!(actual("R-03"), "1600mW");
    assert_eq!(actual("R-04"), "41°C");
    let (code, stdout) = verify_evidence(dir.path());
    assert_eq!(code, 0, "{stdout}");
    // Each parser through inspect, on the evidence the audit kept.
    let kept = |visit: &str, file: &str| {
        dir.path()
            .join(format!("out/evidence/FMR0223C13000649/1/{visit}/{file}"))
            .display()
            .to_string()
    };
    for (args, said) in [
        (
            vec!["smartperf", "--kind", "gpu", &kept("gpu", "gpu.txt")],
            "gpu: 45% load at 279 MHz over 5 sample(s)",
        ),
        (
            vec!["smartperf", "--kind", "power", &kept("power", "power.txt")],
            "power: 1600 mW (400 mA at 4 V) over 5 sample(s)",
        ),
        (
            vec![
                "hidumper",
                "--kind",
                "thermal",
                &kept("temperature", "thermal.txt"),
            ],
            "soc_thermal",
        ),
    ] {
        let Ran { stdout, .. } = crate::support::inspect(&args).status(0).run();
        assert!(stdout.contains(said), "{stdout}");
    }
    // A device without SmartPerf's power reading leaves the criterion unverified, saying so.
    let capture = dir.path().join("no-power");
    copy_tree(&repo("device-fixtures/notes-resources"), &capture);
    let transcript = fs::read_to_string(capture.join("transcript.yaml")).unwrap();
    let without = transcript.replace("currentNow=-", "failed=RK does not support ");
    fs::write(capture.join("transcript.yaml"), without).unwrap();
    let Ran { code, stderr, .. } =
        crate::support::replay_audit_into(dir.path(), &capture, "no-power-out")
            .status_in(EXIT_CODES)
            .run();
    assert_eq!(code, 0, "R-03 is a should: {stderr}");
    let report: AuditReport = crate::support::read(dir.path().join("no-power-out/audit-1.json"));
    let check = &report.check("R-03").check;
    assert_eq!(check.result, CheckResult::Unverified);
    assert!(check.evidence.contains("RK does not support"), "{check:?}");
    // SmartPerf stopped after one sample of the five its step asked for, or a load of `-0`
    // in one: no reading either way.
    let five = "\\norder:0 gpuFrequency=279000000\\norder:1 gpuLoad=40.000000\\n\\norder:0 gpuFrequency=279000000\\norder:1 gpuLoad=45.000000\\n\\norder:0 gpuFrequency=279000000\\norder:1 gpuLoad=50.000000\\n\\norder:0 gpuFrequency=279000000\\norder:1 gpuLoad=45.000000\\n\\norder:0 gpuFrequency=279000000\\norder:1 gpuLoad=45.000000\\n";
    let one = "\\norder:0 gpuFrequency=279000000\\norder:1 gpuLoad=40.000000\\n".to_owned();
    let signed = five.replacen("gpuLoad=40.000000", "gpuLoad=-0", 1);
    for (name, reply, said) in [
        ("one-sample", one, "1 sample(s) where its step asked for 5"),
        ("signed", signed, "is signed where gpuLoad never is"),
    ] {
        let capture = dir.path().join(name);
        copy_tree(&repo("device-fixtures/notes-resources"), &capture);
        let transcript = fs::read_to_string(capture.join("transcript.yaml")).unwrap();
        assert!(transcript.contains(five));
        fs::write(
            capture.join("transcript.yaml"),
            transcript.replacen(five, &reply, 1),
        )
        .unwrap();
        let out = format!("{name}-out");
        crate::support::replay_audit_into(dir.path(), &capture, &out)
            .status_in(EXIT_CODES)
            .run();
        let report: AuditReport = crate::support::read(dir.path().join(out).join("audit-1.json"));
        let check = &report.check("R-01").check;
        assert_eq!(check.result, CheckResult::Unverified, "{name}: {check:?}");
        assert!(check.evidence.contains(said), "{name}: {check:?}");
    }
}

#[test]
fn a_delivery_on_a_device_that_is_not_ready_ends_on_the_environment() {
    use crate::support::delivery::{FIXING_AGENT, SPACING, deliver, project};
    // The lab's policy: a full battery. The recorded phone is at 90 %.
    let dir = project(
        FIXING_AGENT,
        SPACING,
        "notes-pass",
        "  require: [\"battery >= 95%\"]\n",
    );
    let (code, summary, stderr) = deliver(dir.path(), &[]);
    assert_eq!(code, 3, "{summary:?} {stderr}");
    assert_eq!(
        summary.terminal_reason,
        TerminalReason::EnvironmentError,
        "{summary:?}"
    );
    assert!(
        summary
            .detail
            .as_deref()
            .unwrap()
            .contains("`battery >= 95%` (dwpipe.yaml): battery 90%"),
        "{summary:?}"
    );
}

#[test]
fn a_failed_should_criterion_does_not_turn_a_passing_gates_junit_red() {
    let dir = crate::support::frozen_fixture("packs/cpu.yaml");
    // The foreground load at 32–34 %: P-05 (should, ≤ 20 %) fails, P-06 (must) passes.
    let capture = dir.path().join("busy-foreground");
    copy_tree(&repo("device-fixtures/notes-cpu"), &capture);
    let transcript = fs::read_to_string(capture.join("transcript.yaml")).unwrap();
    let busy = transcript
        .replace(&cpu_reply(12.0), &cpu_reply(32.0))
        .replace(&cpu_reply(14.0), &cpu_reply(34.0))
        .replace(&cpu_reply(13.0), &cpu_reply(33.0));
    assert_ne!(busy, transcript);
    fs::write(capture.join("transcript.yaml"), busy).unwrap();
    // The musts passed.
    replay_audit(dir.path(), &capture).status(0).run();
    let junit = fs::read_to_string(dir.path().join("out/junit.xml")).unwrap();
    assert!(junit.contains("failures=\"0\""), "{junit}");
    assert!(
        junit.contains(
            "<skipped message=\"a should criterion failed (the gate passes on its musts)"
        ),
        "{junit}"
    );
}

/// A zone that prints a whole °C is that hot, and one at or below 0 is a sensor that is not
/// there: neither lets a hot phone through a pack's heat precondition as a cold one.
#[test]
fn a_zone_in_celsius_or_below_zero_is_never_a_cold_phone() {
    let dir = frozen_requiring(&["hottest-zone <= 45000"]);
    for (zone, said) in [
        ("Temperature: 52", "hottest zone 52000"),
        ("Temperature: -5", "unknown"),
    ] {
        let capture = in_state(dir.path(), &[("Temperature: 36000", zone)], &[]);
        let Ran { stderr, .. } = replay_audit(dir.path(), &capture).status(3).run();
        let report = first_audit(dir.path());
        let unmet = &report.device_state.as_ref().unwrap().unmet;
        assert!(
            unmet.len() == 1 && unmet[0].contains(said),
            "{zone}: {unmet:?}\n{stderr}"
        );
        fs::remove_dir_all(dir.path().join("out")).unwrap();
    }
}
