//! A phone of each release family, through fake-hdc (a device, never a replay): the stand-in
//! answers as that release's production shell does under OpenHarmony's policy
//! (device-fixtures/access.yaml), so a reading the policy refuses fails here, not on a user's
//! phone. `dwpipe probes --api-level N` says the same before anything runs.

use std::fs;
use std::path::Path;

use dwpipe::gate::CheckResult;
use dwpipe::schema::AuditReport;

use crate::support::{
    Audited, EXIT_CODES, Ran, Test, copy_tree, device, fake_hdc, frozen_fixture, no_sleeps, read,
    replay_audit_into,
};

/// A live audit of `capture` (a folder of `dir`'s or of device-fixtures) through fake-hdc, with
/// `extra` arguments: the report and what dwpipe printed.
fn live(dir: &Path, capture: &str, out: &str, extra: &[&str]) -> (AuditReport, String) {
    let own = dir.join(format!("hdc-{out}"));
    fs::create_dir_all(&own).unwrap();
    let phone = device(&own, capture, "PHONE01", false);
    let hdc = fake_hdc(&own, "hdc", &[phone], "");
    let playbooks = no_sleeps(&own);
    let Ran { stdout, stderr, .. } = Test::new(dir)
        .args(["audit", "--pack", "pack.lock.json", "--device", "PHONE01"])
        .args(["--hdc", hdc.to_str().unwrap(), "--playbooks", &playbooks])
        .args(["--out", out])
        .args(extra)
        .status_in(EXIT_CODES)
        .run();
    let path = dir.join(out).join("audit-1.json");
    assert!(path.exists(), "no report: {stdout}{stderr}");
    (read(&path), format!("{stdout}{stderr}"))
}

#[track_caller]
fn says(report: &AuditReport, id: &str, result: CheckResult, said: &str) {
    let check = &report.check(id).check;
    assert_eq!(check.result, result, "{id}: {}", check.evidence);
    assert!(check.evidence.contains(said), "{id}: {}", check.evidence);
}

#[test]
fn each_release_reads_what_its_policy_lets_the_shell_read() {
    use CheckResult::{Pass, Unverified};
    let dir = frozen_fixture("packs/releases.yaml");
    let dir = dir.path();
    // The app at 12/14/13 % of eight cores (104 % of one); the GPU at 45 %, 1600 mW, 41 °C.
    for (release, expected) in [
        (
            "3.2",
            [
                (Pass, "13.00% of all cores (104.00% of one core)"),
                (Pass, "104.00% of one core"),
                (Unverified, "exited 134: terminate called after throwing"),
                (Unverified, "is empty: SmartPerf could not read its node"),
                (
                    Pass,
                    "no zone read (`cat: /sys/class/thermal/thermal_zone0/type: Permission denied`)",
                ),
            ],
        ),
        (
            "4.0",
            [
                (Unverified, "`cat: /proc/stat: Permission denied`"),
                (Pass, "the share of all cores is unknown"),
                (Unverified, "exited 134: terminate called after throwing"),
                (Unverified, "is empty: SmartPerf could not read its node"),
                (Pass, "the shell could not list /sys/class/thermal"),
            ],
        ),
        (
            "4.1",
            [
                (Unverified, "the share of one core was 104.00%"),
                (Pass, "104.00% of one core"),
                (Pass, "45%"),
                (Pass, "agrees in unit"),
                (Pass, "unchanged since the visit began: at most 30 s old"),
            ],
        ),
        (
            "5.0",
            [
                (Pass, "13.00% of all cores"),
                (Pass, "104.00% of one core"),
                (Pass, "45%"),
                (Pass, "400 mA drawn from the battery at 4 V"),
                (Pass, "source: ThermalService's report"),
            ],
        ),
        (
            "5.1",
            [
                (Pass, "13.00% of all cores"),
                (Pass, "104.00% of one core"),
                (Pass, "45%"),
                (Pass, "400 mA drawn from the battery at 4 V"),
                (Pass, "source: ThermalService's report"),
            ],
        ),
    ] {
        let capture = format!("releases-{release}");
        // 5.1 has a private space locked behind the foreground user: the screen is unlocked.
        let (report, said) = live(dir, &capture, &capture, &["--require", "screen-lock: off"]);
        for (id, (result, evidence)) in ["P-05", "P-07", "R-01", "R-03", "R-04"]
            .iter()
            .zip(expected)
        {
            let check = &report.check(id).check;
            let runs = serde_json::to_string(&report.check(id).measurements).unwrap();
            assert_eq!(
                check.result, result,
                "{release} {id}: {} {said}",
                check.evidence
            );
            assert!(
                check.evidence.contains(evidence)
                    || runs.contains(evidence)
                    || report.actual(id) == Some(evidence),
                "{release} {id}: {} / {runs}",
                check.evidence
            );
        }
        // The capture is the phone's own words: its replay reads alike.
        let replayed = format!("{capture}-replay");
        replay_audit_into(
            dir,
            &crate::support::delivery::repo(&format!("device-fixtures/{capture}")),
            &replayed,
        )
        .args(["--require", "screen-lock: off"])
        .status_in(EXIT_CODES)
        .run();
        let replayed: AuditReport = read(dir.join(&replayed).join("audit-1.json"));
        for id in ["P-05", "P-07", "R-01", "R-03", "R-04"] {
            assert_eq!(replayed.result(id), report.result(id), "{release} {id}");
        }
    }
}

