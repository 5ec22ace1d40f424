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

/// perf.cpu is measured over the window dwpipe controls (2.5 s of device uptime here, from two
/// reads of /proc) and says so; its unit is a share of every core unless the criterion asks
/// for one core's.
#[test]
fn the_cpu_is_read_over_its_own_window_in_the_unit_the_criterion_names() {
    let dir = frozen_fixture("packs/cpu.yaml");
    let (code, report, said) = audited(dir.path(), &repo("device-fixtures/notes-cpu"), "out", &[]);
    let report = report.unwrap_or_else(|| panic!("no report: {said}"));
    assert_eq!(code, 0, "{said}");
    assert_eq!(report.actual("P-05"), Some("13%"));
    let runs = serde_json::to_string(&report.check("P-05").measurements[0].runs).unwrap();
    assert!(
        runs.contains("over 2.500 s (device uptime 120.00 → 122.50 s)")
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

/// The power is the phone's draw in the kernel's units with their sign: a small net current is
/// µA, never mA; a charging battery is no draw; a plugged phone is measured only where the
/// audit says how (`charging: off`), checked before the audit and read again at the visit;
/// SmartPerf with developer mode off says so.
#[test]
fn power_is_the_phones_draw_not_its_charge() {
    let (dir, report) = resources();
    assert_eq!(report.actual("R-03"), Some("1600mW"));
    let small = doctored(
        dir.path(),
        "notes-resources",
        "small",
        &[
            ("currentNow=-350000", "currentNow=-5000"),
            ("currentNow=-450000", "currentNow=-5000"),
            ("currentNow=-400000", "currentNow=-5000"),
        ],
    );
    let (_, report, _) = audited(dir.path(), &small, "small-out", &[]);
    let report = report.unwrap_or_else(|| panic!("no report"));
    assert_eq!(report.actual("R-03"), Some("20mW"), "5 mA at 4 V");
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
            ("currentNow=-350000", "currentNow=350000"),
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

/// The hottest zone is the visit's: read live from sysfs; where the shell cannot read sysfs,
/// from ThermalService's report only when it changed during the visit (the driver's last poll
/// may be older than the visit).
#[test]
fn a_temperature_is_never_older_than_its_visit() {
    let (dir, report) = resources();
    assert_eq!(report.actual("R-04"), Some("41.5°C"));
    assert!(evidence(&report, "R-04").contains("read live from sysfs"));
    let denied = "/sys/class/thermal/thermal_zone0 soc_thermal 41500\\n/sys/class/thermal/thermal_zone1 shell_front 36000\\n";
    let no_sysfs = "/sys/class/thermal/thermal_zone0 cat: /sys/class/thermal/thermal_zone0/type: Permission denied\\n";
    let refreshed = doctored(
        dir.path(),
        "notes-resources",
        "report",
        &[(denied, no_sysfs)],
    );
    let (_, report, _) = audited(dir.path(), &refreshed, "report-out", &[]);
    let report = report.unwrap_or_else(|| panic!("no report"));
    assert_eq!(report.actual("R-04"), Some("41°C"));
    assert!(
        evidence(&report, "R-04").contains("refreshed during the visit"),
        "{report:?}"
    );
    // The same report at the start and the end: possibly older than the visit.
    let frozen = doctored(
        dir.path(),
        "notes-resources",
        "frozen",
        &[
            (denied, no_sysfs),
            (
                "Type: soc_thermal\\nTemperature: 36500\\nType: shell_front\\nTemperature: 33000",
                "Type: soc_thermal\\nTemperature: 41000\\nType: shell_front\\nTemperature: 36000",
            ),
        ],
    );
    let (_, report, _) = audited(dir.path(), &frozen, "frozen-out", &[]);
    let report = report.unwrap_or_else(|| panic!("no report"));
    assert_eq!(report.result("R-04"), CheckResult::Unverified);
    assert!(
        evidence(&report, "R-04").contains("may be older than the visit"),
        "{report:?}"
    );
}

/// The screen lock is read on every release (before 5.1 its line has no user id), and what
/// BatteryService prints when it could not read a value is unknown, never a number.
#[test]
fn state_readings_hold_on_every_release() {
    let dir = crate::support::frozen_example();
    // 3.2 to 5.0.3: `screenLocked \t\t<state>\t\twhether there is lock screen status`.
    let lock_5_0 = doctored(
        dir.path(),
        "notes-pass",
        "lock-5.0",
        &[(
            " * deviceLocked  \\t\\tfalse\\t\\t100\\n * screenLocked  \\t\\tfalse\\t\\t100\\n",
            " * deviceLocked  \\t\\tfalse\\t\\twhether there is device locked\\n * screenLocked  \\t\\tfalse\\t\\twhether there is lock screen status\\n",
        )],
    );
    let (code, _, said) = audited(
        dir.path(),
        &lock_5_0,
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
        .stdout_contains("read live from sysfs:")
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
