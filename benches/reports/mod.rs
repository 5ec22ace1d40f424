//! Audit reports made up for the history benches: one real audit (the cold-start fixture pack
//! replayed from `regress-base`, 10 runs of P-01) as the template, then as many copies as a
//! bench asks, each its own report of format 3 (its folder holds the report alone), an hour
//! after the one before, its median and runs set around a level the bench chooses.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

/// Freezes the pack in `dir` and writes `count` reports to `dir/runs/NNNNN/audit-1.json`:
/// report `i` started `i` hours after `from_year`-01-01, its value `level(i)` plus a saw of up
/// to 12 ms (its runs the same saw), then `edit`ed (a device model, a source).
pub(crate) fn write(
    repo: &Path,
    dir: &Path,
    count: usize,
    from_year: usize,
    level: impl Fn(usize) -> f64,
    edit: impl Fn(usize, &mut Value),
) {
    let run = |args: &[&str]| {
        let status = Command::new(env!("CARGO_BIN_EXE_dwpipe"))
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap()
            .status;
        assert!(status.success(), "{args:?}");
    };
    let pack = repo.join("tests/fixtures/packs/cold-start.yaml");
    run(&["freeze", pack.to_str().unwrap()]);
    let capture = repo.join("device-fixtures/regress-base");
    run(&[
        "audit",
        "--pack",
        "pack.lock.json",
        "--replay",
        capture.to_str().unwrap(),
        "--out",
        "seed",
    ]);
    let template: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("seed/audit-1.json")).unwrap())
            .unwrap();
    for i in 0..count {
        let mut report = template.clone();
        let base = level(i);
        let m = &mut report["checks"][0]["measurements"][0];
        m["value"] = json!(base + (i % 13) as f64 + i as f64 / 1e6);
        for (r, reading) in m["runs"].as_array_mut().unwrap().iter_mut().enumerate() {
            reading["value"] = json!(base + ((i + r) % 13) as f64);
        }
        let (day, hour) = (i / 24, i % 24);
        report["started"] = json!(format!(
            "{:04}-{:02}-{:02}T{hour:02}:00:00Z",
            from_year + day / 336,
            1 + day % 336 / 28,
            1 + day % 28
        ));
        report["lock"] = json!("../../pack.lock.json");
        // A report of format 3 (before audits kept their source record and lock).
        report["format-version"] = json!(3);
        let inputs = report["inputs"].as_object_mut().unwrap();
        inputs.remove("source");
        inputs.remove("lock");
        edit(i, &mut report);
        let folder = dir.join(format!("runs/{i:05}"));
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("audit-1.json"), report.to_string()).unwrap();
    }
}