/// A capture kinder than its phone (a 4.1 phone whose recording reads /proc/stat) is answered
/// as the phone would: the share of all cores is not read, the refusal quoted; the recording
/// itself, replayed, is what it recorded.
#[test]
fn a_stand_in_phone_refuses_what_its_release_refuses() {
    let dir = frozen_fixture("packs/cpu.yaml");
    let dir = dir.path();
    let kind = dir.join("kind-4.1");
    copy_tree(
        &crate::support::delivery::repo("device-fixtures/notes-cpu"),
        &kind,
    );
    let identity = fs::read_to_string(kind.join("device.yaml")).unwrap();
    fs::write(
        kind.join("device.yaml"),
        identity.replace("api-level: 12", "api-level: 11"),
    )
    .unwrap();
    let (report, _) = live(dir, kind.to_str().unwrap(), "live", &[]);
    says(
        &report,
        "P-05",
        CheckResult::Unverified,
        "/proc/stat: `cat: /proc/stat: Permission denied`",
    );
    replay_audit_into(dir, &kind, "replayed").status(0).run();
    let replayed: AuditReport = read(dir.join("replayed/audit-1.json"));
    assert_eq!(replayed.actual("P-05"), Some("13%"));
}

/// `dwpipe probes --api-level N` says, before anything runs, which probes the release lets the
/// shell read, and why not, with the policy's lines.
#[test]
fn probes_say_what_a_release_lets_the_shell_read() {
    let dir = tempfile::tempdir().unwrap();
    let Ran { stdout, .. } = Test::new(dir.path())
        .args(["probes", "--api-level", "11"])
        .run();
    assert!(stdout.contains("OpenHarmony 4.1 (API 11)"), "{stdout}");
    let from = stdout
        .find("perf.cpu  (")
        .unwrap_or_else(|| panic!("{stdout}"));
    let to = stdout
        .find("perf.cpu-background  (")
        .unwrap_or_else(|| panic!("{stdout}"));
    let cpu = &stdout[from..to];
    assert!(
        cpu.contains("on this release: readable in part")
            && cpu.contains("/proc/stat: denied")
            && cpu.contains("still read: the share of one core"),
        "{cpu}"
    );
    let Ran { stdout, .. } = Test::new(dir.path())
        .args(["probes", "--api-level", "9", "--json"])
        .run();
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let power = json["probes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == "perf.power")
        .unwrap();
    assert_eq!(power["release"]["readable"], "no", "{power}");
    Test::new(dir.path())
        .args(["probes", "--api-level", "7"])
        .status(2)
        .stderr_contains("E_PROBES_RELEASE")
        .run();
    // doctor says it of the device it checks (here a capture of a 3.2 phone).
    let capture = crate::support::delivery::repo("device-fixtures/releases-3.2");
    Test::new(dir.path())
        .args(["doctor", "--replay", capture.to_str().unwrap()])
        .stdout_contains("On OpenHarmony 3.2 (API 9), by OpenHarmony's own SELinux policy")
        .stdout_contains("perf.power: not readable")
        .stdout_contains("SmartPerf's battery current and voltage (SP_daemon -p): denied")
        .stdout_contains("perf.cpu: readable\n")
        .run();
}

/// What each reading of a production phone's output is, through `inspect`, as an audit reads
/// it (tests/fixtures/production, from the printers' formats and the policy's lines).
#[test]
fn inspect_reads_what_a_production_phone_prints() {
    let dir = tempfile::tempdir().unwrap();
    let file = |name: &str| {
        crate::support::fixture(&format!("production/{name}"))
            .display()
            .to_string()
    };
    let battery = file("battery.txt");
    for (args, status, said) in [
        (
            vec![
                "smartperf",
                "--kind",
                "power",
                &file("power-ma.txt"),
                "--battery",
                &battery,
            ],
            0,
            "power: 1234.937 mW (290.5 mA at 4.251 V) over 2 sample(s); BatteryService's nowCurrent -290 mA as the sampling began agrees in unit",
        ),
        (
            vec!["smartperf", "--kind", "power", &file("power-microamps.txt")],
            2,
            "outside what the device can report (-20000 to 20000 mA)",
        ),
        (
            vec![
                "smartperf",
                "--kind",
                "power",
                &file("power-millivolts.txt"),
            ],
            2,
            "outside a Li-ion cell's range",
        ),
        (
            vec![
                "smartperf",
                "--kind",
                "gpu",
                &file("gpu-load-node-missing.txt"),
            ],
            2,
            "gpuLoad=0.000000 in all 3 samples while the GPU ran at 279 MHz",
        ),
        (
            vec!["cpu", &file("cpu.txt")],
            0,
            "12.00% of all cores (96.00% of one core)",
        ),
        (
            vec!["cpu", &file("cpu-stat-denied.txt")],
            0,
            "96.00% of one core; the share of all cores is unknown (/proc/stat: `cat: /proc/stat: Permission denied`)",
        ),
        (
            vec![
                "hidumper",
                "--kind",
                "battery",
                &file("battery-driver-down.txt"),
            ],
            0,
            "battery: 80%, unknown, plugged unknown, temperature unknown",
        ),
        (
            vec!["state", &file("state-two-users.txt")],
            0,
            "screen unlocked",
        ),
        (
            vec!["state", &file("state-two-users-no-accounts.txt")],
            0,
            "the users' screens differ (user 100 unlocked, user 101 locked) and the foreground user was not read",
        ),
        (
            vec![
                "hidumper",
                "--kind",
                "thermal",
                &file("thermal-unlisted.txt"),
            ],
            0,
            "sysfs: not read: the shell could not list /sys/class/thermal",
        ),
        (
            vec![
                "hidumper",
                "--kind",
                "thermal",
                &file("thermal-vendor-eio.txt"),
            ],
            0,
            "not read: `cat: /sys/class/thermal/thermal_zone1/temp: I/O error`",
        ),
    ] {
        let Ran { stdout, stderr, .. } = Test::new(dir.path())
            .args(["inspect"])
            .args(args.iter().copied())
            .status(status)
            .run();
        assert!(
            stdout.contains(said) || stderr.contains(said),
            "{args:?}: {stdout}{stderr}"
        );
    }
}
