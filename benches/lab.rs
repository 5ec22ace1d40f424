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

// The integration tests' helpers: capture copies under new serials, the fake-hdc wrapper,
// sleep-free sessions.
#[path = "../tests/common/mod.rs"]
mod common;

fn lab(work: &Path, devices: usize, name: &str, playbooks: &str) -> Duration {
    let root = work.join(name);
    fs::create_dir_all(&root).unwrap();
    let captures: Vec<String> = (0..devices)
        .map(|n| common::device(&root, "notes-pass", &format!("LAB{n:02}"), false))
        .collect();
    let wrapper = common::fake_hdc(&root, "hdc", &captures, "DWPIPE_FAKE_HDC_LATENCY=200ms");
    let started = Instant::now();
    let output = Command::new(env!("CARGO_BIN_EXE_dwpipe"))
        .args(["--hdc", wrapper.to_str().unwrap(), "audit", "--pack"])
        .arg(work.join("pack.lock.json"))
        .args(["--devices", "all", "--jobs", "16", "--playbooks", playbooks])
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
    let playbooks = common::no_sleeps(work.path());
    let one = lab(work.path(), 1, "one", &playbooks);
    let sixteen = lab(work.path(), 16, "sixteen", &playbooks);
    println!("lab audit, fake-hdc at 200 ms per call:");
    println!("   1 device    {:>6.2} s", one.as_secs_f64());
    println!("  16 devices   {:>6.2} s", sixteen.as_secs_f64());
    println!(
        "  ratio        {:>6.2}×",
        sixteen.as_secs_f64() / one.as_secs_f64()
    );
}
