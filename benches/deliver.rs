//! `dwpipe deliver` of the bundled example on its recorded capture: the whole process, and
//! dwpipe's own share of it (everything but the agent and the verification commands, whose
//! durations the ledger records).
//!
//! `cargo bench --bench deliver`

use std::fs;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const RUNS: usize = 15;
const PAGE: &str = "project/entry/src/main/ets/pages/Index.ets";

fn copy_example(repo: &Path, to: &Path) {
    for file in ["pack.yaml", "dwpipe.yaml", "agent.sh", PAGE] {
        let target = to.join(file);
        fs::create_dir_all(target.parent().unwrap()).unwrap();
        fs::copy(repo.join("examples/notes").join(file), &target).unwrap();
    }
    // The capture is named relative to examples/notes; point at it absolutely.
    let config = fs::read_to_string(to.join("dwpipe.yaml")).unwrap().replace(
        "../../device-fixtures/notes-pass",
        repo.join("device-fixtures/notes-pass").to_str().unwrap(),
    );
    fs::write(to.join("dwpipe.yaml"), config).unwrap();
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let work = tempfile::tempdir().unwrap();
    copy_example(repo, work.path());
    let (mut totals, mut tools) = (Vec::new(), Vec::new());
    for _ in 0..RUNS {
        // Each delivery starts from the unfixed page.
        fs::copy(
            repo.join("examples/notes").join(PAGE),
            work.path().join(PAGE),
        )
        .unwrap();
        let started = Instant::now();
        let output = Command::new(env!("CARGO_BIN_EXE_dwpipe"))
            .args(["deliver", "--pack", "pack.yaml", "--json"])
            .current_dir(work.path())
            .output()
            .unwrap();
        let total = started.elapsed();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stdout)
        );
        let summary: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        let ledger = fs::read_to_string(
            work.path()
                .join(summary["run-dir"].as_str().unwrap())
                .join("ledger.jsonl"),
        )
        .unwrap();
        let outside: u64 = ledger
            .lines()
            .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
            .filter(|entry| matches!(entry["stage"].as_str(), Some("agent" | "verify")))
            .map(|entry| entry["duration-ms"].as_u64().unwrap())
            .sum();
        totals.push(total);
        tools.push(Duration::from_millis(outside));
    }
    let (total, tools) = (median(totals), median(tools));
    println!("deliver of the example, replayed ({RUNS} runs, medians):");
    println!(
        "  whole process           {:>8.1} ms",
        total.as_secs_f64() * 1e3
    );
    println!(
        "  agent + verification    {:>8.1} ms",
        tools.as_secs_f64() * 1e3
    );
    println!(
        "  dwpipe's own overhead   {:>8.1} ms",
        total.saturating_sub(tools).as_secs_f64() * 1e3
    );
}
