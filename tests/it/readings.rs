//! Resource and state readings that are right on a real phone, through the real binary: each
//! capture below is a bundled one with a reply replaced by what the printer writes on a
//! release family (research/device-tools-2.md, the format strings at the commits named there).

use std::fs;
use std::path::{Path, PathBuf};

use dwpipe::gate::CheckResult;
use dwpipe::schema::AuditReport;

use crate::support::delivery::repo;
use crate::support::{
    Audited, EXIT_CODES, Ran, Test, copy_tree, frozen_fixture, read, replay_audit_into,
};

/// A copy of `capture` in `dir` with every `from` of its transcript replaced by `to`.
#[track_caller]
fn doctored(dir: &Path, capture: &str, name: &str, edits: &[(&str, &str)]) -> PathBuf {
    let copy = dir.join(name);
    copy_tree(&repo(&format!("device-fixtures/{capture}")), &copy);
    let mut transcript = fs::read_to_string(copy.join("transcript.yaml")).unwrap();
    for (from, to) in edits {
        let edited = transcript.replace(from, to);
        assert_ne!(edited, transcript, "{from} is in {capture}");
        transcript = edited;
    }
    fs::write(copy.join("transcript.yaml"), transcript).unwrap();
    copy
}

/// The report of a replay of `capture` into `out` (with `extra`), and what it printed.
fn audited(
    dir: &Path,
    capture: &Path,
    out: &str,
    extra: &[&str],
) -> (i32, Option<AuditReport>, String) {
    let Ran {
        code,
        stdout,
        stderr,
        ..
    } = replay_audit_into(dir, capture, out)
        .args(extra)
        .status_in(EXIT_CODES)
        .run();
    let path = dir.join(out).join("audit-1.json");
    let report = path.exists().then(|| read(&path));
    (code, report, format!("{stdout}{stderr}"))
}

/// The resources pack frozen in a folder of its own, and its audit of the bundled capture.
#[track_caller]
fn resources() -> (tempfile::TempDir, AuditReport) {
    let dir = frozen_fixture("packs/resources.yaml");
    let (_, report, said) = audited(
        dir.path(),
        &repo("device-fixtures/notes-resources"),
        "out",
        &[],
    );
    (dir, report.unwrap_or_else(|| panic!("no report: {said}")))
}

#[track_caller]
fn evidence(report: &AuditReport, id: &str) -> String {
    report.check(id).check.evidence.clone()
}

/// perf.cpu is measured over the window dwpipe controls (2.5 s of the device's clock here, the
/// reading `cat`'s own start from /proc/self/stat) and says so; its unit is a share of every
/// core unless the criterion asks for one core's.
#[test]
fn the_cpu_is_read_over_its_own_window_in_the_unit_the_criterion_names() {
    let dir = frozen_fixture("packs/cpu.yaml");
    let (code, report, said) = audited(dir.path(), &repo("device-fixtures/notes-cpu"), "out", &[]);
    let report = report.unwrap_or_else(|| panic!("no report: {said}"));
    assert_eq!(code, 0, "{said}");
    assert_eq!(report.actual("P-05"), Some("13%"));
    let runs = serde_json::to_string(&report.check("P-05").measurements[0].runs).unwrap();
    assert!(
        runs.contains("over 2.500 s (/proc/self/stat 120.00 → 122.50 s)")
            && runs.contains("13.00% of all cores (104.00% of one core)"),
        "{runs}"
    );
    // The same evidence, the criterion in one core's share: eight cores at 13 % are 104 %.
    let pack = fs::read_to_string(repo("tests/fixtures/packs/cpu.yaml"))
        .unwrap()
        .replace(
            "      expected: 20\n      unit: \"%\"\n      probe: { id: perf.cpu }",
            "      expected: 120\n      unit: \"%\"\n      probe: { id: perf.cpu, metric: one-core }",
        );
    let one_core = tempfile::tempdir().unwrap();
    fs::write(one_core.path().join("pack.yaml"), pack).unwrap();
    Test::new(one_core.path())
        .args(["freeze", "pack.yaml"])
        .run();
    let (code, report, said) = audited(
        one_core.path(),
        &repo("device-fixtures/notes-cpu"),
        "out",
        &[],
    );
    let report = report.unwrap_or_else(|| panic!("no report: {said}"));
    assert_eq!(code, 0, "{said}");
    assert_eq!(report.actual("P-05"), Some("104%"));
    // The window's reads: the same process at both ends, or no reading.
    let restarted = doctored(
        dir.path(),
        "notes-cpu",
        "restarted",
        // Run 1's second read (12 %: 240 ticks over 2,000) names a process begun later.
        &[(
            " 620 620 0 0 20 0 40 0 1500 ",
            " 620 620 0 0 20 0 40 0 1900 ",
        )],
    );
    let (_, report, _) = audited(dir.path(), &restarted, "restarted-out", &[]);
    let report = report.unwrap_or_else(|| panic!("no report"));
    assert_eq!(report.result("P-05"), CheckResult::Unverified);
    assert!(
        evidence(&report, "P-05").contains("the process changed within the window"),
        "{report:?}"
    );
}

