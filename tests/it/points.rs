//! The app's own trace points through the real binary: `inspect trace` on every marker form,
//! a pack's spans, sections and counters audited live through fake-hdc's screens app (the
//! whole flow's trace and the cold start's), replayed, verified, compared, and A/B-tested on
//! one device; and the packs that cannot be traced refused when they are read.

use std::fs;
use std::path::{Path, PathBuf};

use dwpipe::schema::{AbRecord, AuditReport, Comparison, Outcome, Regression};

use crate::ab::ab_args;
use crate::support::{Audited, Ran, Test, fake_hdc, fixture, frozen_fixture, parse, read};

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

fn outcome(report: &AuditReport, id: &str) -> (String, String) {
    (
        report.result(id).as_str().to_owned(),
        report.actual(id).unwrap_or("-").to_owned(),
    )
}

fn pair(result: &str, actual: &str) -> (String, String) {
    (result.to_owned(), actual.to_owned())
}

#[test]
fn inspect_lists_every_occurrence_of_the_apps_trace_points_in_every_form() {
    let dir = tempfile::tempdir().unwrap();
    let trace = fixture("hitrace/app_points.ftrace");
    let trace = trace.to_str().unwrap();
    let Ran { stdout, .. } = Test::new(dir.path())
        .args(["inspect", "trace", trace])
        .args(["--span", "feed requested..H:feed shown"])
        .args(["--section", "decode page", "--section", "/^load/"])
        .args(["--counter", "image-cache-bytes", "--counter", "absent"])
        .run();
    for line in [
        // From the 5.x level-field form to the older trailing-space one.
        "spans from `feed requested` to `feed shown`: 1 occurrence(s): first 720.000",
        "       1.000000 s →       1.720000 s  tid 5000    720.000",
        // On another thread of the app, its tgid printed as dashes, then as a number.
        "section `decode page`: 2 occurrence(s): first 30.000, last 40.000",
        "       1.100000 s →       1.130000 s  tid 5013    30.000",
        // Async, by task id, in the level-field and the older space-separated forms.
        "section `/^load/`: 2 occurrence(s): first 350.000, last 60.000",
        // Space-separated and level-field counters.
        "counter `image-cache-bytes`: 2 occurrence(s): first 1720.000, last 209715200.000",
        "counter `absent`: none (0 start(s), 0 end(s) seen)",
    ] {
        assert!(stdout.contains(line), "{line}\n{stdout}");
    }
    let Ran { stdout, .. } = Test::new(dir.path())
        .args([
            "inspect",
            "trace",
            trace,
            "--section",
            "decode page",
            "--json",
        ])
        .run();
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let point = &report["points"][0];
    assert_eq!(point["question"], "section `decode page`");
    assert_eq!(
        (point["count"].as_u64(), point["max"].as_f64()),
        (Some(2), Some(40.0))
    );
    assert_eq!(point["shown"][1]["begin_s"].as_f64(), Some(1.2));
    // A span without its two ends, and a pattern that does not compile, are usage errors.
    for (flag, value, said) in [
        ("--span", "feed requested", "is not `FROM..TO`"),
        ("--section", "/(/", "a pattern that compiles"),
    ] {
        Test::new(dir.path())
            .args(["inspect", "trace", trace, flag, value])
            .status(2)
            .stderr_contains("E_INSPECT_USAGE")
            .stderr_contains(said)
            .run();
    }
}

