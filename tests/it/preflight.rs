//! Preflight through the real binary: `deliver` and `audit` resolve everything they need
//! before anything is dispatched, report every missing piece at once (exit 3), and `dwpipe
//! doctor` prints the same checks as a table.

use std::fs;

use crate::support::delivery::{SPACING, project};
use crate::support::{EXIT_CODES, Ran, Test, fake_hdc};

/// An agent that leaves a marker when it runs at all.
const MARKING_AGENT: &str = r#"[sh, -c, "touch ../agent-ran", x]"#;

#[test]
fn a_delivery_with_missing_tools_says_all_of_them_before_anything_runs() {
    let dir = project(MARKING_AGENT, SPACING, "notes-pass", "");
    // A device target, no hdc, a verification program that is not installed.
    let config = fs::read_to_string(dir.path().join("dwpipe.yaml"))
        .unwrap()
        .replace("argv: [grep,", "argv: [dwpipe-no-such-build-tool,");
    let config = config.split("device:").next().unwrap().to_owned()
        + "device:\n  serial: FMR0223C13000649\n";
    fs::write(dir.path().join("dwpipe.yaml"), config).unwrap();
    Test::new(dir.path())
        .args([
            "deliver",
            "--pack",
            "pack.yaml",
            "--hdc",
            "dwpipe-no-such-hdc",
        ])
        .status(3)
        .stderr_contains("error[E_PREFLIGHT_VERIFY]: verify: spacing")
        .stderr_contains("`dwpipe-no-such-build-tool` is not on PATH")
        .stderr_contains("error[E_HDC_NOT_FOUND]")
        .stderr_contains("preflight: 2 missing; nothing was started")
        .run();
    assert!(
        !dir.path().join("agent-ran").exists(),
        "the agent never started"
    );
    assert!(
        !dir.path().join(".dwpipe/runs").exists(),
        "no run folder is left for a run that never began"
    );
}

#[test]
fn a_device_that_does_not_answer_is_missing_and_a_lab_still_audits_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let pack = crate::support::delivery::repo("examples/notes/pack.yaml");
    Test::new(dir.path())
        .args(["freeze", pack.to_str().unwrap()])
        .run();
    let phone = crate::support::device(dir.path(), "notes-pass", "PHONE-A", false);
    let hdc = fake_hdc(dir.path(), "hdc", std::slice::from_ref(&phone), "");
    let hdc = hdc.to_str().unwrap();
    // One named device that no server has: missing, nothing audited.
    Test::new(dir.path())
        .args([
            "audit",
            "--pack",
            "pack.lock.json",
            "--device",
            "NOT-THERE",
            "--hdc",
            hdc,
            "--out",
            "one",
        ])
        .status(3)
        .stderr_contains("error[E_DEVICE_NOT_FOUND]")
        .run();
    assert!(!dir.path().join("one/evidence").exists());
    // A lab with an unreachable server: the other server's device is still audited.
    let playbooks = crate::support::no_sleeps(dir.path());
    let hdc_two = fake_hdc(
        dir.path(),
        "hdc-two",
        &[format!("127.0.0.1:8710={phone}")],
        "",
    );
    let Ran {
        code,
        stdout,
        stderr,
        ..
    } = Test::new(dir.path())
        .args([
            "audit",
            "--pack",
            "pack.lock.json",
            "--devices",
            "all",
            "--server",
            "127.0.0.1:8710",
            "--server",
            "127.0.0.9:8710",
            "--hdc",
            hdc_two.to_str().unwrap(),
            "--out",
            "lab",
            "--playbooks",
            &playbooks,
        ])
        .status_in(EXIT_CODES)
        .run();
    // Audited and passing, yet the lab is incomplete: the silent server's devices were not
    // shown to pass.
    assert_eq!(code, 3, "{stdout}{stderr}");
    assert!(
        stdout.contains("INCOMPLETE") && stdout.contains("127.0.0.9:8710 did not answer"),
        "{stdout}"
    );
    let lab: dwpipe::schema::LabReport = crate::support::read(dir.path().join("lab/lab.json"));
    assert_eq!(lab.devices[0].verdict, dwpipe::schema::DeviceVerdict::Pass);
}

#[test]
fn doctor_prints_the_checks_and_exits_3_when_something_is_missing() {
    let dir = project(MARKING_AGENT, SPACING, "notes-pass", "");
    let Ran { stdout, .. } = Test::new(dir.path())
        .args(["doctor", "--pack", "pack.yaml"])
        .status(0)
        .run();
    assert!(stdout.starts_with("TOOL"), "{stdout}");
    assert!(stdout.contains("verify: spacing"), "{stdout}");
    assert!(stdout.contains("playbook perf.cold-start"), "{stdout}");
    assert!(
        stdout.contains("3.25 px/vp"),
        "the capture is identified: {stdout}"
    );
    let stdout = Test::new(dir.path())
        .args(["doctor", "--json", "--config", "dwpipe.yaml"])
        .status(0)
        .run()
        .stdout;
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["ok"], true);
    // A config naming a device, without hdc.
    let config = fs::read_to_string(dir.path().join("dwpipe.yaml")).unwrap();
    let config = config.split("device:").next().unwrap().to_owned()
        + "device:\n  serial: FMR0223C13000649\n";
    fs::write(dir.path().join("dwpipe.yaml"), config).unwrap();
    let Ran { stdout, stderr, .. } = Test::new(dir.path())
        .args(["doctor", "--hdc", "dwpipe-no-such-hdc"])
        .status(3)
        .run();
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("hdc") && l.ends_with("missing")),
        "{stdout}"
    );
    assert!(stderr.contains("error[E_HDC_NOT_FOUND]"), "{stderr}");
    assert!(
        stderr.contains("install the HarmonyOS command-line tools"),
        "{stderr}"
    );
}
