//! A device lab through the real binary and `fake-hdc`: many devices on many servers audited in
//! parallel, one vanishing mid-run, the criterion × device matrix in every form.

use std::fs;
use std::path::Path;

use crate::support::{
    EXIT_CODES, Matrix, Ran, Test, device, fake_hdc, frozen_example, no_sleeps, parse, read,
};
use dwpipe::schema::{DeviceVerdict, LabReport, LabVerdict};

/// `dwpipe audit` of the frozen example in `dir` through a fake-hdc (`hdc`, serving
/// `captures`) with sleep-free sessions, `args` naming the devices, servers and `--out`:
/// to be told its exit code and run.
pub(crate) fn lab_audit(dir: &Path, hdc: &str, captures: &[String], args: &[&str]) -> Test {
    let hdc = fake_hdc(dir, hdc, captures, "");
    let playbooks = no_sleeps(dir);
    let mut argv = vec![
        "--hdc",
        hdc.to_str().unwrap(),
        "audit",
        "--pack",
        "pack.lock.json",
        "--playbooks",
        &playbooks,
    ];
    argv.extend_from_slice(args);
    Test::new(dir).args(argv)
}

#[test]
fn a_lab_of_eight_where_one_device_vanishes() {
    let dir = frozen_example();
    // Eight devices over two hdc servers; LAB05 vanishes during its audit.
    let captures: Vec<String> = (1..=8)
        .map(|n| {
            let serial = format!("LAB0{n}");
            let folder = device(dir.path(), "notes-pass", &serial, n == 5);
            let server = if n % 2 == 0 {
                "10.0.0.2:8710"
            } else {
                "10.0.0.1:8710"
            };
            format!("{server}={folder}")
        })
        .collect();
    let Ran { stdout, .. } = lab_audit(
        dir.path(),
        "hdc",
        &captures,
        &[
            "--devices",
            "all",
            "--server",
            "10.0.0.1:8710",
            "--server",
            "10.0.0.2:8710",
            "--jobs",
            "3",
            "--out",
            "lab",
            "--json",
        ],
    )
    .status(3)
    .run();
    let lab: LabReport = parse(&stdout);
    assert_eq!(lab.verdict, LabVerdict::Incomplete);
    let serials: Vec<&str> = lab.devices.iter().map(|d| d.serial.as_str()).collect();
    assert_eq!(
        serials,
        [
            "LAB01", "LAB03", "LAB05", "LAB07", "LAB02", "LAB04", "LAB06", "LAB08"
        ]
    );
    for device in &lab.devices {
        let serial = device.serial.as_str();
        if serial == "LAB05" {
            assert_eq!(device.verdict, DeviceVerdict::Error);
            assert!(
                device
                    .error
                    .as_deref()
                    .is_some_and(|e| e.contains("not found or not connected")),
                "{device:?}"
            );
            // What it measured before it vanished is kept.
            assert!(dir.path().join("lab/LAB05/evidence").is_dir());
            assert!(!dir.path().join("lab/LAB05/audit-1.json").exists());
        } else {
            assert_eq!(device.verdict, DeviceVerdict::Pass, "{device:?}");
            assert!(
                dir.path()
                    .join("lab")
                    .join(serial)
                    .join("audit-1.json")
                    .is_file()
            );
        }
    }
    let p01 = lab.row("P-01");
    assert_eq!(
        lab.cells("P-01"),
        ["pass", "pass", "-", "pass", "pass", "pass", "pass", "pass"]
    );

    let junit = fs::read_to_string(dir.path().join("lab/lab-junit.xml")).unwrap();
    assert_eq!(junit.matches("<testsuite ").count(), 8);
    assert!(
        junit.contains("tests=\"64\" failures=\"0\" skipped=\"0\" errors=\"1\""),
        "{junit}"
    );
    let page = fs::read_to_string(dir.path().join("lab/lab.html")).unwrap();
    // Each column says which device it is; each cell what was measured.
    assert!(
        page.contains("<th><a href=\"LAB01/report.html\">LAB01</a><br><small>ALN-AL00 · ")
            && page.contains(" · 10.0.0.1:8710</small></th>"),
        "{page}"
    );
    assert!(
        page.contains("<th>LAB05<br><small>10.0.0.1:8710</small></th>")
            && page.contains("<td class=\"error\">-</td>"),
        "{page}"
    );
    let p01_value = p01.details[0].clone().unwrap_or_default();
    assert!(p01_value.ends_with("ms"), "{p01_value}");
    assert!(
        page.contains(&format!("pass<br><small>{p01_value}</small>")),
        "{page}"
    );
    assert!(dir.path().join("lab/LAB01/report.html").is_file());
    let markdown = fs::read_to_string(dir.path().join("lab/lab.md")).unwrap();
    let pass = format!("pass ({p01_value})");
    assert!(
        markdown.contains(&format!(
            "| P-01 | performance | must | {pass} | {pass} | - | {pass} | {pass} | {pass} | {pass} | {pass} |"
        )),
        "{markdown}"
    );
}