/// SmartPerf 4.1+ prints zeros, never `NA`, where the GPU has no devfreq node: no reading,
/// said so; the load it does read is the whole system's, and the report says that.
#[test]
fn a_gpu_that_is_not_there_is_not_zero_percent() {
    let (dir, report) = resources();
    assert_eq!(report.result("R-01"), CheckResult::Pass);
    assert!(
        serde_json::to_string(&report)
            .unwrap()
            .contains("the system's GPU load"),
        "{report:?}"
    );
    let mut zeros = Vec::new();
    for load in ["40", "45", "50"] {
        zeros.push((
            format!("gpuFrequency=279000000\\norder:1 gpuLoad={load}.000000"),
            "gpuFrequency=0\\norder:1 gpuLoad=0.000000".to_owned(),
        ));
    }
    let edits: Vec<(&str, &str)> = zeros
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let capture = doctored(dir.path(), "notes-resources", "no-gpu", &edits);
    let (_, report, _) = audited(dir.path(), &capture, "no-gpu-out", &[]);
    let report = report.unwrap_or_else(|| panic!("no report"));
    for id in ["R-01", "R-02"] {
        assert_eq!(report.result(id), CheckResult::Unverified, "{id}");
        assert!(
            evidence(&report, id).contains("no GPU devfreq node"),
            "{id}: {report:?}"
        );
    }
}

/// The power is the phone's draw in OpenHarmony's units (mA, µV) with their sign: a current no
/// phone draws in them (a µA device's, a net 5 mA), a voltage no Li-ion cell has, or one that
/// is not BatteryService's unit is no reading; a charging battery is no draw; a plugged phone
/// is measured only where the audit says how (`charging: off`), checked before the audit and
/// read again at the visit; SmartPerf with developer mode off says so.
#[test]
fn power_is_the_phones_draw_not_its_charge() {
    let (dir, report) = resources();
    assert_eq!(report.actual("R-03"), Some("1600mW"));
    assert!(
        evidence(&report, "R-03")
            .contains("BatteryService's nowCurrent -400 mA as the sampling began agrees in unit"),
        "{report:?}"
    );
    let samples = [
        "currentNow=-350\\n",
        "currentNow=-450\\n",
        "currentNow=-400\\n",
    ];
    let each = |to: &'static str| -> Vec<(&'static str, &'static str)> {
        samples.iter().map(|from| (*from, to)).collect()
    };
    for (name, edits, said) in [
        // The Linux ABI's µA, which OpenHarmony's driver does not use: 400 A is no phone's.
        (
            "micro",
            each("currentNow=-400000\\n"),
            "outside what the device can report",
        ),
        // 5 mA at 4 V: 20 mW is not a phone with its screen on.
        (
            "small",
            each("currentNow=-5\\n"),
            "is 20 mW, not what a phone draws",
        ),
        // A 4 mV battery.
        (
            "millivolts",
            vec![("voltageNow=4000000", "voltageNow=4000")],
            "outside a Li-ion cell's range",
        ),
        // BatteryService reads its current a thousandfold apart: not one unit.
        (
            "units",
            vec![("nowCurrent: -400 ", "nowCurrent: -400000 ")],
            "the two are not one unit on this device",
        ),
    ] {
        let capture = doctored(dir.path(), "notes-resources", name, &edits);
        let (_, report, _) = audited(dir.path(), &capture, &format!("{name}-out"), &[]);
        let report = report.unwrap_or_else(|| panic!("no report"));
        assert_eq!(report.result("R-03"), CheckResult::Unverified, "{name}");
        assert!(
            evidence(&report, "R-03").contains(said),
            "{name}: {report:?}"
        );
    }
    let battery = "chargingStatus: 0 \\nhealthState: 1 \\npluggedType: 0 ";
    let charging = doctored(
        dir.path(),
        "notes-resources",
        "charging",
        &[
            (
                battery,
                "chargingStatus: 1 \\nhealthState: 1 \\npluggedType: 2 ",
            ),
            ("currentNow=-350\\n", "currentNow=350\\n"),
        ],
    );
    let (_, report, _) = audited(dir.path(), &charging, "charging-out", &[]);
    let report = report.unwrap_or_else(|| panic!("no report"));
    assert_eq!(report.result("R-03"), CheckResult::Unverified);
    assert!(
        evidence(&report, "R-03").contains("the battery was charging"),
        "{report:?}"
    );
    // Plugged in, not charging: measured only where the audit required `charging: off`.
    let plugged = doctored(
        dir.path(),
        "notes-resources",
        "plugged",
        &[(
            battery,
            "chargingStatus: 2 \\nhealthState: 1 \\npluggedType: 2 ",
        )],
    );
    let (_, report, _) = audited(dir.path(), &plugged, "plugged-out", &[]);
    let report = report.unwrap_or_else(|| panic!("no report"));
    assert_eq!(report.result("R-03"), CheckResult::Unverified);
    assert!(
        evidence(&report, "R-03").contains("require `charging: off`"),
        "{report:?}"
    );
    let (code, report, said) = audited(
        dir.path(),
        &plugged,
        "plugged-required-out",
        &["--require", "charging: off"],
    );
    let report = report.unwrap_or_else(|| panic!("no report: {said}"));
    assert_eq!(code, 0, "{said}");
    assert_eq!(report.actual("R-03"), Some("1600mW"));
    // SmartPerf 6.0+ with developer mode off: it says so, and exits 0.
    let off = {
        let copy = dir.path().join("devmode-off");
        copy_tree(&repo("device-fixtures/notes-resources"), &copy);
        let transcript = fs::read_to_string(copy.join("transcript.yaml")).unwrap();
        let at = transcript
            .find("  - shell: SP_daemon -N 5 -PKG com.example.notes -p")
            .unwrap();
        let reply = at + transcript[at..].find("    reply: ").unwrap();
        let end = reply + transcript[reply..].find('\n').unwrap();
        let edited = format!(
            "{}    reply: \"Not a development mode state\\n\"{}",
            &transcript[..reply],
            &transcript[end..]
        );
        fs::write(copy.join("transcript.yaml"), edited).unwrap();
        copy
    };
    let (_, report, _) = audited(dir.path(), &off, "devmode-out", &[]);
    let report = report.unwrap_or_else(|| panic!("no report"));
    assert!(
        evidence(&report, "R-03").contains("developer mode is off"),
        "{report:?}"
    );
}

