//! The history over 20,000 recorded audits of one criterion on one device model (55 years of
//! nightly runs, or a lab's busy year): `dwpipe history import` of the 20,000 reports (10 runs
//! each), the series listed (`history --json`), then `history --changes` over it (E-Divisive,
//! 100 permutations per tested split) in a window of the latest 1,000 and over all
//! 20,000 (`--window all`). The series steps up by 70 ms at audit 10,000 and again at 19,500.
//! Each as the binary a lab runs.
//!
//! `cargo bench --bench history`

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

mod reports;

const AUDITS: usize = 20_000;
const REPEATS: usize = 3;

fn main() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bin = env!("CARGO_BIN_EXE_dwpipe");
    let work = tempfile::tempdir().unwrap();
    let dir = work.path();
    let run = |args: &[&str]| -> (i32, usize) {
        let output = Command::new(bin)
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap();
        (output.status.code().unwrap(), output.stdout.len())
    };
    // 20,000 audits of one model: 700 ms, 770 ms from audit 10,000, 840 ms from 19,500.
    let level = |i| match i {
        0..10_000 => 700.0,
        10_000..19_500 => 770.0,
        _ => 840.0,
    };
    reports::write(repo, dir, AUDITS, 2000, level, |_, _| {});
    let time = |label: &str, args: &[&str], fresh: bool| {
        let mut times = Vec::new();
        let mut printed = 0;
        for _ in 0..REPEATS {
            if fresh {
                for suffix in ["", "-wal", "-shm"] {
                    let _ = std::fs::remove_file(dir.join(format!("h.sqlite{suffix}")));
                }
            }
            let started = Instant::now();
            let (code, bytes) = run(args);
            times.push(started.elapsed());
            assert_eq!(code, 0, "{label}");
            printed = bytes;
        }
        times.sort();
        let median: Duration = times[times.len() / 2];
        println!(
            "{label}: median {median:.2?} of {REPEATS} (min {:.2?}, max {:.2?}; {printed} bytes out)",
            times[0],
            times[times.len() - 1]
        );
    };
    time(
        "history import of 20,000 audits",
        &["history", "--history", "h.sqlite", "import", "runs"],
        true,
    );
    time(
        "history --json over 20,000 audits",
        &["history", "--history", "h.sqlite", "--json"],
        false,
    );
    time(
        "history --changes --window 1000, the latest 1,000 of 20,000",
        &[
            "history",
            "--history",
            "h.sqlite",
            "--changes",
            "--window",
            "1000",
            "--json",
        ],
        false,
    );
    time(
        "history --changes --window all, 20,000",
        &[
            "history",
            "--history",
            "h.sqlite",
            "--changes",
            "--window",
            "all",
            "--json",
        ],
        false,
    );
    // What was found: the latest step in the window of 1,000, both over all of it.
    for (args, steps) in [
        (&["--window", "1000"][..], 1),
        (&["--window", "all"][..], 2),
    ] {
        let mut all = vec!["history", "--history", "h.sqlite", "--changes", "--json"];
        all.extend_from_slice(args);
        let output = Command::new(bin)
            .args(&all)
            .current_dir(dir)
            .output()
            .unwrap();
        let found: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        let changes = found["changes"].as_array().unwrap();
        println!(
            "  {args:?}: {} change point(s), series {}",
            changes.len(),
            found["series"]
        );
        assert!(changes.len() >= steps, "{found}");
    }
}