#[test]
fn named_devices_a_failing_one_and_one_on_no_server() {
    let dir = frozen_example();
    let captures = [
        device(dir.path(), "notes-pass", "GOOD1", false),
        device(dir.path(), "notes-fail", "BAD1", false),
    ];
    let Ran {
        code,
        stdout,
        stderr,
        ..
    } = lab_audit(
        dir.path(),
        "hdc",
        &captures,
        &[
            "--jobs", "1", "--device", "GOOD1", "--device", "BAD1", "--device", "GONE1", "--out",
            "lab",
        ],
    )
    .status_in(EXIT_CODES)
    .run();
    // A failing device is a failed verdict, whatever else happened.
    assert_eq!(code, 1, "{stdout}\n{stderr}");
    assert!(
        stdout.contains("lab audit of 3 device(s): FAIL"),
        "{stdout}"
    );
    assert!(
        stdout.contains("GONE1: the device is on no hdc server"),
        "{stdout}"
    );
    // --jobs 1: one device at a time, so each audit ends before the next begins.
    let progress: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("dwpipe: "))
        .collect();
    assert_eq!(
        progress,
        [
            "dwpipe: GOOD1: auditing…",
            "dwpipe: GOOD1: pass",
            "dwpipe: BAD1: auditing…",
            "dwpipe: BAD1: fail"
        ],
        "{stderr}"
    );
    let lab: LabReport = read(dir.path().join("lab/lab.json"));
    assert_eq!(lab.verdicts(), ["pass", "fail", "error"]);
}

#[test]
fn one_device_audited_with_lab_is_a_shard_that_merges() {
    let dir = frozen_example();
    for (seat, capture, serial, expected) in [
        ("seat-1", "notes-pass", "S1", 0),
        ("seat-2", "notes-fail", "S2", 1),
    ] {
        let captures = [device(dir.path(), capture, serial, false)];
        let args = ["--device", serial, "--lab", "--out", seat, "--json"];
        let Ran { stdout, .. } = lab_audit(dir.path(), &format!("hdc-{seat}"), &captures, &args)
            .status(expected)
            .run();
        let lab: LabReport = parse(&stdout);
        assert_eq!(lab.devices.len(), 1);
        assert!(
            dir.path()
                .join(seat)
                .join(serial)
                .join("audit-1.json")
                .is_file()
        );
        assert!(dir.path().join(seat).join("lab-junit.xml").is_file());
    }
    let Ran { stdout, .. } = Test::new(dir.path())
        .args([
            "report", "merge", "seat-1", "seat-2", "--out", "merged", "--json",
        ])
        .status(1)
        .run();
    let merged: LabReport = parse(&stdout);
    assert_eq!(merged.device_verdicts(), [("S1", "pass"), ("S2", "fail")]);
    // `--lab` makes a lab of the devices named: without one it is refused before anything runs.
    let stderr = Test::new(dir.path())
        .args([
            "audit",
            "--pack",
            "pack.lock.json",
            "--devices",
            "all",
            "--lab",
        ])
        .status(2)
        .run()
        .stderr;
    assert!(stderr.contains("--lab"), "{stderr}");
}

