//! A lab audit against `fake-hdc` with 200 ms latency per hdc call: one device, then sixteen
//! (`--devices all --jobs 16`), through the real binary. Parallel devices should take about
//! as long as one. The sessions' settling sleeps are overridden away so that the hdc latency,
//! not the sleeps, is what the figures show.
//!
//! `cargo bench --bench lab`

use std::fs;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

fn device(root: &Path, repo: &Path, serial: &str) -> String {
    let dir = root.join(serial);
    let source = repo.join("device-fixtures/notes-pass");
    fs::create_dir_all(dir.join("files")).unwrap();
    for entry in fs::read_dir(source.join("files")).unwrap() {
        let entry = entry.unwrap();
        fs::copy(entry.path(), dir.join("files").join(entry.file_name())).unwrap();
    }
    let identity = fs::read_to_string(source.join("device.yaml"))
        .unwrap()
        .replace("FMR0223C13000649", serial);
    fs::write(dir.join("device.yaml"), identity).unwrap();
    fs::copy(source.join("transcript.yaml"), dir.join("transcript.yaml")).unwrap();
    dir.display().to_string()
}

fn lab(work: &Path, repo: &Path, devices: usize, name: &str) -> Duration {
    let root = work.join(name);
    let captures: Vec<String> = (0..devices)
        .map(|n| device(&root, repo, &format!("LAB{n:02}")))
        .collect();
    let wrapper = root.join("hdc");
    fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nDWPIPE_FAKE_HDC_CAPTURES='{}' DWPIPE_FAKE_HDC_STATE='{}' DWPIPE_FAKE_HDC_LATENCY=200ms exec '{}' \"$@\"\n",
            captures.join(","),
            root.join("state").display(),
            env!("CARGO_BIN_EXE_fake-hdc"),
        ),
    )
    .unwrap();
    let mut permissions = fs::metadata(&wrapper).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    fs::set_permissions(&wrapper, permissions).unwrap();
    let started = Instant::now();
    let output = Command::new(env!("CARGO_BIN_EXE_dwpipe"))
        .args(["--hdc", wrapper.to_str().unwrap(), "audit", "--pack"])
        .arg(work.join("pack.lock.json"))
        .args(["--devices", "all", "--jobs", "16", "--playbooks"])
        .arg(work.join("playbooks"))
        .arg("--out")
        .arg(root.join("out"))
        .arg("--json")
        .output()
        .unwrap();
    let took = started.elapsed();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    took
}

fn main() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let work = tempfile::tempdir().unwrap();
    let freeze = Command::new(env!("CARGO_BIN_EXE_dwpipe"))
        .arg("freeze")
        .arg(repo.join("examples/notes/pack.yaml"))
        .current_dir(work.path())
        .output()
        .unwrap();
    assert!(freeze.status.success());
    let sessions = work.path().join("playbooks/sessions");
    fs::create_dir_all(&sessions).unwrap();
    for entry in fs::read_dir(repo.join("playbooks/sessions")).unwrap() {
        let entry = entry.unwrap();
        let kept: String = fs::read_to_string(entry.path())
            .unwrap()
            .lines()
            .filter(|l| !l.trim_start().starts_with("- sleep:"))
            .map(|l| format!("{l}\n"))
            .collect();
        fs::write(sessions.join(entry.file_name()), kept).unwrap();
    }
    let one = lab(work.path(), repo, 1, "one");
    let sixteen = lab(work.path(), repo, 16, "sixteen");
    println!("lab audit, fake-hdc at 200 ms per call:");
    println!("   1 device    {:>6.2} s", one.as_secs_f64());
    println!("  16 devices   {:>6.2} s", sixteen.as_secs_f64());
    println!(
        "  ratio        {:>6.2}×",
        sixteen.as_secs_f64() / one.as_secs_f64()
    );
}
