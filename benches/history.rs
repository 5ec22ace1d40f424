//! The history over 10,000 recorded audits: `dwpipe history import` of 10,000 reports (100
//! devices' worth of nightly runs, one criterion with 10 runs each), then the series listed
//! (`history --json`), then `history --changes` over it (E-Divisive, 100 permutations per
//! tested split). Each as the binary a lab runs.
//!
//! `cargo bench --bench history`

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const AUDITS: usize = 10_000;
/// Device models the audits are spread over: each criterion's series is one model's.
const MODELS: usize = 10;
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
    let pack = repo.join("tests/fixtures/packs/cold-start.yaml");
    assert_eq!(run(&["freeze", pack.to_str().unwrap()]).0, 0);
    let capture = repo.join("device-fixtures/regress-base");
    assert_eq!(
        run(&[
            "audit",
            "--pack",
            "pack.lock.json",
            "--replay",
            capture.to_str().unwrap(),
            "--out",
            "seed"
        ])
        .0,
        0
    );
    let template: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("seed/audit-1.json")).unwrap())
            .unwrap();
    // 10,000 audits of 10 models; every model's series steps up by 70 ms halfway.
    for i in 0..AUDITS {
        let (model, nth) = (i % MODELS, i / MODELS);
        let mut report = template.clone();
        let base = if nth >= AUDITS / MODELS / 2 {
            770.0
        } else {
            700.0
        };
        let m = &mut report["checks"][0]["measurements"][0];
        m["value"] = serde_json::json!(base + (i % 13) as f64 + i as f64 / 1e6);
        for (r, reading) in m["runs"].as_array_mut().unwrap().iter_mut().enumerate() {
            reading["value"] = serde_json::json!(base + ((i + r) % 13) as f64);
        }
        report["device"]["model"] = serde_json::json!(format!("MODEL-{model}"));
        report["lock"] = serde_json::json!("../../pack.lock.json");
        let folder = dir.join(format!("runs/{i:05}"));
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("audit-1.json"), report.to_string()).unwrap();
    }
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
        "history import of 10,000 audits",
        &["history", "--history", "h.sqlite", "import", "runs"],
        true,
    );
    time(
        "history --json over 10,000 audits",
        &["history", "--history", "h.sqlite", "--json"],
        false,
    );
    time(
        "history --changes over 10 series of 1,000",
        &["history", "--history", "h.sqlite", "--changes", "--json"],
        false,
    );
    let (_, bytes) = run(&["history", "--history", "h.sqlite", "--changes", "--json"]);
    assert!(bytes > 0);
}
