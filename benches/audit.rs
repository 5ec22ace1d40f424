//! `dwpipe audit --replay` of the passing notes-app capture, end to end (freeze excluded), and
//! the share of parsing (the extractors over the stored evidence), hashing (SHA-256 of the
//! evidence), report rendering (JSON, Markdown, JUnit, HTML) and the filmstrip of its flow
//! (each step's screen decoded and shrunk) in it; and `verify-evidence` rebuilding that audit
//! from its folder. Then the device time of one audit of the example pack on a simulated phone
//! (`sim`: assumed per-call delays, an app drawn 700 ms after a cold `aa start`), with the
//! sessions waiting a fixed time after `aa start` (before) and polling for the app's window
//! with that wait as the ceiling (after). A flow's `launch` step polls in both: its fixed wait
//! is not a playbook's to restore (it waited its whole timeout, 2 s, before readiness polls).
//!
//! `cargo bench --bench audit`

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

mod sim;

use dwpipe::audit::thumbnail_of;
use dwpipe::audit::{self, AuditSpec, Context, Decoded, Files};
use dwpipe::device::{Device, ReplayDevice};
use dwpipe::hash::sha256_hex;
use dwpipe::pack::load_lock;
use dwpipe::playbook::Playbooks;
use dwpipe::report::{html, junit, markdown};
use dwpipe::schema::AuditReport;

const RUNS: usize = 20;

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn timed(mut work: impl FnMut()) -> Duration {
    median(
        (0..RUNS)
            .map(|_| {
                let started = Instant::now();
                work();
                started.elapsed()
            })
            .collect(),
    )
}

