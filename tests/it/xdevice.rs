//! dwpipe under xdevice's cluster (OpenHarmony's test framework): a controller and a worker
//! on loopback, installed from PyPI by `.ci/xdevice-deps` with dwpipe's driver plugin
//! (`integrations/xdevice`); the worker finds its devices through OpenHarmony's real hdc server
//! on 127.0.0.1:8710, three phones of the real-hdc suite's stack (real hdcd, see
//! `real_hdc/stack.rs`); a task submitted through the controller's API runs dwpipe audits on
//! the devices the controller allocated, through the real client; the merged result is checked
//! on the controller, and the audit folders it received are read by `report merge`,
//! `verify-evidence` and `history import`.
//!
//! Outside CI a missing virtual environment (no `.ci/xdevice-deps` run), no real hdc (no
//! `.ci/real-hdc` run) or a port 8710 already taken (another hdc server: xdevice's workers look
//! there only) skips with a line; inside CI each fails.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::real_hdc::stack::{Stack, Tools};
use crate::support::{Group, Test, frozen_example};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_owned()
}

/// The virtual environment's Python, or `None` (with a line saying so) outside CI.
#[track_caller]
fn xdevice_python() -> Option<PathBuf> {
    let python = repo().join("target/xdevice-venv/bin/python");
    if python.is_file() {
        return Some(python);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "no xdevice at target/xdevice-venv: run `bash .ci/xdevice-deps`"
    );
    crate::support::skipped!(
        "the xdevice end-to-end test (no xdevice; run `bash .ci/xdevice-deps`)"
    );
    None
}

/// Whether hdc's server port is free on loopback (a real hdc server may hold it).
#[track_caller]
fn hdc_port_free() -> bool {
    let free = TcpListener::bind("127.0.0.1:8710").is_ok();
    if !free {
        assert!(
            std::env::var_os("CI").is_none(),
            "127.0.0.1:8710 is taken: xdevice's workers look for their hdc server there only"
        );
        crate::support::skipped!(
            "the xdevice end-to-end test (127.0.0.1:8710 is taken, by an hdc server?)"
        );
    }
    free
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap()
}

/// Starts a node of the cluster in its own process group (a worker forks a process per block),
/// its output into `log`; it is stopped however the test ends.
fn start(command: &mut Command, log: &Path) -> Group {
    let log = std::fs::File::create(log).unwrap();
    Group(
        std::os::unix::process::CommandExt::process_group(command, 0)
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap(),
    )
}