#[test]
fn shards_from_two_hosts_merge_into_one_matrix() {
    let dir = frozen_example();
    let shard = |name: &str, captures: &[String], serials: &[&str]| {
        let mut args = vec!["--out", name, "--json"];
        for serial in serials {
            args.extend(["--device", serial]);
        }
        let Ran {
            code,
            stdout,
            stderr,
            ..
        } = lab_audit(dir.path(), &format!("hdc-{name}"), captures, &args)
            .status_in(EXIT_CODES)
            .run();
        assert!(code == 0 || code == 1, "{stdout}\n{stderr}");
    };
    shard(
        "host-a",
        &[
            device(dir.path(), "notes-pass", "A1", false),
            device(dir.path(), "notes-pass", "A2", false),
        ],
        &["A1", "A2"],
    );
    shard(
        "host-b",
        &[
            device(dir.path(), "notes-fail", "B1", false),
            device(dir.path(), "notes-pass", "B2", false),
        ],
        &["B1", "B2"],
    );

    let Ran { stdout, .. } = Test::new(dir.path())
        .args([
            "report", "merge", "host-a", "host-b", "--out", "merged", "--json",
        ])
        .status(1)
        .run();
    let merged: LabReport = parse(&stdout);
    assert_eq!(merged.verdict, LabVerdict::Fail);
    let devices = merged.device_verdicts();
    assert_eq!(
        devices,
        [
            ("A1", "pass"),
            ("A2", "pass"),
            ("B1", "fail"),
            ("B2", "pass")
        ]
    );
    // Links point from the merged folder back into the shards.
    assert_eq!(
        merged.devices[2].report.as_deref(),
        Some("../host-b/B1/audit-1.json")
    );
    let page = fs::read_to_string(dir.path().join("merged/lab.html")).unwrap();
    assert!(
        page.contains("<a href=\"../host-b/B1/report.html\">B1</a>"),
        "{page}"
    );
    assert_eq!(merged.cells("P-01"), ["pass", "pass", "fail", "pass"]);
    let junit = fs::read_to_string(dir.path().join("merged/lab-junit.xml")).unwrap();
    assert_eq!(junit.matches("<testsuite ").count(), 4);
    assert!(junit.contains("<testsuite name=\"dwpipe audit B1\""));

    // A shard of another pack, or a device in two shards, does not merge.
    let stdout = Test::new(dir.path())
        .args([
            "report", "merge", "host-a", "host-a", "--out", "twice", "--json",
        ])
        .status(2)
        .run()
        .stdout;
    assert!(stdout.contains("E_MERGE_DUPLICATE_DEVICE"), "{stdout}");
    let other = dir.path().join("other");
    fs::create_dir_all(&other).unwrap();
    let lab = fs::read_to_string(dir.path().join("host-b/lab.json")).unwrap();
    let sha = merged.pack_sha256.as_str();
    fs::write(other.join("lab.json"), lab.replace(sha, &"0".repeat(64))).unwrap();
    fs::copy(
        dir.path().join("host-b/lab-junit.xml"),
        other.join("lab-junit.xml"),
    )
    .unwrap();
    let stdout = Test::new(dir.path())
        .args(["report", "merge", "host-a", "other", "--json"])
        .status(2)
        .run()
        .stdout;
    assert!(stdout.contains("E_MERGE_PACK_MISMATCH"), "{stdout}");
    fs::write(
        other.join("lab.json"),
        "{\"format-version\": 1, \"rows\": 3}",
    )
    .unwrap();
    let stdout = Test::new(dir.path())
        .args(["report", "merge", "host-a", "other", "--json"])
        .status(2)
        .run()
        .stdout;
    assert!(
        stdout.contains("E_MERGE_INVALID") && stdout.contains("lab.json"),
        "{stdout}"
    );

    // A shard's matrix is not taken at its word: its devices' audits are rebuilt from their
    // evidence and the matrix made again from them.
    let merged_tampered = |what: &str| {
        let stdout = Test::new(dir.path())
            .args(["report", "merge", "host-a", "doctored", "--json"])
            .status(2)
            .run()
            .stdout;
        assert!(stdout.contains("E_MERGE_TAMPERED"), "{what}: {stdout}");
        stdout
    };
    let doctored = dir.path().join("doctored");
    let _ = fs::remove_dir_all(&other);
    crate::support::copy_tree(&dir.path().join("host-b"), &doctored);
    let given = fs::read_to_string(doctored.join("lab.json")).unwrap();
    let mut lab: serde_json::Value = serde_json::from_str(&given).unwrap();
    // B1 failed: its verdict and its cells turned to pass.
    lab["devices"][0]["verdict"] = "pass".into();
    for row in lab["rows"].as_array_mut().unwrap() {
        row["results"][0] = "pass".into();
    }
    lab["verdict"] = "pass".into();
    fs::write(doctored.join("lab.json"), lab.to_string()).unwrap();
    let said = merged_tampered("a failing device called a pass");
    assert!(
        said.contains("device B1 is `pass`, its audit gives `fail`"),
        "{said}"
    );
    // B1 left out of the matrix altogether, its audit still in the folder.
    let mut lab: serde_json::Value = serde_json::from_str(&given).unwrap();
    lab["devices"].as_array_mut().unwrap().remove(0);
    for row in lab["rows"].as_array_mut().unwrap() {
        row["results"].as_array_mut().unwrap().remove(0);
        row["details"].as_array_mut().unwrap().remove(0);
    }
    lab["verdict"] = "pass".into();
    fs::write(doctored.join("lab.json"), lab.to_string()).unwrap();
    let said = merged_tampered("a failing device left out");
    assert!(
        said.contains("B1/audit-1.json`, which its matrix does not list"),
        "{said}"
    );
    // B1's report pointed at B2's passing audit.
    let mut lab: serde_json::Value = serde_json::from_str(&given).unwrap();
    lab["devices"][0]["report"] = "B2/audit-1.json".into();
    lab["devices"][0]["verdict"] = "pass".into();
    for row in lab["rows"].as_array_mut().unwrap() {
        row["results"][0] = row["results"][1].clone();
    }
    fs::write(doctored.join("lab.json"), lab.to_string()).unwrap();
    let said = merged_tampered("another device's audit");
    assert!(said.contains("it is the audit of B2"), "{said}");
    // B1's own audit edited to pass, its evidence as it was.
    fs::write(doctored.join("lab.json"), &given).unwrap();
    let audit = doctored.join("B1/audit-1.json");
    let text = fs::read_to_string(&audit).unwrap();
    let mut report: serde_json::Value = serde_json::from_str(&text).unwrap();
    report["verdict"] = "pass".into();
    for check in report["checks"].as_array_mut().unwrap() {
        check["result"] = "pass".into();
    }
    fs::write(&audit, report.to_string()).unwrap();
    let said = merged_tampered("an audit edited to pass");
    assert!(said.contains("is not what its evidence gives"), "{said}");
    // Shards that needed different numbers of devices were not one lab.
    let mut lab: serde_json::Value = serde_json::from_str(&given).unwrap();
    lab["need"] = 2.into();
    fs::write(doctored.join("lab.json"), lab.to_string()).unwrap();
    let stdout = Test::new(dir.path())
        .args(["report", "merge", "host-a", "doctored", "--json"])
        .status(2)
        .run()
        .stdout;
    assert!(
        stdout.contains("E_MERGE_INVALID")
            && stdout.contains("audited with --need 2, the first shard with no --need"),
        "{stdout}"
    );
    // A lab that needs no passing device was written by hand.
    lab["need"] = 0.into();
    fs::write(doctored.join("lab.json"), lab.to_string()).unwrap();
    Test::new(dir.path())
        .args(["report", "merge", "doctored", "host-a"])
        .status(2)
        .stderr_contains("E_MERGE_INVALID")
        .stderr_contains("it needs 0 devices to pass")
        .run();
}