#[test]
fn a_binary_trace_is_named_never_read() {
    let dir = tempfile::tempdir().unwrap();
    // The header `hitrace --raw` and the snapshot and record modes' `.sys` files begin with
    // (trace_content.h: magic 0xDF49, file type, version 1).
    let mut sys = vec![0x49, 0xDF, 0x00, 0x00, 0x01, 0x00];
    sys.extend(std::iter::repeat_n(0u8, 4096));
    fs::write(dir.path().join("trace-26120611.sys"), &sys).unwrap();
    let mut htrace = b"OHOSPROF".to_vec();
    htrace.extend(std::iter::repeat_n(0u8, 1016));
    fs::write(dir.path().join("x.htrace"), &htrace).unwrap();
    for (file, said) in [
        ("trace-26120611.sys", "a binary hitrace recording"),
        (
            "x.htrace",
            "a binary DevEco Profiler / hiprofiler recording",
        ),
    ] {
        Test::new(dir.path())
            .args(["inspect", "trace", file, "--span", "a..b"])
            .status(2)
            .stderr_contains("E_INSPECT_NOT_A_TRACE")
            .stderr_contains(said)
            .stderr_contains("hitrace --trace_finish -o")
            .run();
    }
}

/// An audit of tests/fixtures/packs/points.yaml live through `device` (a screens app whose
/// every trace carries the app's trace points), recorded into `record` when given.
fn live(dir: &Path, device: &str, serial: &str, out: &str, record: Option<&str>) -> AuditReport {
    let hdc = fake_hdc(
        dir,
        &format!("hdc-{serial}"),
        &[repo(&format!("device-fixtures/{device}"))
            .display()
            .to_string()],
        "",
    );
    let mut args = vec![
        "audit",
        "--pack",
        "pack.lock.json",
        "--device",
        serial,
        "--hdc",
        hdc.to_str().unwrap(),
        "--out",
        out,
        "--json",
    ];
    if let Some(record) = record {
        args.extend(["--record", record]);
    }
    let Ran { stdout, .. } = Test::new(dir).args(args).status_in(&[0, 1]).run();
    parse(&stdout)
}

#[test]
fn the_apps_spans_sections_and_counters_are_gated_replayed_verified_and_compared() {
    let dir = frozen_fixture("packs/points.yaml");
    let dir = dir.path();
    let report = live(
        dir,
        "notes-screens-points",
        "POINTS01",
        "live",
        Some("recorded"),
    );
    // Over the whole flow's trace, and the cold start's.
    assert_eq!(outcome(&report, "P-20"), pair("pass", "720ms"));
    assert_eq!(outcome(&report, "P-21"), pair("pass", "40ms"));
    // 200 MB in bytes, converted exactly: the bound holds at its edge.
    assert_eq!(outcome(&report, "P-22"), pair("pass", "209715200B"));
    assert_eq!(outcome(&report, "P-23"), pair("pass", "2457600"));
    assert_eq!(outcome(&report, "P-24"), pair("pass", "720ms"));
    // A section the trace does not hold is unverified with its name, never 0.
    assert_eq!(outcome(&report, "P-25").0, "unverified");
    let text = fs::read_to_string(dir.join("live/audit-1.md")).unwrap();
    assert!(
        text.contains("no section `feed refresh`") && text.contains("flow.ftrace"),
        "{text}"
    );
    // The flow's window is its own trace, with the device's clock before it.
    let flow = dir.join("live/evidence/POINTS01/1/flow-open-note");
    assert!(flow.join("flow.ftrace").is_file() && flow.join("flow.clock").is_file());
    // Five runs of the span, aggregated like any timed probe.
    let runs = report.check("P-20").measurements[0].runs.len();
    assert_eq!(runs, 5);
    // Replayed, the capture gives the same verdicts; the audit holds up against its evidence.
    let Ran { stdout, .. } = Test::new(dir)
        .args(["audit", "--pack", "pack.lock.json", "--replay", "recorded"])
        .args(["--out", "replayed", "--json"])
        .status_in(&[0, 1])
        .run();
    let replayed: AuditReport = parse(&stdout);
    for id in ["P-20", "P-21", "P-22", "P-23", "P-24", "P-25"] {
        assert_eq!(outcome(&replayed, id), outcome(&report, id), "{id}");
    }
    Test::new(dir)
        .args([
            "verify-evidence",
            "live/audit-1.json",
            "--pack",
            "pack.lock.json",
        ])
        .stdout_contains("0 difference(s)")
        .run();
    // The feed shown 1200 ms after it was requested: failed, and regressed against the first.
    let slower = live(
        dir,
        "notes-screens-points-slower",
        "POINTS02",
        "slower",
        None,
    );
    assert_eq!(outcome(&slower, "P-20"), pair("fail", "1200ms"));
    Test::new(dir)
        .args([
            "compare",
            "live/audit-1.json",
            "slower/audit-1.json",
            "--out",
            "cmp",
        ])
        .status(1)
        .stdout_contains("regressed")
        .run();
    let comparison: Comparison = read(dir.join("cmp/compare.json"));
    let p20 = comparison
        .criteria
        .iter()
        .find(|c| c.criterion_id == "P-20")
        .unwrap();
    assert_eq!(p20.outcome, Some(Outcome::Different));
    assert_eq!(p20.delta, Some(480.0));
}