/// The hottest zone says which source stood and how old it can be: sysfs read live where the
/// shell may read it (a vendor's policy; a zone that errors is that zone not read), else
/// ThermalService's report, its driver's last poll, at most one polling interval old.
#[test]
fn a_temperature_says_its_source_and_its_age() {
    let (dir, report) = resources();
    // 5.0 under OpenHarmony's policy: no sysfs zone lists; the report changed meanwhile.
    assert_eq!(report.actual("R-04"), Some("41°C"));
    let said = evidence(&report, "R-04");
    assert!(
        said.contains("source: ThermalService's report at the visit's end, its driver's last poll, refreshed during the visit: at most 30 s old")
            && said.contains("the shell could not list /sys/class/thermal"),
        "{said}"
    );
    // A vendor's policy lets the shell read the zones: read live, one flaky zone left out.
    let unlisted = "cat: /sys/class/thermal/thermal_zone*/type: No such file or directory\\ncat: /sys/class/thermal/thermal_zone*/temp: No such file or directory\\n/sys/class/thermal/thermal_zone*\\n";
    let live = doctored(
        dir.path(),
        "notes-resources",
        "live",
        &[(
            unlisted,
            "/sys/class/thermal/thermal_zone0 soc_thermal 41500\\ncat: /sys/class/thermal/thermal_zone1/temp: I/O error\\n/sys/class/thermal/thermal_zone1 gpu\\n/sys/class/thermal/thermal_zone2 shell_front 36000\\n",
        )],
    );
    let (_, report, _) = audited(dir.path(), &live, "live-out", &[]);
    let report = report.unwrap_or_else(|| panic!("no report"));
    assert_eq!(report.actual("R-04"), Some("41.5°C"));
    let said = evidence(&report, "R-04");
    assert!(
        said.contains("source: sysfs, read live at the visit's end: hottest of 2 zone(s)")
            && said.contains("not read: `cat: /sys/class/thermal/thermal_zone1/temp: I/O error`"),
        "{said}"
    );
    // The same report at the start and the end: still the driver's last poll, its age bound
    // said (a stable phone is read).
    let stable = doctored(
        dir.path(),
        "notes-resources",
        "stable",
        &[(
            "Type: soc_thermal\\nTemperature: 36500\\nType: shell_front\\nTemperature: 33000",
            "Type: soc_thermal\\nTemperature: 41000\\nType: shell_front\\nTemperature: 36000",
        )],
    );
    let (_, report, _) = audited(dir.path(), &stable, "stable-out", &[]);
    let report = report.unwrap_or_else(|| panic!("no report"));
    assert_eq!(report.actual("R-04"), Some("41°C"));
    assert!(
        evidence(&report, "R-04").contains("unchanged since the visit began: at most 30 s old"),
        "{report:?}"
    );
}