#[test]
fn the_same_connect_key_on_two_servers_gets_a_folder_each() {
    // Emulators answer as 127.0.0.1:5555 on every host.
    let dir = frozen_example();
    let a = device(dir.path(), "notes-pass", "127.0.0.1:5555", false);
    let b_root = dir.path().join("second");
    fs::create_dir_all(&b_root).unwrap();
    let b = device(&b_root, "notes-fail", "127.0.0.1:5555", false);
    let Ran {
        code,
        stdout,
        stderr,
        ..
    } = lab_audit(
        dir.path(),
        "hdc",
        &[format!("10.0.0.1:8710={a}"), format!("10.0.0.2:8710={b}")],
        &[
            "--devices",
            "all",
            "--server",
            "10.0.0.1:8710",
            "--server",
            "10.0.0.2:8710",
            "--out",
            "lab",
            "--json",
        ],
    )
    .status_in(EXIT_CODES)
    .run();
    assert_eq!(code, 1, "one passes, one fails: {stdout}\n{stderr}");
    for folder in [
        "10.0.0.1_8710_127.0.0.1_5555",
        "10.0.0.2_8710_127.0.0.1_5555",
    ] {
        assert!(
            dir.path()
                .join("lab")
                .join(folder)
                .join("audit-1.json")
                .is_file(),
            "{folder}: {stderr}"
        );
    }
    let lab: LabReport = parse(&stdout);
    assert_eq!(lab.verdicts(), ["pass", "fail"]);
}

