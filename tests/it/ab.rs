//! Same-device A/B through the real binary and fake-hdc serving devices with two builds of the
//! notes app (device-fixtures/ab-phone-*: apps.yaml, each build answered by a capture whose
//! cold starts come from a known distribution): a 10 % slower candidate regresses, one within
//! the floor is the same, noisy arms escalate to --max-runs and end inconclusive, a lab of four
//! devices finds the one that regressed, and the device is left with the candidate after an
//! error and after a signal.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::support::{Ran, Test, fake_hdc, frozen_fixture, no_sleeps, read};
use dwpipe::gate::Verdict;
use dwpipe::schema::{
    AbLabReport, AbRecord, AuditReport, BuildVersion, Comparison, LabVerdict, Outcome, Regression,
    Restored,
};

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

pub(crate) fn hap(version: &str) -> String {
    repo(&format!("device-fixtures/haps/notes-{version}.hap"))
        .display()
        .to_string()
}

/// The arguments of an A/B session of the cold-start pack on `target` (`--device S` or
/// `--devices all`), 8 runs per arm at first, 16 at most.
pub(crate) fn ab_args<'a>(
    dir: &Path,
    hdc: &'a Path,
    target: &[&'a str],
    max_runs: &'a str,
) -> Vec<String> {
    let mut args: Vec<String> = vec!["--hdc".into(), hdc.display().to_string(), "audit".into()];
    args.extend(target.iter().map(|a| (*a).to_owned()));
    args.extend(
        [
            "--pack",
            "pack.lock.json",
            "--baseline-hap",
            &hap("1.0"),
            "--candidate-hap",
            &hap("1.1"),
            "--runs",
            "8",
            "--max-runs",
            max_runs,
            "--out",
            "out",
            "--playbooks",
            &no_sleeps(dir),
        ]
        .map(str::to_owned),
    );
    args
}

/// An A/B session on one of the ab-phone fixtures, to be told its exit code and run.
fn session_of(dir: &Path, phone: &str, serial: &str, max_runs: &str) -> Test {
    let hdc = fake_hdc(
        dir,
        "hdc",
        &[repo(&format!("device-fixtures/{phone}"))
            .display()
            .to_string()],
        "",
    );
    Test::new(dir).args(ab_args(dir, &hdc, &["--device", serial], max_runs))
}

/// An A/B session that reached its verdicts: `(exit code, ab.json, stderr)`.
#[track_caller]
fn session(dir: &Path, phone: &str, serial: &str, max_runs: &str) -> (i32, AbRecord, String) {
    let Ran { code, stderr, .. } = session_of(dir, phone, serial, max_runs)
        .status_in(&[0, 1])
        .run();
    (code, read(dir.join("out/ab.json")), stderr)
}

/// What fake-hdc says the device has installed.
fn installed(dir: &Path, serial: &str) -> String {
    fs::read_to_string(dir.join(format!("state/{serial}.installed"))).unwrap_or_default()
}