fn main() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let work = tempfile::tempdir().unwrap();
    let bin = env!("CARGO_BIN_EXE_dwpipe");
    let freeze = Command::new(bin)
        .args([
            "freeze",
            repo.join("examples/notes/pack.yaml").to_str().unwrap(),
        ])
        .current_dir(work.path())
        .output()
        .unwrap();
    assert!(freeze.status.success());
    let capture = repo.join("device-fixtures/notes-pass");
    let mut n = 0;
    let process = timed(|| {
        n += 1;
        let out = format!("process-{n}");
        let status = Command::new(bin)
            .args([
                "audit",
                "--pack",
                "pack.lock.json",
                "--replay",
                capture.to_str().unwrap(),
                "--out",
                &out,
                "--json",
            ])
            .current_dir(work.path())
            .output()
            .unwrap()
            .status;
        assert!(status.success());
    });
    // The same audit rebuilt from its folder and compared, field by field.
    let rebuild = timed(|| {
        let output = Command::new(bin)
            .args([
                "verify-evidence",
                "process-1/audit-1.json",
                "--pack",
                "pack.lock.json",
            ])
            .current_dir(work.path())
            .output()
            .unwrap();
        assert!(output.status.success());
    });

    let frozen = load_lock(&work.path().join("pack.lock.json")).unwrap();
    let playbooks = Playbooks::load(None).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let out = work.path().join("in-process");
    let run = runtime
        .block_on(audit::run(
            &ReplayDevice::open(&capture).unwrap(),
            &AuditSpec::new(&frozen.pack, &playbooks),
            &out,
            &|_| {},
        ))
        .unwrap();
    let audited = run.gate(&frozen.pack);
    let report = AuditReport::of_audit(
        &frozen.lock.sha256,
        &audited,
        Some("../pack.lock.json".into()),
    );

    let evidence: Vec<_> = audited
        .measurements
        .iter()
        .flat_map(|m| &m.runs)
        .flat_map(|r| &r.files)
        .map(|f| out.join(&f.path))
        .collect();
    let hashing = timed(|| {
        for path in &evidence {
            std::hint::black_box(sha256_hex(&std::fs::read(path).unwrap()));
        }
    });
    let context = Context {
        bundle: &frozen.pack.doc.app.bundle.value,
        vpr: audited.device.virtual_pixel_ratio,
        charging_off: false,
        samples: None,
        api_level: audited.device.api_level,
    };
    // What the audit does once per session visit: decode the files, run every probe's
    // extractor over them.
    let parsing = timed(|| {
        for m in &audited.measurements {
            let criterion = frozen.pack.criteria.iter().find(|c| c.id == m.criterion_id);
            let probe = &criterion
                .and_then(|c| c.assertion.as_ref()?.probe.as_ref())
                .unwrap()
                .args;
            for r in &m.runs {
                let files: Files = r
                    .files
                    .iter()
                    .map(|f| {
                        let path = out.join(&f.path);
                        (
                            path.file_name().unwrap().to_string_lossy().into_owned(),
                            path,
                        )
                    })
                    .collect();
                let decoded = Decoded::new(&files, context);
                std::hint::black_box(audit::extract(m.extractor, &decoded, probe).unwrap());
            }
        }
    });
    // The report's filmstrip: each step screen of a flow's first run, decoded and shrunk
    // (the audit does this once, while it has the evidence).
    let mut screens: Vec<_> = evidence
        .iter()
        .filter(|p| {
            p.to_string_lossy().contains("/1/flow-")
                && p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .ends_with("-screen.png")
        })
        .collect();
    // Every criterion of the flow lists the visit's files: each screen once, and, as the
    // audit does, a screen that did not change between steps only once.
    screens.sort();
    screens.dedup();
    let mut seen = std::collections::HashSet::new();
    screens.retain(|p| seen.insert(sha256_hex(&std::fs::read(p).unwrap())));
    let filmstrip = timed(|| {
        for path in &screens {
            let bytes = std::fs::read(path).unwrap();
            std::hint::black_box(thumbnail_of(&bytes, 180).unwrap());
        }
    });
    let rendering = timed(|| {
        std::hint::black_box(report.to_json());
        std::hint::black_box(markdown(&report).unwrap());
        std::hint::black_box(junit(&report));
        std::hint::black_box(html(&report, &audited.figures, &frozen.pack));
    });
    let total = timed(|| {
        n += 1;
        let out = work.path().join(format!("total-{n}"));
        let run = runtime
            .block_on(audit::run(
                &ReplayDevice::open(&capture).unwrap(),
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
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let share = |d: Duration| 100.0 * d.as_secs_f64() / total.as_secs_f64();
    println!(
        "evidence: {} files in {} measurements (median of {RUNS})",
        evidence.len(),
        audited.measurements.len()
    );
    println!(
        "dwpipe audit --replay as a process      {:>8.2} ms",
        ms(process)
    );
    println!(
        "dwpipe verify-evidence as a process     {:>8.2} ms",
        ms(rebuild)
    );
    println!(
        "in process, replay + reports            {:>8.2} ms",
        ms(total)
    );
    println!(
        "  parsing (extractors over evidence)    {:>8.2} ms  {:>5.1}%",
        ms(parsing),
        share(parsing)
    );
    println!(
        "  hashing (SHA-256 of evidence)         {:>8.2} ms  {:>5.1}%",
        ms(hashing),
        share(hashing)
    );
    println!(
        "  rendering (JSON, MD, JUnit, HTML)     {:>8.2} ms  {:>5.1}%",
        ms(rendering),
        share(rendering)
    );
    println!(
        "  filmstrip ({} distinct screens shrunk)  {:>8.2} ms  {:>5.1}%",
        screens.len(),
        ms(filmstrip),
        share(filmstrip)
    );
    device_time(repo, &frozen, &runtime, work.path());
}

/// The embedded sessions as they were before readiness polls: each `ready` step the fixed
/// `sleep` of its ceiling, the wait it replaced.
fn fixed_waits(dir: &Path) -> Playbooks {
    let sessions = dir.join("sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    for entry in std::fs::read_dir(repo.join("playbooks/sessions")).unwrap() {
        let entry = entry.unwrap();
        let text = std::fs::read_to_string(entry.path()).unwrap();
        let mut ready = None;
        let out: String = text
            .lines()
            .filter_map(|line| {
                if let Some((indent, _)) = line.split_once("- ready:") {
                    ready = Some(indent.to_owned());
                    return None;
                }
                match (ready.take(), line.split_once("within:")) {
                    (Some(indent), Some((_, within))) => {
                        Some(format!("{indent}- sleep: {}\n", within.trim()))
                    }
                    _ => Some(format!("{line}\n")),
                }
            })
            .collect();
        std::fs::write(sessions.join(entry.file_name()), out).unwrap();
    }
    Playbooks::load(Some(dir)).unwrap()
}

/// One audit of the example pack on the simulated phone per way of waiting, under each set of
/// delays: its device seconds in all and per session, and how many times it asked whether the
/// app was there.
fn device_time(
    repo: &Path,
    frozen: &dwpipe::pack::Frozen,
    runtime: &tokio::runtime::Runtime,
    work: &Path,
) {
    let before = fixed_waits(&work.join("fixed-waits"));
    let after = Playbooks::load(None).unwrap();
    let bundle = &frozen.pack.doc.app.bundle.value;
    println!("device time of one audit of the example pack on a simulated phone (benches/sim):");
    for (delays, said) in [
        (
            sim::Delays::ASSUMED,
            "assumed delays (each call as benches/sim has it, pulls at 25 MB/s)",
        ),
        (
            sim::Delays::SLOW,
            "slow delays (every call twice as long, pulls at 10 MB/s)",
        ),
    ] {
        println!("  {said}");
        let mut totals = Vec::new();
        for (name, playbooks) in [
            ("sessions' fixed waits (before)", &before),
            ("readiness polls (after)", &after),
        ] {
            let device =
                sim::SimDevice::new(&repo.join("device-fixtures/notes-pass"), bundle, delays);
            let out = work.join(format!("sim-{}-{}", delays.scale, totals.len()));
            let run = runtime
                .block_on(audit::run(
                    &device,
                    &AuditSpec::new(&frozen.pack, playbooks),
                    &out,
                    &|_| {},
                ))
                .unwrap();
            let audited = run.gate(&frozen.pack);
            let report = AuditReport::of_audit(&frozen.lock.sha256, &audited, None);
            let json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
            let time = &json["device-time"];
            let passed = json["checks"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|c| c["result"] == "pass")
                .count();
            let mut per: std::collections::BTreeMap<String, f64> = Default::default();
            for visit in time["visits"].as_array().unwrap() {
                let visit_name = visit["visit"].as_str().unwrap();
                *per.entry(visit_name.to_owned()).or_default() +=
                    visit["seconds"].as_f64().unwrap();
            }
            let seconds = time["seconds"].as_f64().unwrap();
            println!(
                "    {name:<36} {seconds:>6.1} s  ({passed} checks pass; {} readiness looks; {:.1} s with the device's state read before and after)",
                device.looks(),
                device.clock().as_secs_f64()
            );
            let parts: Vec<String> = per.iter().map(|(v, s)| format!("{v} {s:.1} s")).collect();
            println!("        {}", parts.join(" · "));
            totals.push(seconds);
        }
        println!(
            "    cut: {:.1} s ({:.1} %)",
            totals[0] - totals[1],
            100.0 * (totals[0] - totals[1]) / totals[0]
        );
    }
}
