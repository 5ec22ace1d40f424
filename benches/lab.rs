//! A lab audit against `fake-hdc` with 200 ms latency per hdc call, through the real binary:
//! one device on one server, then 16 and 128 devices spread over 8 servers (`--devices all
//! --jobs 128`). Parallel devices should take about as long as one. The sessions' settling
//! sleeps are overridden away so that the hdc latency, not the sleeps, is what the figures
//! show. Besides the wall time: dwpipe's own CPU (its process alone, sampled from
//! `/proc/<pid>/stat` every 20 ms, so up to 20 ms short), per device audited.
//!
//! `cargo bench --bench lab`

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

// The bench drives fake-hdc as the tests do; of their helpers it uses `no_sleeps` alone.
#[expect(dead_code, reason = "the bench uses one of the tests' helpers")]
#[path = "../tests/it/support/mod.rs"]
mod support;

const SERVERS: usize = 8;

/// dwpipe's own user + system CPU so far, from `/proc/<pid>/stat` (children not included).
fn own_cpu(pid: u32) -> Option<Duration> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the parenthesised command name: state is the 3rd, utime the 14th.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split(' ').collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    // SAFETY: sysconf reads a constant of the running system.
    #[expect(unsafe_code, reason = "std does not expose the clock tick")]
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as u64;
    Some(Duration::from_millis(ticks * 1000 / hz.max(1)))
}

/// `(wall time, dwpipe's own CPU)` of a lab of `devices` on `servers` servers.
fn lab(work: &Path, devices: usize, servers: usize, playbooks: &str) -> (Duration, Duration) {
    let root = work.join(format!("lab-{devices}"));
    fs::create_dir_all(&root).unwrap();
    let capture = Path::new(env!("CARGO_MANIFEST_DIR")).join("device-fixtures/notes-pass");
    let server = |n: usize| format!("10.0.0.{}:8710", n % servers + 1);
    // One capture served under a connect key per device (`@SERIAL`), each on its server.
    let captures: Vec<String> = (0..devices)
        .map(|n| format!("{}={}@LAB{n:03}", server(n), capture.display()))
        .collect();
    // fake-hdc itself as the hdc client (dwpipe passes its environment on), without the
    // tests' shell wrapper: a real hdc is one process per call, not two.
    let mut command = Command::new(env!("CARGO_BIN_EXE_dwpipe"));
    command
        .env("DWPIPE_FAKE_HDC_CAPTURES", captures.join(","))
        .env("DWPIPE_FAKE_HDC_STATE", root.join("state"))
        .env("DWPIPE_FAKE_HDC_LATENCY", "200ms")
        .args(["--hdc", env!("CARGO_BIN_EXE_fake-hdc"), "audit", "--pack"])
        .arg(work.join("pack.lock.json"))
        .args([
            "--devices",
            "all",
            "--jobs",
            "128",
            "--playbooks",
            playbooks,
        ])
        .arg("--out")
        .arg(root.join("out"))
        .arg("--json");
    for n in 0..servers {
        command.args(["--server", &server(n)]);
    }
    let started = Instant::now();
    let mut child = command
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut cpu = Duration::ZERO;
    while child.try_wait().unwrap().is_none() {
        cpu = own_cpu(child.id()).unwrap_or(cpu);
        std::thread::sleep(Duration::from_millis(20));
    }
    let took = started.elapsed();
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let summary: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(root.join("out/lab.json")).unwrap()).unwrap();
    assert_eq!(summary["devices"].as_array().unwrap().len(), devices);
    (took, cpu)
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
    let playbooks = support::no_sleeps(work.path());
    println!("lab audit, fake-hdc at 200 ms per call, --jobs 128:");
    let (one, one_cpu) = lab(work.path(), 1, 1, &playbooks);
    println!(
        "    1 device,  1 server    {:>6.2} s   dwpipe CPU {:>6.0} ms/device",
        one.as_secs_f64(),
        one_cpu.as_secs_f64() * 1e3
    );
    for devices in [16, 128] {
        let (took, cpu) = lab(work.path(), devices, SERVERS, &playbooks);
        println!(
            "  {devices:>3} devices, {SERVERS} servers  {:>6.2} s   dwpipe CPU {:>6.0} ms/device   {:>5.2}× one device",
            took.as_secs_f64(),
            cpu.as_secs_f64() * 1e3 / devices as f64,
            took.as_secs_f64() / one.as_secs_f64()
        );
    }
}