#[test]
fn a_ten_percent_slower_candidate_regresses_against_the_release_on_the_same_device() {
    let dir = frozen_fixture("packs/cold-start.yaml");
    let (code, record, stderr) = session(dir.path(), "ab-phone-4", "AB0PHONE04", "16");
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(record.regression, Regression::Regressed, "{record:?}");
    // Both verdicts are reported: the candidate still meets the pack's 1100 ms.
    assert_eq!(record.absolute, Verdict::Pass);
    assert_eq!(record.left_installed, Restored::Candidate);
    assert_eq!(installed(dir.path(), "AB0PHONE04"), "notes-1.1.hap");
    // Each build named as the release engineer knows it: its HAP's version.
    assert_eq!(
        record.candidate.version,
        Some(BuildVersion::Read {
            name: "1.1.0".to_owned(),
            code: 1_001_000
        })
    );
    let page = fs::read_to_string(dir.path().join("out/ab.html")).unwrap();
    // The builds by name, version and digest: no path of this machine in what is published.
    let haps = repo("device-fixtures/haps").display().to_string();
    for published in [
        "out/ab.html",
        "out/ab.json",
        "out/compare.html",
        "out/compare.json",
    ] {
        let text = fs::read_to_string(dir.path().join(published)).unwrap();
        assert!(
            !text.contains(&haps),
            "{published} names the host's path: {text}"
        );
    }
    assert_eq!(record.baseline.hap, "notes-1.0.hap");
    assert!(
        page.contains("version 1.0.0 (code 1000000)")
            && page.contains("version 1.1.0 (code 1001000)"),
        "{page}"
    );
    // Alternating blocks of 4 runs, each after its own install and warm-up.
    let arms: Vec<&str> = record.blocks.iter().map(|b| b.arm.as_str()).collect();
    assert_eq!(arms, ["baseline", "candidate", "baseline", "candidate"]);
    assert_eq!(record.blocks[2].runs, [5, 8]);
    assert_eq!(stderr.matches("installing the").count(), 4, "{stderr}");
    // The known amount: the arms were drawn around 700 and 770 ms.
    let comparison: Comparison = read(dir.path().join("out/compare.json"));
    let p01 = &comparison.criteria[0];
    let delta = p01.delta.unwrap();
    assert!((55.0..85.0).contains(&delta), "{p01:?}");
    assert_eq!(p01.outcome, Some(Outcome::Different));
    assert_eq!((p01.baseline.n, p01.candidate.n), (8, 8));
    // The warm-ups (run 0, about 1100 ms) are kept but never counted.
    assert!(
        dir.path()
            .join("out/warm-up/1-baseline/cold-start")
            .is_dir()
    );
    let candidate: AuditReport = read(dir.path().join("out/candidate/audit-1.json"));
    let runs = &candidate.checks[0].measurements[0].runs;
    assert_eq!(runs.len(), 8);
    assert!(
        runs.iter().all(|r| r
            .value
            .as_ref()
            .and_then(dwpipe::audit::Value::as_number)
            .unwrap()
            < 1000.0),
        "{runs:?}"
    );
    // Each arm's audit records the HAP it measured.
    let sha = dwpipe::hash::sha256_hex(&fs::read(hap("1.1")).unwrap());
    assert_eq!(candidate.inputs.as_ref().unwrap().installed[0].sha256, sha);
    // The comparison and both audits hold up against their evidence.
    Test::new(dir.path())
        .args([
            "verify-evidence",
            "out/compare.json",
            "--pack",
            "pack.lock.json",
        ])
        .status(0)
        .run();
}

#[test]
fn a_candidate_within_the_floor_is_the_same_and_passes() {
    let dir = frozen_fixture("packs/cold-start.yaml");
    let (code, record, stderr) = session(dir.path(), "ab-phone-1", "AB0PHONE01", "16");
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(record.regression, Regression::Same, "{record:?}");
    assert_eq!(record.candidate.runs, 8);
    assert!(!stderr.contains("still unknown"), "{stderr}");
    // Its record, imported, names its arms only while it says what its files give: one
    // relabelled `regressed` is refused, with why.
    let path = dir.path().join("out/ab.json");
    let mut doctored: serde_json::Value = read(&path);
    doctored["regression"] = "regressed".into();
    fs::write(&path, doctored.to_string()).unwrap();
    Test::new(dir.path())
        .args(["history", "--history", "h.sqlite", "import", "out"])
        .status(2)
        .stderr_contains("it says the candidate regressed, its arms' audits give same")
        .run();
}