fn case(devices: usize) -> String {
    let environment = vec![r#"{"type": "device", "label": "phone"}"#; devices].join(", ");
    format!(
        r#"{{"description": "the notes pack on {devices} phone(s)", "environment": [{environment}], "driver": {{"type": "dwpipe", "pack": "pack.lock.json"}}}}"#
    )
}

#[track_caller]
fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn devices_of(lab: &Path) -> Vec<String> {
    let lab: dwpipe::schema::LabReport = crate::support::read(lab.join("lab.json"));
    lab.devices.into_iter().map(|d| d.serial).collect()
}

/// xdevice's verdicts of one module's result file: (class, `true`/`false`, status) per test.
fn results(xml: &str) -> Vec<(String, String, String)> {
    let attribute = |case: &str, name: &str| {
        let start = case.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
        case[start..][..case[start..].find('"').unwrap()].to_owned()
    };
    xml.split("<testcase ")
        .skip(1)
        .map(|case| {
            (
                attribute(case, "classname"),
                attribute(case, "result"),
                attribute(case, "status"),
            )
        })
        .collect()
}

#[test]
fn an_xdevice_task_runs_dwpipe_audits_on_the_devices_its_controller_allocated() {
    let Some(python) = xdevice_python() else {
        return;
    };
    if !hdc_port_free() {
        return;
    }
    let root = frozen_example();
    let root = root.path();
    let Some(mut stack) = Stack::start_on(root, 8710) else {
        return;
    };
    let bin = root.join("bin");
    let cases = root.join("project/testcases");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::create_dir_all(&cases).unwrap();
    // xdevice looks for `hdc` on PATH (and would start a server with it); dwpipe runs it too.
    std::os::unix::fs::symlink(&stack.hdc, bin.join("hdc")).unwrap();
    std::fs::copy(root.join("pack.lock.json"), cases.join("pack.lock.json")).unwrap();
    std::fs::write(cases.join("single.json"), case(1)).unwrap();
    std::fs::write(cases.join("pair.json"), case(2)).unwrap();
    let phones: Vec<String> = ["notes-pass", "notes-fail", "notes-pass"]
        .into_iter()
        .map(|material| stack.phone(Tools::Serving(material)).key.clone())
        .collect();
    let failing = phones[1].clone();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let hdc_own = stack.hdc_command();
    let env = |command: &mut Command| {
        command.env("PATH", &path);
        for (key, value) in hdc_own.get_envs() {
            if let Some(value) = value {
                command.env(key, value);
            }
        }
        command
            .env("DWPIPE", env!("CARGO_BIN_EXE_dwpipe"))
            .env("DWPIPE_LEASES", root.join("leases"))
            .env_remove("DWPIPE_HDC")
            .env_remove("DWPIPE_XDEVICE_ARGS");
    };
    let (controller_port, worker_port) = (free_port(), free_port());
    let controller_url = format!("http://127.0.0.1:{controller_port}");
    let node = repo().join("integrations/xdevice/tests/cluster.py");
    let mut cluster = Vec::new();
    for (mode, port) in [("controller", controller_port), ("worker", worker_port)] {
        let mut command = Command::new(&python);
        env(command.arg(&node).arg(mode).arg(root.join(mode)));
        let log = root.join(format!("{mode}.log"));
        cluster.push(start(
            command.arg(port.to_string()).arg(&controller_url),
            &log,
        ));
    }

    let submitted = Command::new(&python)
        .arg(repo().join("integrations/xdevice/tests/task.py"))
        .arg(&controller_url)
        .arg(root.join("project"))
        .args(["3", "300", "single", "pair"])
        .output()
        .unwrap();
    let logs = || {
        let nodes = ["controller", "worker"]
            .map(|name| {
                let log = read(&root.join(format!("{name}.log")));
                let tail: Vec<&str> = log.lines().rev().take(40).collect();
                format!(
                    "--- {name}.log (last lines) ---\n{}",
                    tail.into_iter().rev().collect::<Vec<_>>().join("\n")
                )
            })
            .join("\n");
        format!("{nodes}\n{}", stack.logs())
    };
    assert!(
        submitted.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&submitted.stderr),
        logs()
    );
    let task: serde_json::Value = serde_json::from_slice(&submitted.stdout).unwrap();
    assert_eq!(task["state"], "Completed", "{task}\n{}", logs());
    let report = root
        .join("controller/Reports")
        .join(task["id"].as_str().unwrap());

    // The controller merged both blocks' reports: every criterion of every device, as xdevice
    // counts them (the failing phone fails seven criteria, one of them a `should`, which JUnit
    // skips).
    let summary = read(&report.join("summary_report.xml"));
    assert!(
        summary.contains(r#"failures="6" tests="27""#) && summary.contains(r#"ignored="1""#),
        "{}",
        &summary[..summary.len().min(600)]
    );
    // The audits ran on the devices the controller allocated to each block (which block gets
    // which phones is the controller's choice): one phone each, never one twice. Their
    // folders came with the task's report, lock and evidence inside.
    let audits = report.join("details/dwpipe");
    let single = devices_of(&audits.join("single"));
    let pair = devices_of(&audits.join("pair"));
    assert_eq!((single.len(), pair.len()), (1, 2), "{single:?} {pair:?}");
    let mut all = [single.clone(), pair.clone()].concat();
    all.sort();
    let mut expected = phones.clone();
    expected.sort();
    assert_eq!(all, expected);
    // Each case's xdevice results are its audit's criteria on its devices: the failing phone
    // fails six criteria and skips one (a `should` that failed while the musts held), passing
    // two; every criterion of the other phones passes.
    for (case, devices) in [("single", &single), ("pair", &pair)] {
        let results = results(&read(&report.join(format!("result/{case}.xml"))));
        assert_eq!(results.len(), 9 * devices.len(), "{case}: {results:?}");
        for device in devices {
            let of_device: Vec<(&str, &str)> = results
                .iter()
                .filter(|(class, _, _)| class.starts_with(&format!("{device}.")))
                .map(|(_, verdict, status)| (verdict.as_str(), status.as_str()))
                .collect();
            let count = |outcome| of_device.iter().filter(|o| **o == outcome).count();
            let (failed, passed, skipped) = (
                count(("false", "run")),
                count(("true", "run")),
                count(("false", "skip")),
            );
            let expected = if *device == failing {
                (6, 2, 1)
            } else {
                (0, 9, 0)
            };
            assert_eq!(
                (failed, passed, skipped),
                expected,
                "{case} on {device}: {of_device:?}"
            );
        }
    }
    let third = &phones[2];
    let folder = third.replace(':', "_");
    let lab03 = audits
        .join(if single == [third.clone()] {
            "single"
        } else {
            "pair"
        })
        .join(&folder);
    Test::new(root)
        .args([
            "verify-evidence",
            lab03.join("audit-1.json").to_str().unwrap(),
            "--pack",
            lab03
                .join(format!("evidence/{folder}/pack.lock.json"))
                .to_str()
                .unwrap(),
        ])
        .run();
    let merged = root.join("merged");
    Test::new(root)
        .args([
            "report",
            "merge",
            audits.join("single").to_str().unwrap(),
            audits.join("pair").to_str().unwrap(),
            "--out",
            merged.to_str().unwrap(),
        ])
        .status(1)
        .run();
    // In the shards' order: the single case's phone first, whichever it was.
    assert_eq!(devices_of(&merged), [single, pair].concat());
    let history = root.join("history.sqlite");
    Test::new(root)
        .args([
            "history",
            "--history",
            history.to_str().unwrap(),
            "import",
            audits.join("single").to_str().unwrap(),
            audits.join("pair").to_str().unwrap(),
        ])
        .stdout_contains("imported 3 audit(s)")
        .run();
}

/// The driver's own logic (reading a case, the audit's command line, the JUnit's mapping), in
/// Python's unittest: it needs no xdevice.
#[test]
fn the_xdevice_drivers_case_logic_passes_its_unit_tests() {
    let output = Command::new("python3")
        .args([
            "-m",
            "unittest",
            "discover",
            "-s",
            "tests",
            "-p",
            "test_*.py",
        ])
        .current_dir(repo().join("integrations/xdevice"))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}