/// The screen lock is read on every release (before 5.1 its line has no user id; from 5.1 the
/// foreground user's line decides), and what BatteryService prints when it could not read a
/// value, or its driver's fallbacks, is unknown, never a number or a state.
#[test]
fn state_readings_hold_on_every_release() {
    let dir = crate::support::frozen_example();
    // 3.2 to 5.0.3 (the bundled phone, API 12): `screenLocked \t\t<state>\t\twhether …`.
    let (code, _, said) = audited(
        dir.path(),
        &repo("device-fixtures/notes-pass"),
        "lock-out",
        &["--require", "screen-lock: off"],
    );
    assert_eq!(code, 0, "{said}");
    for (from, to, condition, said_why) in [
        (
            "temperature: 300 ",
            "temperature: -1 ",
            "battery-temperature <= 40",
            "`temperature: -1`: INVALID",
        ),
        (
            "capacity: 90 ",
            "capacity: 0 ",
            "battery >= 10%",
            "`capacity: 0`",
        ),
        ("present: 1 ", "present: 0 ", "battery >= 10%", "no battery"),
        // 5.0+ with the battery driver down: its placeholders are no state.
        (
            "temperature: 300 ",
            "temperature: 100 ",
            "charging: off",
            "`chargingStatus: 0` beside `temperature: 100`",
        ),
    ] {
        let capture = doctored(
            dir.path(),
            "notes-pass",
            &format!("battery-{to}"),
            &[(from, to)],
        );
        let (code, _, said) = audited(
            dir.path(),
            &capture,
            &format!("out-{to}"),
            &["--require", condition],
        );
        assert_eq!(code, 3, "{to}: {said}");
        assert!(
            said.contains("not ready: unknown") && said.contains(said_why),
            "{to}: {said}"
        );
    }
}

/// `inspect` shows each of these files as the audit reads it, and why a value was not read.
#[test]
fn inspect_shows_what_the_audit_reads_and_why_not() {
    let (dir, _) = resources();
    let visit = |name: &str| -> String {
        dir.path()
            .join("out/evidence/FMR0223C13000649/1")
            .join(name)
            .display()
            .to_string()
    };
    assert!(Path::new(&visit("power/battery.txt")).is_file());
    Test::new(dir.path())
        .args([
            "inspect",
            "hidumper",
            "--kind",
            "thermal",
            &visit("temperature/thermal.txt"),
        ])
        .stdout_contains("sysfs: not read: the shell could not list /sys/class/thermal")
        .stdout_contains("soc_thermal")
        .run();
    Test::new(dir.path())
        .args([
            "inspect",
            "hidumper",
            "--kind",
            "battery",
            &visit("power/battery.txt"),
        ])
        .stdout_contains("battery: 90%, discharging, plugged none, 30 °C")
        .run();
    let invalid = dir.path().join("battery-invalid.txt");
    fs::write(
        &invalid,
        fs::read_to_string(visit("power/battery.txt"))
            .unwrap()
            .replace("temperature: 300", "temperature: -1"),
    )
    .unwrap();
    Test::new(dir.path())
        .args([
            "inspect",
            "hidumper",
            "--kind",
            "battery",
            invalid.to_str().unwrap(),
        ])
        .stdout_contains("temperature unknown")
        .stdout_contains("unknown: `temperature: -1`: INVALID")
        .run();
    Test::new(dir.path())
        .args([
            "inspect",
            "state",
            dir.path()
                .join("out/evidence/FMR0223C13000649/state-before.txt")
                .to_str()
                .unwrap(),
        ])
        .stdout_contains("state: battery 90% discharging")
        .run();
    let cpu = frozen_fixture("packs/cpu.yaml");
    audited(cpu.path(), &repo("device-fixtures/notes-cpu"), "out", &[]);
    Test::new(cpu.path())
        .args([
            "inspect",
            "cpu",
            cpu.path()
                .join("out/evidence/FMR0223C13000649/1/cpu/cpu.txt")
                .to_str()
                .unwrap(),
        ])
        .stdout_contains("12.00% of all cores (96.00% of one core)")
        .run();
}