#[test]
fn noisy_arms_get_more_runs_up_to_the_cap_then_end_inconclusive() {
    let dir = frozen_fixture("packs/cold-start.yaml");
    let (code, record, stderr) = session(dir.path(), "ab-phone-noisy", "AB0NOISY01", "16");
    assert_eq!(code, 1, "inconclusive is never a pass: {stderr}");
    assert_eq!(record.regression, Regression::Inconclusive, "{record:?}");
    assert!(
        stderr.contains("P-01 still unknown: 16 runs per arm"),
        "{stderr}"
    );
    assert_eq!(record.baseline.runs, 16);
    assert_eq!(record.candidate.runs, 16);
    assert_eq!(record.blocks.len(), 8);
    assert_eq!(installed(dir.path(), "AB0NOISY01"), "notes-1.1.hap");
}

#[test]
fn a_device_that_vanishes_mid_session_is_named_with_what_it_was_left_with() {
    let dir = frozen_fixture("packs/cold-start.yaml");
    // ab-phone-4 whose baseline vanishes at its 6th run (the second baseline block).
    let root = dir.path().join("fixtures");
    for name in ["ab-phone-4", "ab-base", "ab-slower"] {
        crate::support::copy_tree(&repo(&format!("device-fixtures/{name}")), &root.join(name));
    }
    let transcript = root.join("ab-base/transcript.yaml");
    let text = fs::read_to_string(&transcript).unwrap().replace(
        "  - shell: hitrace --trace_finish -o /data/local/tmp/dwpipe-cold-6.ftrace\n",
        "  - shell: hitrace --trace_finish -o /data/local/tmp/dwpipe-cold-6.ftrace\n    fault: vanish\n",
    );
    fs::write(&transcript, text).unwrap();
    let hdc = fake_hdc(
        dir.path(),
        "hdc",
        &[root.join("ab-phone-4").display().to_string()],
        "",
    );
    let args = ab_args(dir.path(), &hdc, &["--device", "AB0PHONE04"], "16");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let stderr = Test::new(dir.path()).args(&args).status(3).run().stderr;
    assert!(stderr.contains("the baseline audit stopped"), "{stderr}");
    // A vanished device cannot be given the candidate back, and the summary says so.
    assert!(
        stderr.contains("the candidate could not be put back"),
        "{stderr}"
    );
    assert!(!dir.path().join("out/ab.json").exists());
}

#[test]
fn a_signal_mid_session_still_leaves_the_candidate_installed() {
    let dir = frozen_fixture("packs/cold-start.yaml");
    let hdc = fake_hdc(
        dir.path(),
        "hdc",
        &[repo("device-fixtures/ab-phone-4").display().to_string()],
        "DWPIPE_FAKE_HDC_LATENCY=30ms",
    );
    let args = ab_args(dir.path(), &hdc, &["--device", "AB0PHONE04"], "16");
    let child = crate::support::dwpipe_command()
        .args(&args)
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Under way on the baseline's first block.
    let deadline = Instant::now() + Duration::from_secs(60);
    let first_run = dir.path().join("out/baseline/evidence/AB0PHONE04/1");
    while !first_run.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(installed(dir.path(), "AB0PHONE04"), "notes-1.0.hap");
    crate::support::delivery::signal(&child, libc::SIGTERM);
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert_eq!(
        installed(dir.path(), "AB0PHONE04"),
        "notes-1.1.hap",
        "{stderr}"
    );
    assert!(!dir.path().join("out/ab.json").exists());
}