#[test]
fn a_server_that_does_not_answer_is_in_every_lab_format() {
    let dir = frozen_example();
    let phone = device(dir.path(), "notes-pass", "LAB01", false);
    let Ran {
        code,
        stdout,
        stderr,
        ..
    } = lab_audit(
        dir.path(),
        "hdc",
        &[format!("10.0.0.1:8710={phone}")],
        &[
            "--devices",
            "all",
            "--server",
            "10.0.0.1:8710",
            "--server",
            "10.0.0.9:8710",
            "--out",
            "lab",
        ],
    )
    .status_in(EXIT_CODES)
    .run();
    // The devices listed passed; those of the silent server were not shown to: incomplete.
    assert_eq!(code, 3, "{stdout}\n{stderr}");
    assert!(stdout.contains("INCOMPLETE"), "{stdout}");
    assert!(
        stdout.contains("hdc server 10.0.0.9:8710 did not answer"),
        "{stdout}"
    );
    let lab: LabReport = read(dir.path().join("lab/lab.json"));
    assert_eq!(lab.unreachable[0].server, "10.0.0.9:8710", "{lab:?}");
    for file in ["lab.md", "lab.html"] {
        let text = fs::read_to_string(dir.path().join("lab").join(file)).unwrap();
        assert!(
            text.contains("10.0.0.9:8710") && text.contains("did not answer"),
            "{file}: {text}"
        );
    }
    let junit = fs::read_to_string(dir.path().join("lab/lab-junit.xml")).unwrap();
    assert!(
        junit.contains("<testsuite name=\"dwpipe audit hdc server 10.0.0.9:8710\"")
            && junit.contains("errors=\"1\""),
        "{junit}"
    );
}