#[test]
fn a_slower_span_regresses_in_a_same_device_ab_session() {
    let dir = frozen_fixture("packs/points-cold.yaml");
    let dir = dir.path();
    let hdc = fake_hdc(
        dir,
        "hdc",
        &[repo("device-fixtures/ab-phone-points")
            .display()
            .to_string()],
        "",
    );
    Test::new(dir)
        .args(ab_args(dir, &hdc, &["--device", "AB0POINTS1"], "16"))
        .status(1)
        .run();
    let record: AbRecord = read(dir.join("out/ab.json"));
    assert_eq!(record.regression, Regression::Regressed, "{record:?}");
    let comparison: Comparison = read(dir.join("out/compare.json"));
    let delta = comparison.criteria[0].delta.unwrap();
    // The arms were drawn around 720 and 800 ms.
    assert!((60.0..100.0).contains(&delta), "{delta}");
    Test::new(dir)
        .args([
            "verify-evidence",
            "out/compare.json",
            "--pack",
            "pack.lock.json",
        ])
        .run();
}

#[test]
fn a_pack_whose_traces_overlap_or_name_no_point_is_refused_when_read() {
    let pack = fs::read_to_string(fixture("packs/points.yaml")).unwrap();
    let rows = [
        // A window over the whole flow, and the open step traced on its own.
        (
            "probe: { id: perf.section, name: decode page, of: max, flow: open-note, runs: 1 }",
            "probe: { id: perf.response, flow: open-note, step: open, runs: 1 }",
            "E_PACK_TRACES_OVERLAP",
        ),
        (
            "probe: { id: perf.span, from: feed requested, to: feed shown, runs: 1 }",
            "probe: { id: perf.span, from: feed requested, to: \"/(/\", runs: 1 }",
            "a pattern that compiles",
        ),
        (
            "probe: { id: perf.span, from: feed requested, to: feed shown, runs: 1 }",
            "probe: { id: perf.span, from: feed requested, to: feed shown, of: max, runs: 1 }",
            "`of` with `pick: each` only",
        ),
        (
            "probe: { id: perf.span, from: feed requested, to: feed shown, runs: 1 }",
            "probe: { id: perf.span, from: feed requested, to: feed shown, step: open, runs: 1 }",
            "names a step of no flow",
        ),
        (
            "value: \"arg:area\"",
            "value: \"area\"",
            "`duration`, or `arg:KEY`",
        ),
        (
            "of: max, unit: B,",
            "of: max, unit: furlongs,",
            "`count`, or a unit dwpipe knows",
        ),
        (
            "probe: { id: perf.section, name: decode page, of: max, flow: open-note, runs: 1 }",
            "probe: { id: perf.section, name: decode page, of: max, unit: B, flow: open-note }",
            "applies to `value: arg:KEY`",
        ),
        (
            "flow: open-note, runs: 5",
            "flow: open-note, steps: [3, open], runs: 5",
            "ends before it begins",
        ),
    ];
    for (from, to, expected) in rows {
        let dir = tempfile::tempdir().unwrap();
        assert!(pack.contains(from), "{from}");
        fs::write(dir.path().join("bad.yaml"), pack.replacen(from, to, 1)).unwrap();
        Test::new(dir.path())
            .args(["freeze", "bad.yaml"])
            .status(2)
            .stderr_contains(expected)
            .run();
        assert!(!dir.path().join("pack.lock.json").exists());
    }
    // One pass of a trace answers at most 64 questions: a pack asking more is refused.
    let head = &pack[..pack.find("criteria:").unwrap()];
    let criteria: String = (0..65)
        .map(|n| format!(
            "  - id: C-{n}\n    dimension: performance\n    statement: Counter {n} stays low\n    weight: should\n    assertion: {{ matcher: lte, expected: 1, probe: {{ id: perf.counter, name: c{n} }} }}\n"
        ))
        .collect();
    let many = format!("{head}criteria:\n{criteria}");
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("many.yaml"), many).unwrap();
    Test::new(dir.path())
        .args(["freeze", "many.yaml"])
        .status(2)
        .stderr_contains("E_PACK_TOO_MANY_POINTS")
        .stderr_contains("asks 65 trace points")
        .run();
}

