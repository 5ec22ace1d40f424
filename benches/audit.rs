//! `dwpipe audit --replay` of the passing notes-app capture, end to end (freeze excluded), and
//! the share of parsing (the extractors over the stored evidence), hashing (SHA-256 of the
//! evidence), report rendering (JSON, Markdown, JUnit, HTML) and the filmstrip of its flow
//! (each step's screen decoded and shrunk) in it; and `verify-evidence` rebuilding that audit
//! from its folder.
//!
//! `cargo bench --bench audit`

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use dwpipe::audit::{self, AuditSpec, Context, Decoded, Files};
use dwpipe::device::ReplayDevice;
use dwpipe::hash::sha256_hex;
use dwpipe::pack::load_lock;
use dwpipe::playbook::Playbooks;
use dwpipe::probe::screenshot::Image;
use dwpipe::report::{AuditReport, html, junit};

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
            let image = Image::decode(&std::fs::read(path).unwrap()).unwrap();
            std::hint::black_box(image.thumbnail(180));
        }
    });
    let rendering = timed(|| {
        std::hint::black_box(report.to_json());
        std::hint::black_box(report.markdown().unwrap());
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
            report.markdown().unwrap(),
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
}
