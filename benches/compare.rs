//! `dwpipe compare` of two audits with 1,000 runs per criterion and 100 criteria: the
//! statistics (two exact tests and a 10,000-resample bootstrap per criterion) are the cost.
//!
//! `cargo bench --bench compare`

use std::fmt::Write;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const CRITERIA: usize = 100;
const RUNS: usize = 1_000;
const REPEATS: usize = 5;

/// A reproducible cold start around `mean` ms (a small LCG: the bench needs spread, not rigour).
fn runs(seed: u64, mean: f64) -> Vec<f64> {
    let mut state = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
    (0..RUNS)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            mean + ((state >> 33) % 60) as f64 - 30.0
        })
        .collect()
}

fn main() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bin = env!("CARGO_BIN_EXE_dwpipe");
    let work = tempfile::tempdir().unwrap();
    let dir = work.path();
    let run = |args: &[&str]| {
        let output = Command::new(bin)
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap();
        output.status.code().unwrap()
    };
    // A pack of 100 cold-start criteria, and one real audit as the template of every check.
    let mut pack = String::from(
        "version: 1\napp: { bundle: com.example.notes, ability: EntryAbility }\ncriteria:\n",
    );
    for i in 0..CRITERIA {
        let _ = writeln!(
            pack,
            "  - {{ id: P-{i:03}, dimension: performance, statement: Cold start ≤ 1100ms, weight: must, assertion: {{ matcher: lte, expected: 1100, unit: ms, probe: {{ id: perf.cold-start, runs: 10 }} }} }}"
        );
    }
    std::fs::write(dir.join("pack.yaml"), pack).unwrap();
    assert_eq!(run(&["freeze", "pack.yaml"]), 0);
    let single = repo.join("tests/fixtures/packs/cold-start.yaml");
    assert_eq!(
        run(&["freeze", single.to_str().unwrap(), "--out", "single"]),
        0
    );
    let capture = repo.join("device-fixtures/regress-base");
    assert_eq!(
        run(&[
            "audit",
            "--pack",
            "single/pack.lock.json",
            "--replay",
            capture.to_str().unwrap(),
            "--out",
            "template"
        ]),
        0
    );
    let template: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("template/audit-1.json")).unwrap()).unwrap();
    let arm = |name: &str, mean: f64| {
        let mut audit = template.clone();
        let check = audit["checks"][0].clone();
        let run_template = check["measurements"][0]["runs"][0].clone();
        audit["checks"] = (0..CRITERIA)
            .map(|i| {
                let mut c = check.clone();
                let id = format!("P-{i:03}");
                c["criterionId"] = id.clone().into();
                c["measurements"][0]["criterion-id"] = id.into();
                c["measurements"][0]["runs"] = runs(i as u64 + mean as u64, mean)
                    .into_iter()
                    .enumerate()
                    .map(|(n, v)| {
                        let mut r = run_template.clone();
                        r["run"] = (n + 1).into();
                        r["value"] = v.into();
                        r
                    })
                    .collect();
                c
            })
            .collect();
        audit["lock"] = "pack.lock.json".into();
        std::fs::write(dir.join(name), audit.to_string()).unwrap();
    };
    arm("base.json", 700.0);
    arm("candidate.json", 707.0);
    let mut times: Vec<Duration> = (0..REPEATS)
        .map(|_| {
            let started = Instant::now();
            let code = run(&["compare", "base.json", "candidate.json", "--out", "out"]);
            assert!(code == 0 || code == 1, "compare exited {code}");
            started.elapsed()
        })
        .collect();
    times.sort();
    let median = times[REPEATS / 2];
    println!(
        "dwpipe compare, {CRITERIA} criteria × {RUNS} runs an arm (median of {REPEATS}): {:.2} s, {:.1} ms per criterion",
        median.as_secs_f64(),
        median.as_secs_f64() * 1e3 / CRITERIA as f64
    );
}