/// On OpenHarmony 6.0 (API 20) hitrace keeps a level threshold, Info by default, and the phone
/// drops markers below it: the feed shown is marked at Debug, so it is only in the trace
/// because dwpipe lowered the threshold for each trace and set it back after.
#[test]
fn on_a_six_zero_phone_the_trace_level_is_read_lowered_for_the_trace_and_set_back() {
    let dir = frozen_fixture("packs/points.yaml");
    let dir = dir.path();
    let report = live(
        dir,
        "notes-screens-points-6",
        "POINTS06",
        "live",
        Some("recorded"),
    );
    assert_eq!(outcome(&report, "P-20"), pair("pass", "720ms"));
    assert_eq!(outcome(&report, "P-24"), pair("pass", "720ms"));
    let level = dir.join("live/evidence/POINTS06/1/flow-open-note/flow.level");
    let said = fs::read_to_string(&level).unwrap();
    for line in [
        "$ hitrace --get_level",
        "the current trace level threshold is Info",
        "$ hitrace --trace_level D",
        "$ hitrace --trace_level I",
    ] {
        assert!(said.contains(line), "{line}: {said}");
    }
    assert!(
        dir.join("live/evidence/POINTS06/1/cold-start/trace.level")
            .is_file()
    );
    // The phone is left at its own threshold.
    let state = fs::read_to_string(dir.join("state/POINTS06.screens")).unwrap();
    assert!(state.contains("level\tI"), "{state}");
    // The phone drops what is below it: left at Info, the trace it writes has no feed shown.
    let hdc = dir.join("hdc-POINTS06");
    let run = |args: &[&str]| {
        let out = std::process::Command::new(&hdc)
            .args(args)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    run(&[
        "-t",
        "POINTS06",
        "shell",
        "hitrace --trace_finish -o /data/local/tmp/x.ftrace",
    ]);
    let pulled = dir.join("x.ftrace");
    run(&[
        "-t",
        "POINTS06",
        "file",
        "recv",
        "/data/local/tmp/x.ftrace",
        pulled.to_str().unwrap(),
    ]);
    let trace = fs::read_to_string(&pulled).unwrap();
    assert!(
        trace.contains("feed requested") && !trace.contains("feed shown"),
        "{trace}"
    );
    // Replayed, the same; without the threshold's record, a point proves nothing.
    Test::new(dir)
        .args([
            "audit",
            "--pack",
            "pack.lock.json",
            "--replay",
            "recorded",
            "--out",
            "replayed",
        ])
        .status_in(&[0, 1])
        .stdout_contains("720 ms ≤ 800 ms")
        .run();
    fs::remove_file(&level).unwrap();
    Test::new(dir)
        .args([
            "verify-evidence",
            "live/audit-1.json",
            "--pack",
            "pack.lock.json",
        ])
        .status(1)
        .stdout_contains("was traced on OpenHarmony 6.0 or later without its level t")
        .run();
}
