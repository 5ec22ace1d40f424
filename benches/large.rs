//! Large inputs stay linear: layout analysis of a dump with 200,000 clickable nodes, and the
//! replayed audit of a 20,000-criterion pack (the notes pack's criteria, repeated, against the
//! notes-pass capture), each with its time (median of several runs) and peak heap (counted by
//! the global allocator, in a child process of its own so one phase's peak is not the
//! other's). The 20,000-criterion audit is also timed at 5,000 and 10,000 criteria: linear
//! work doubles with the criteria.
//!
//! `cargo bench --bench large`

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use dwpipe::audit::{self, AuditSpec};
use dwpipe::device::ReplayDevice;
use dwpipe::pack::load_lock;
use dwpipe::playbook::Playbooks;
use dwpipe::probe::layout::Layout;
use dwpipe::report::{html, junit, markdown};
use dwpipe::schema::AuditReport;
use peak_alloc::PeakAlloc;

#[global_allocator]
static HEAP: PeakAlloc = PeakAlloc;

const CLICKABLES: usize = 200_000;
const PHASE: &str = "DWPIPE_BENCH_PHASE";

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// Runs `work` `runs` times; prints the median ms, the peak heap over them in MB (beyond what
/// was live before) and `third`, for the parent to read.
fn report_runs(runs: u32, third: f64, mut work: impl FnMut(u32)) {
    HEAP.reset_peak_usage();
    let base = HEAP.current_usage();
    let times: Vec<Duration> = (0..runs)
        .map(|n| {
            let started = Instant::now();
            work(n);
            started.elapsed()
        })
        .collect();
    let peak = HEAP.peak_usage() - base;
    println!(
        "{} {} {third}",
        median(times).as_secs_f64() * 1e3,
        peak as f64 / 1e6
    );
}

/// A merged dump: one app window, a scrolled List of `CLICKABLES` clickable items 120 px tall
/// (most of them below the List's viewport), every second one labelled by a Text child.
fn dump() -> Vec<u8> {
    let mut items = Vec::with_capacity(CLICKABLES);
    for n in 0..CLICKABLES {
        let top = 200 + 120 * n as i64;
        let bounds = format!("[0,{top}][1260,{}]", top + 120);
        let child = if n % 2 == 0 {
            format!(
                r#"{{"attributes":{{"type":"Text","text":"item {n}","bounds":"{bounds}","origBounds":"{bounds}"}},"children":[]}}"#
            )
        } else {
            String::new()
        };
        items.push(format!(
            r#"{{"attributes":{{"id":"item_{n}","type":"ListItem","clickable":"true","bounds":"{bounds}","origBounds":"{bounds}","visible":"true"}},"children":[{child}]}}"#
        ));
    }
    format!(
        r#"{{"attributes":{{"bounds":"[0,0][1260,2720]","origBounds":""}},"children":[{{"attributes":{{"bundleName":"com.example.notes","type":"root","bounds":"[0,123][1260,2720]","origBounds":"[0,0][1260,2720]"}},"children":[{{"attributes":{{"id":"list","type":"List","scrollable":"true","bounds":"[0,300][1260,2300]","origBounds":"[0,300][1260,2300]"}},"children":[{}]}}]}}]}}"#,
        items.join(",")
    )
    .into_bytes()
}

/// In a child: parse and report the dump 5 times.
fn layout_phase() {
    let bytes = dump();
    report_runs(5, bytes.len() as f64 / 1e6, |_| {
        let layout = Layout::parse(&bytes).unwrap();
        let report = layout.report(Some("com.example.notes"), 3.25);
        assert_eq!(
            report.nodes,
            2 + CLICKABLES + CLICKABLES / 2,
            "window, List, items, labels"
        );
        std::hint::black_box(report);
    });
}

