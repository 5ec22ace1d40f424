//! Freeze + gate of a generated 1,000-criterion pack with a 1,000-check audit.
//!
//! `cargo bench --bench freeze_gate` prints the median and fastest time of each phase over
//! repeated runs (in-memory: no file I/O, so the figures are dwpipe's own work).

use std::fmt::Write;
use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use dwpipe::assertion::UnitContext;
use dwpipe::gate::{CheckInput, CheckResult, recompute};
use dwpipe::pack::{freeze, load_lock, parse_pack, validate};
use dwpipe::report::markdown;
use dwpipe::schema::AuditReport;

const CRITERIA: usize = 1_000;
const ITERATIONS: usize = 30;

fn generated_pack() -> String {
    let mut yaml = String::from("version: 1\napp:\n  bundle: com.example.notes\ncriteria:\n");
    let shapes = [
        (
            "performance",
            "lte",
            "expected: 800\n      unit: ms\n      probe: { id: perf.cold-start, runs: 3 }",
        ),
        (
            "aesthetic",
            "range",
            "min: 11.5\n      max: 12.5\n      unit: vp\n      probe: { id: layout.gap, from: 'id:a', to: 'id:b' }",
        ),
        ("accessibility", "gte", "expected: 4.5\n      unit: ratio"),
        // Distinct per criterion (see below), so no regex is compiled once and reused.
        ("function", "regex", "expected: '^\\d+ notes( #{i})?$'"),
    ];
    for i in 0..CRITERIA {
        let (dimension, matcher, rest) = shapes[i % shapes.len()];
        let rest = rest.replace("{i}", &i.to_string());
        let _ = write!(
            yaml,
            "  - id: C-{i:04}\n    dimension: {dimension}\n    statement: generated criterion {i}\n    weight: must\n    assertion:\n      matcher: {matcher}\n      {rest}\n"
        );
    }
    yaml
}

fn generated_checks() -> Vec<CheckInput> {
    let actuals = ["720ms", "12vp", "4.9:1", "12 notes"];
    (0..CRITERIA)
        .map(|i| CheckInput {
            criterion_id: format!("C-{i:04}"),
            result: CheckResult::Pass,
            evidence: "generated".to_owned(),
            actual: Some(actuals[i % actuals.len()].to_owned()),
        })
        .collect()
}

fn measure(name: &str, mut work: impl FnMut()) {
    let mut times: Vec<Duration> = (0..ITERATIONS)
        .map(|_| {
            let started = Instant::now();
            work();
            started.elapsed()
        })
        .collect();
    times.sort();
    println!(
        "{name:<48} median {:>9.3} ms   fastest {:>9.3} ms   ({ITERATIONS} runs)",
        times[ITERATIONS / 2].as_secs_f64() * 1e3,
        times[0].as_secs_f64() * 1e3
    );
}

fn main() {
    let yaml = generated_pack();
    let checks = generated_checks();
    let path = Path::new("generated.yaml");
    println!(
        "pack: {CRITERIA} criteria, {} bytes of YAML; audit: {} checks",
        yaml.len(),
        checks.len()
    );

    measure("  of which: parse YAML", || {
        black_box(parse_pack(path, yaml.as_bytes()).unwrap());
    });
    measure("freeze (parse + validate + hash)", || {
        let (doc, _) = parse_pack(path, yaml.as_bytes()).unwrap();
        let (pack, diagnostics) = validate(doc, path);
        black_box(freeze(pack.unwrap(), diagnostics));
    });
    let (doc, _) = parse_pack(path, yaml.as_bytes()).unwrap();
    let (pack, diagnostics) = validate(doc, path);
    let frozen = freeze(pack.unwrap(), diagnostics);
    measure("gate (recompute 1,000 checks)", || {
        black_box(recompute(
            &frozen.pack,
            &checks,
            &[],
            UnitContext::default(),
        ));
    });
    measure("gate + report (JSON + Markdown)", || {
        let outcome = recompute(&frozen.pack, &checks, &[], UnitContext::default());
        assert!(
            outcome.diagnostics.is_empty(),
            "{:?}",
            outcome.diagnostics.first()
        );
        let report = AuditReport::of_gate(&frozen.lock.sha256, outcome);
        black_box(report.to_json());
        black_box(markdown(&report).unwrap());
    });
    let lock_path =
        std::env::temp_dir().join(format!("dwpipe-bench-{}.lock.json", std::process::id()));
    std::fs::write(
        &lock_path,
        serde_json::to_string_pretty(&frozen.lock).unwrap(),
    )
    .unwrap();
    measure("`dwpipe gate` work: load lock + gate + report", || {
        let frozen = load_lock(&lock_path).unwrap();
        let outcome = recompute(&frozen.pack, &checks, &[], UnitContext::default());
        let report = AuditReport::of_gate(&frozen.lock.sha256, outcome);
        black_box(report.to_json());
        black_box(markdown(&report).unwrap());
    });
    let _ = std::fs::remove_file(&lock_path);
    measure("freeze + gate + report, end to end", || {
        let (doc, _) = parse_pack(path, yaml.as_bytes()).unwrap();
        let (pack, diagnostics) = validate(doc, path);
        let frozen = freeze(pack.unwrap(), diagnostics);
        let outcome = recompute(&frozen.pack, &checks, &[], UnitContext::default());
        let report = AuditReport::of_gate(&frozen.lock.sha256, outcome);
        black_box(report.to_json());
        black_box(markdown(&report).unwrap());
    });
}