/// At an open-file limit of 256 (macOS's default), a lab of 256 devices at `--jobs 256` loses
/// no device to "Too many open files": dwpipe runs as many at once as the limit allows and
/// says so (before, 49 of these 256 ended in `error`).
#[test]
fn a_lab_of_256_devices_under_256_open_files_audits_every_device() {
    let dir = crate::support::frozen_fixture("packs/cold-start.yaml");
    let capture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("device-fixtures/regress-base")
        .display()
        .to_string();
    let captures: Vec<String> = (0..256).map(|i| format!("{capture}@LAB{i:03}")).collect();
    let hdc = fake_hdc(dir.path(), "hdc", &captures, "");
    let playbooks = no_sleeps(dir.path());
    let output = std::process::Command::new("sh")
        .args(["-c", "ulimit -n 256 && exec \"$0\" \"$@\""])
        .arg(env!("CARGO_BIN_EXE_dwpipe"))
        .env("DWPIPE_LEASES", crate::support::own_leases())
        .args([
            "--hdc",
            hdc.to_str().unwrap(),
            "audit",
            "--pack",
            "pack.lock.json",
        ])
        .args(["--devices", "all", "--jobs", "256", "--runs", "1"])
        .args(["--playbooks", &playbooks, "--out", "lab"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("at once, not the 256 asked for"),
        "{stderr}"
    );
    assert!(!stderr.contains("Too many open files"), "{stderr}");
    let lab: LabReport = read(dir.path().join("lab/lab.json"));
    assert_eq!(lab.devices.len(), 256);
    assert!(lab.verdicts().iter().all(|v| *v == "pass"), "{lab:?}");
}

#[test]
fn a_link_planted_as_a_devices_folder_in_a_lab_is_refused_and_the_others_audited() {
    let dir = frozen_example();
    let captures = [
        device(dir.path(), "notes-pass", "GOOD1", false),
        device(dir.path(), "notes-pass", "GOOD2", false),
    ];
    let elsewhere = dir.path().join("elsewhere");
    fs::create_dir_all(&elsewhere).unwrap();
    fs::create_dir_all(dir.path().join("lab")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, dir.path().join("lab/GOOD1")).unwrap();
    let Ran { stdout, stderr, .. } = lab_audit(
        dir.path(),
        "hdc",
        &captures,
        &["--device", "GOOD1", "--device", "GOOD2", "--out", "lab"],
    )
    .status(3)
    .run();
    assert!(
        stdout.contains("GOOD1: cannot create") && stdout.contains("a symbolic link to"),
        "{stdout}\n{stderr}"
    );
    assert_eq!(
        fs::read_dir(&elsewhere).unwrap().count(),
        0,
        "nothing written where the link leads"
    );
    let lab: LabReport = read(dir.path().join("lab/lab.json"));
    assert_eq!(lab.verdicts(), ["error", "pass"]);
}

/// Three nights of a lab into one history: each device's page draws its own trend (never its
/// siblings'), a device that passed with warnings (here a failed should criterion: the
/// example's click response held to 50 ms) says so in every lab form, an unverified cell
/// gives its reason, and the banner names the devices that failed.
#[test]
fn each_device_has_its_own_trend_and_the_lab_says_what_each_phone_said() {
    let dir = tempfile::tempdir().unwrap();
    let pack = fs::read_to_string(crate::support::repo().join("examples/notes/pack.yaml")).unwrap();
    let pack = pack.replacen(
        "expected: 100              # Huawei",
        "expected: 50              # Huawei",
        1,
    );
    fs::write(dir.path().join("pack.yaml"), pack).unwrap();
    Test::new(dir.path()).args(["freeze", "pack.yaml"]).run();
    let captures: Vec<String> = [
        ("notes-pass", "LAB01"),
        ("notes-fail", "LAB02"),
        ("notes-pass", "LAB03"),
        ("notes-no-window", "LAB04"),
    ]
    .iter()
    .map(|(capture, serial)| device(dir.path(), capture, serial, false))
    .collect();
    let mut stdout = String::new();
    for night in 1..=3 {
        // Each night's phones start their recordings afresh.
        let _ = fs::remove_dir_all(dir.path().join("state"));
        let out = format!("night{night}");
        let args = ["--devices", "all", "--history", "h.sqlite", "--out", &out];
        stdout = lab_audit(dir.path(), "hdc", &captures, &args)
            .status(1)
            .run()
            .stdout;
    }
    let page = fs::read_to_string(dir.path().join("night3/LAB02/report.html")).unwrap();
    let trend = &page[page.find("Trend of P-01").expect("a trend is drawn")..];
    let trend = &trend[..trend.find("</section>").unwrap()];
    assert!(trend.starts_with("Trend of P-01 on LAB02"), "{trend}");
    assert!(trend.contains("3 audits of this device"), "{trend}");
    for sibling in ["LAB01", "LAB03", "LAB04"] {
        assert!(
            !trend.contains(sibling),
            "{sibling} is in LAB02's trend: {trend}"
        );
    }
    assert!(
        trend.contains("LAB02 run "),
        "each point names its device and run"
    );
    assert!(
        trend.contains("red: the audit failed"),
        "failing points are marked"
    );
    assert!(trend.contains("#cf222e"), "failing points are drawn red");
    // What each phone said, in every form.
    let lab: LabReport = read(dir.path().join("night3/lab.json"));
    let lab03 = lab.devices.iter().find(|d| d.serial == "LAB03").unwrap();
    let md = fs::read_to_string(dir.path().join("night3/lab.md")).unwrap();
    assert_eq!(lab03.verdict, DeviceVerdict::Pass, "{md}");
    let said = lab03.outcome.as_deref().unwrap_or_default();
    assert!(said.starts_with("pass with warnings"), "{said}");
    assert!(md.contains("pass with warnings"), "{md}");
    let html = fs::read_to_string(dir.path().join("night3/lab.html")).unwrap();
    assert!(html.contains("pass with warnings"), "{html}");
    assert!(
        stdout.contains("LAB03: pass with warnings (1 should criterion failed)"),
        "{stdout}"
    );
    let x01 = lab.rows.iter().find(|r| r.criterion_id == "X-01").unwrap();
    let lab04 = lab
        .devices
        .iter()
        .position(|d| d.serial == "LAB04")
        .unwrap();
    assert!(
        x01.details[lab04].as_deref().is_some_and(|d| !d.is_empty()),
        "an unverified cell gives its reason: {x01:?}"
    );
    assert!(
        html.contains("failed (LAB02"),
        "the banner names who failed: {html}"
    );
}

/// A phone whose audit could not measure (no window of the app) is counted as unverified,
/// named, and never among the phones that failed.
#[test]
fn a_phone_that_could_not_measure_is_unverified_not_failed() {
    let dir = frozen_example();
    let captures: Vec<String> = [("notes-pass", "LAB01"), ("notes-no-window", "LAB04")]
        .iter()
        .map(|(capture, serial)| device(dir.path(), capture, serial, false))
        .collect();
    let Ran { stdout, .. } = lab_audit(
        dir.path(),
        "hdc",
        &captures,
        &["--devices", "all", "--out", "lab"],
    )
    .status(1)
    .run();
    assert!(
        stdout.contains("1 passed, 0 failed, 1 unverified (LAB04)"),
        "{stdout}"
    );
    let page = fs::read_to_string(dir.path().join("lab/lab.html")).unwrap();
    assert!(
        page.contains("0 failed, 1 unverified (LAB04: could not measure)"),
        "{page}"
    );
    let md = fs::read_to_string(dir.path().join("lab/lab.md")).unwrap();
    assert!(
        md.contains("**unverified (3 criteria could not be measured)**"),
        "{md}"
    );
}