/// In a child: the replayed audit of the pack in `dir` with its reports, 3 times.
fn audit_phase(dir: &Path) {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let frozen = load_lock(&dir.join("pack.lock.json")).unwrap();
    let playbooks = Playbooks::load(None).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    report_runs(3, frozen.pack.criteria.len() as f64, |n| {
        let out = dir.join(format!("out-{n}"));
        let run = runtime
            .block_on(audit::run(
                &ReplayDevice::open(&repo.join("device-fixtures/notes-pass")).unwrap(),
                &AuditSpec::new(&frozen.pack, &playbooks),
                &out,
                &|_| {},
            ))
            .unwrap();
        let audited = run.gate(&frozen.pack);
        let report = AuditReport::of_audit(&frozen.lock.sha256, &audited, None);
        std::hint::black_box((
            report.to_json(),
            markdown(&report).unwrap(),
            junit(&report),
            html(&report, &audited.figures, &frozen.pack),
        ));
    });
}

/// The notes pack's criteria repeated to `count`, frozen into `dir` (as JSON: a generated
/// pack of this size is past YAML's node budget).
fn big_pack(dir: &Path, count: usize) {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bin = env!("CARGO_BIN_EXE_dwpipe");
    let notes = dir.join("notes");
    std::fs::create_dir_all(&notes).unwrap();
    let frozen = Command::new(bin)
        .args([
            "freeze",
            repo.join("examples/notes/pack.yaml").to_str().unwrap(),
        ])
        .current_dir(&notes)
        .output()
        .unwrap();
    assert!(frozen.status.success());
    let lock: serde_json::Value =
        serde_json::from_slice(&std::fs::read(notes.join("pack.lock.json")).unwrap()).unwrap();
    let mut pack = lock["pack"].clone();
    let base = pack["criteria"].as_array().unwrap().clone();
    let criteria: Vec<serde_json::Value> = (0..count)
        .map(|i| {
            let mut c = base[i % base.len()].clone();
            let c_map = c.as_object_mut().unwrap();
            c_map.remove("ruleId");
            c_map.insert("id".into(), format!("C-{i:05}").into());
            c_map.insert("statement".into(), format!("c{i}").into());
            c_map.insert("verify".into(), "g".into());
            c
        })
        .collect();
    pack["criteria"] = criteria.into();
    std::fs::write(dir.join("pack.json"), serde_json::to_vec(&pack).unwrap()).unwrap();
    let frozen = Command::new(bin)
        .args(["freeze", "pack.json"])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        frozen.status.success(),
        "{}",
        String::from_utf8_lossy(&frozen.stderr)
    );
}

/// Runs this bench again as a child for one phase; returns its three figures.
fn child(phase: &str, dir: Option<&Path>) -> (f64, f64, f64) {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command.env(PHASE, phase);
    if let Some(dir) = dir {
        command.env("DWPIPE_BENCH_DIR", dir);
    }
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8(output.stdout).unwrap();
    let numbers: Vec<f64> = text
        .split_whitespace()
        .map(|n| n.parse().unwrap())
        .collect();
    (numbers[0], numbers[1], numbers[2])
}

fn main() {
    match std::env::var(PHASE).as_deref() {
        Ok("layout") => return layout_phase(),
        Ok("audit") => return audit_phase(Path::new(&std::env::var("DWPIPE_BENCH_DIR").unwrap())),
        _ => {}
    }
    let (ms, peak, mb) = child("layout", None);
    println!(
        "layout: {CLICKABLES} clickable nodes ({mb:.1} MB dump), parse + report  {ms:>8.1} ms  peak heap {peak:>7.1} MB"
    );
    let work = tempfile::tempdir().unwrap();
    for count in [5_000, 10_000, 20_000] {
        let dir = work.path().join(count.to_string());
        std::fs::create_dir_all(&dir).unwrap();
        big_pack(&dir, count);
        let (ms, peak, criteria) = child("audit", Some(&dir));
        println!(
            "audit --replay of {criteria:>6} criteria, with reports         {ms:>8.1} ms  peak heap {peak:>7.1} MB"
        );
    }
}
