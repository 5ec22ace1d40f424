//! Device-layer costs against `fake-hdc`:
//! 1. spawn overhead per hdc call (the process runner alone, then a full `shell` call);
//! 2. listing and identifying 1 vs 16 devices with 200 ms latency per hdc call, through the
//!    real `dwpipe devices` binary: parallel work should take about as long as one device.
//!
//! `cargo bench --bench devices`

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use dwpipe::device::{CallTimeouts, Device, Hdc};
use dwpipe::process::{Cancel, ProcessSpec, run};
use dwpipe::shell::ShellCommand;

const CALLS: usize = 200;

fn capture(root: &Path, serial: &str, exchanges: usize) -> PathBuf {
    let dir = root.join(serial.replace(':', "_"));
    fs::create_dir_all(&dir).unwrap();
    fs::write(
        dir.join("device.yaml"),
        format!("serial: {serial}\nmodel: ALN-AL00\napi-level: 12\nvirtual-pixel-ratio: 3.25\n"),
    )
    .unwrap();
    let mut transcript = String::from("format-version: 1\nexchanges:\n");
    for _ in 0..exchanges {
        transcript.push_str("  - shell: param get const.ohos.apiversion\n    reply: \"12\\n\"\n");
    }
    fs::write(dir.join("transcript.yaml"), transcript).unwrap();
    dir
}

fn per_call(name: &str, total: Duration, calls: usize) {
    println!(
        "{name:<52} {:>8.2} ms per call ({calls} calls, {:.2} s)",
        total.as_secs_f64() * 1e3 / calls as f64,
        total.as_secs_f64()
    );
}

fn main() {
    let work = tempfile::tempdir().unwrap();
    let fake = PathBuf::from(env!("CARGO_BIN_EXE_fake-hdc"));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();

    // 1a. The runner alone: spawn /bin/true, drain, wait.
    let started = Instant::now();
    runtime.block_on(async {
        for _ in 0..CALLS {
            run(
                &ProcessSpec::new("/bin/true", Vec::<String>::new()),
                &Cancel::new(),
            )
            .await
            .unwrap();
        }
    });
    per_call(
        "process runner: spawn + wait of /bin/true",
        started.elapsed(),
        CALLS,
    );

    // 1b. A full `shell` call through the hdc driver against fake-hdc (which loads and
    // validates its capture on every invocation, as the real client talks to its server).
    let dir = capture(work.path(), "FMR0223C13000649", CALLS);
    let wrapper = work.path().join("hdc");
    fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nDWPIPE_FAKE_HDC_CAPTURES='{}' DWPIPE_FAKE_HDC_STATE='{}' exec '{}' \"$@\"\n",
            dir.display(),
            work.path().join("state").display(),
            fake.display()
        ),
    )
    .unwrap();
    make_executable(&wrapper);
    let hdc = Hdc::new(
        wrapper.clone(),
        None,
        CallTimeouts::default(),
        Cancel::new(),
    );
    let device = hdc.device("FMR0223C13000649").unwrap();
    let command = ShellCommand::fixed("param get const.ohos.apiversion");
    let started = Instant::now();
    runtime.block_on(async {
        for _ in 0..CALLS {
            assert_eq!(device.shell(&command).await.unwrap().output, "12\n");
        }
    });
    per_call(
        "hdc shell call against fake-hdc (sh wrapper + fake)",
        started.elapsed(),
        CALLS,
    );

    // 2. `dwpipe devices` over 1 and 16 devices, 200 ms per hdc call.
    for (devices, servers) in [(1, 1), (16, 1), (16, 4)] {
        let lab = work.path().join(format!("lab-{devices}-{servers}"));
        let entries: Vec<String> = (0..devices)
            .map(|i| {
                let dir = capture(&lab, &format!("LAB{i:02}SERIAL"), 0);
                format!("10.0.0.{}:8710={}", 1 + i % servers, dir.display())
            })
            .collect();
        let args: Vec<String> = (0..servers)
            .flat_map(|s| ["--server".to_owned(), format!("10.0.0.{}:8710", s + 1)])
            .collect();
        let started = Instant::now();
        let output = Command::new(env!("CARGO_BIN_EXE_dwpipe"))
            .arg("--hdc")
            .arg(&fake)
            .arg("devices")
            .args(&args)
            .arg("--json")
            .env("DWPIPE_FAKE_HDC_CAPTURES", entries.join(","))
            .env("DWPIPE_FAKE_HDC_STATE", lab.join("state"))
            .env("DWPIPE_FAKE_HDC_LATENCY", "200ms")
            .output()
            .unwrap();
        let elapsed = started.elapsed();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        let identified = json["servers"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|s| s["devices"].as_array().unwrap())
            .filter(|d| d["api-level"] == 12)
            .count();
        assert_eq!(identified, devices);
        println!(
            "dwpipe devices: {devices:>2} device(s) on {servers} server(s), 200 ms/call   {:>8.0} ms",
            elapsed.as_secs_f64() * 1e3
        );
    }
}

fn make_executable(path: &Path) {
    let mut permissions = fs::metadata(path).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    fs::set_permissions(path, permissions).unwrap();
}