#[test]
fn a_lab_compares_each_device_with_itself_and_finds_the_one_that_regressed() {
    let dir = frozen_fixture("packs/cold-start.yaml");
    let phones: Vec<String> = (1..=4)
        .map(|i| {
            let phone = repo(&format!("device-fixtures/ab-phone-{i}"));
            format!("10.0.0.1:8710={}", phone.display())
        })
        .collect();
    let hdc = fake_hdc(dir.path(), "hdc", &phones, "");
    // A second server nobody runs: listed in the matrix, its devices never shown to pass.
    let target = [
        "--devices",
        "all",
        "--server",
        "10.0.0.1:8710",
        "--server",
        "10.0.0.9:8710",
    ];
    let args = ab_args(dir.path(), &hdc, &target, "16");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let Ran { stdout, .. } = Test::new(dir.path()).args(&args).status(1).run();
    let matrix: AbLabReport = read(dir.path().join("out/ab-lab.json"));
    assert_eq!(matrix.verdict, LabVerdict::Fail);
    assert_eq!(matrix.unreachable[0].server, "10.0.0.9:8710");
    let markdown = fs::read_to_string(dir.path().join("out/ab-lab.md")).unwrap();
    assert!(
        markdown.contains("hdc server `10.0.0.9:8710` did not answer"),
        "{markdown}"
    );
    assert!(
        stdout.contains("hdc server 10.0.0.9:8710 did not answer"),
        "{stdout}"
    );
    let verdicts: Vec<&str> = matrix
        .devices
        .iter()
        .map(|d| d.regression.map_or("-", |r| r.as_str()))
        .collect();
    assert_eq!(verdicts, ["same", "same", "same", "regressed"]);
    // The A/B lab has its page and its JUnit, as a plain lab does: the regressed device fails
    // its suite, the silent server is an error.
    let page = fs::read_to_string(dir.path().join("out/ab-lab.html")).unwrap();
    assert!(
        page.contains("href=\"AB0PHONE04/ab.html\"") && page.contains("class=\"banner fail\""),
        "{page}"
    );
    // The banner counts every way a device fails the gate, inconclusive ones included.
    assert!(
        page.contains(
            "1 regressed against the baseline (AB0PHONE04), 0 inconclusive (measure more runs)"
        ),
        "{page}"
    );
    // Both builds named as the release engineer knows them.
    assert!(
        page.contains("notes-1.0.hap · version 1.0.0 (code 1000000) · sha256:")
            && page.contains("notes-1.1.hap · version 1.1.0 (code 1001000) · sha256:"),
        "{page}"
    );
    let junit = fs::read_to_string(dir.path().join("out/ab-lab-junit.xml")).unwrap();
    // Each criterion's case carries its statement and the device time its runs took.
    assert!(
        junit.contains("classname=\"AB0PHONE04.regression\" name=\"P-01: ")
            && junit.contains("regression\" name=\"P-01: ")
            && junit
                .split("AB0PHONE04.regression")
                .nth(1)
                .is_some_and(|c| c
                    .split('>')
                    .next()
                    .is_some_and(|tag| tag.contains(" time=\""))),
        "{junit}"
    );
    assert!(
        junit.contains("<testsuite name=\"dwpipe A/B AB0PHONE04\" tests=\"2\" failures=\"1\"")
            && junit.contains("<testsuite name=\"dwpipe hdc server 10.0.0.9:8710\""),
        "{junit}"
    );
    let fourth = &matrix.devices[3].criteria[0];
    assert!(
        fourth
            .delta_pct
            .is_some_and(|pct| (5.0..15.0).contains(&pct)),
        "{fourth:?}"
    );
    assert!(stdout.contains("regressed +"), "{stdout}");
    for i in 1..=4 {
        assert_eq!(
            installed(dir.path(), &format!("10.0.0.1_8710_AB0PHONE0{i}")),
            "notes-1.1.hap"
        );
        assert!(
            dir.path()
                .join(format!("out/AB0PHONE0{i}/compare.json"))
                .is_file()
        );
    }
}

#[test]
fn a_session_refuses_an_out_folder_holding_an_earlier_one() {
    let dir = frozen_fixture("packs/cold-start.yaml");
    fs::create_dir_all(dir.path().join("out/baseline")).unwrap();
    session_of(dir.path(), "ab-phone-1", "AB0PHONE01", "16")
        .status(2)
        .stderr_contains("E_AB_OUT_TAKEN")
        .run();
    assert_eq!(
        installed(dir.path(), "AB0PHONE01"),
        "",
        "nothing was installed"
    );
}
