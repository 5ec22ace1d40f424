//! The fuzz harness: every parser dwpipe runs on input it does not control — packs, locks,
//! audits, auditor reports, configs, playbooks, captures, traces, layout dumps, hidumper
//! outputs of each kind, hypium output, PNG and JPEG — fed the repo's own fixtures mutated
//! (bytes set, cut, spliced, runs repeated, hostile tokens inserted). Each case must end
//! without a panic or an abort, and within bounded memory: the peak heap of the case, counted
//! by the global allocator, stays under a bound proportional to its input (images: the
//! decoded-pixel limit). Time is not asserted (that is the benches' job).
//!
//! One test, so nothing else allocates while a case is measured. Seeded and short by default;
//! longer on demand:
//! `DWPIPE_FUZZ_CASES=2000 DWPIPE_FUZZ_SEED=7 cargo test --release --test fuzz`.

use std::path::{Path, PathBuf};

use dwpipe::config::Config;
use dwpipe::device::Capture;
use dwpipe::gate::load_auditor_report;
use dwpipe::pack::{InputKind, freeze_file, load_lock};
use dwpipe::playbook::Playbooks;
use dwpipe::probe::layout::{Layout, Rect};
use dwpipe::probe::screenshot::{Image, MAX_PIXELS, contrast};
use dwpipe::probe::{hidumper, hitrace, hypium};
use dwpipe::schema::AuditReport;
use peak_alloc::PeakAlloc;
use proptest::prelude::*;
use proptest::test_runner::{Config as Cases, RngAlgorithm, TestCaseError, TestRng, TestRunner};

#[global_allocator]
static HEAP: PeakAlloc = PeakAlloc;

/// What a case may hold at its peak, beyond what was live before it: a generous multiple of
/// the input, plus room for the parser's fixed tables.
fn text_bound(input: usize) -> usize {
    64 * input + 16 * 1024 * 1024
}

/// A decoder may hold the whole image the header declares, up to the pixel limit.
fn image_bound(input: usize) -> usize {
    text_bound(input) + 4 * MAX_PIXELS as usize + 8 * 1024 * 1024
}

/// One edit of a fixture.
#[derive(Clone, Debug)]
enum Mutation {
    /// Set the byte at a position.
    Set(usize, u8),
    /// Cut everything from a position.
    Cut(usize),
    /// Copy a slice somewhere else.
    Splice(usize, usize, usize),
    /// Repeat a byte many times at a position (deep nesting, long lines and numbers).
    Repeat(usize, u8, usize),
    /// Insert a token parsers trip on.
    Insert(usize, usize),
}

const TOKENS: [&str; 12] = [
    "99999999999999999999999",
    "-1",
    "\0",
    "\u{1b}]0;x\u{7}",
    "\"",
    "{",
    "[",
    "\n\n",
    "NaN",
    "*a",
    "&a [*a, *a, *a]",
    "\u{feff}",
];

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        6 => (any::<usize>(), any::<u8>()).prop_map(|(at, b)| Mutation::Set(at, b)),
        1 => any::<usize>().prop_map(Mutation::Cut),
        2 => (any::<usize>(), any::<usize>(), 0usize..4096)
            .prop_map(|(from, to, len)| Mutation::Splice(from, to, len)),
        1 => (any::<usize>(), prop::sample::select(&b"[{9a \n\"-"[..]), 0usize..100_000)
            .prop_map(|(at, b, n)| Mutation::Repeat(at, b, n)),
        2 => (any::<usize>(), 0..TOKENS.len()).prop_map(|(at, t)| Mutation::Insert(at, t)),
    ]
}

fn mutate(mut bytes: Vec<u8>, mutations: &[Mutation]) -> Vec<u8> {
    for m in mutations {
        let len = bytes.len().max(1);
        match *m {
            Mutation::Set(at, b) => {
                if !bytes.is_empty() {
                    bytes[at % len] = b;
                }
            }
            Mutation::Cut(at) => bytes.truncate(at % (bytes.len() + 1)),
            Mutation::Splice(from, to, n) => {
                let from = from % len;
                let piece: Vec<u8> = bytes.iter().skip(from).take(n).copied().collect();
                let to = to % (bytes.len() + 1);
                bytes.splice(to..to, piece);
            }
            Mutation::Repeat(at, b, n) => {
                let at = at % (bytes.len() + 1);
                bytes.splice(at..at, std::iter::repeat_n(b, n));
            }
            Mutation::Insert(at, t) => {
                let at = at % (bytes.len() + 1);
                bytes.splice(at..at, TOKENS[t].bytes());
            }
        }
    }
    bytes
}

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Reads one input (a scratch folder at hand for parsers that read files).
type Parse = dyn Fn(&[u8], &Path);

/// A parser under test: its name, the fixtures it is fed, the bound of a case, and how it
/// reads bytes (through a file in `scratch` where the parser reads files).
struct Target {
    name: &'static str,
    fixtures: Vec<PathBuf>,
    bound: fn(usize) -> usize,
    parse: Box<Parse>,
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn in_file(scratch: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = scratch.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

fn targets(scratch: &Path) -> Vec<Target> {
    let many = |dir: &str, ext: &str| -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = std::fs::read_dir(repo(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == ext))
            .collect();
        files.sort();
        files
    };
    // A capture to mutate in place: its files are copied once, its two YAML files per case.
    let capture = scratch.join("capture");
    std::fs::create_dir_all(capture.join("files")).unwrap();
    for entry in std::fs::read_dir(repo("device-fixtures/notes-pass/files")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, capture.join("files").join(path.file_name().unwrap())).unwrap();
    }
    std::fs::copy(
        repo("device-fixtures/notes-pass/device.yaml"),
        capture.join("device.yaml"),
    )
    .unwrap();
    let playbooks = scratch.join("playbooks");
    std::fs::create_dir_all(&playbooks).unwrap();
    vec![
        Target {
            name: "pack",
            fixtures: vec![repo("examples/notes/pack.yaml")],
            bound: text_bound,
            parse: Box::new(|bytes, scratch| {
                let _ = freeze_file(&in_file(scratch, "pack.yaml", bytes));
            }),
        },
        Target {
            name: "lock",
            fixtures: vec![repo("tests/fixtures/audits/first-format/pack.lock.json")],
            bound: text_bound,
            parse: Box::new(|bytes, scratch| {
                let _ = load_lock(&in_file(scratch, "pack.lock.json", bytes));
            }),
        },
        Target {
            name: "audit",
            fixtures: vec![repo(
                "tests/fixtures/audits/first-format/no-screenshot/audit-1.json",
            )],
            bound: text_bound,
            parse: Box::new(|bytes, _| {
                let _ = serde_json::from_slice::<AuditReport>(bytes);
            }),
        },
        Target {
            name: "auditor report",
            fixtures: vec![
                repo("examples/notes/auditor-report.json"),
                repo("examples/notes/auditor-report-contradicts.json"),
            ],
            bound: text_bound,
            parse: Box::new(|bytes, scratch| {
                let _ = load_auditor_report(&in_file(scratch, "auditor.json", bytes));
            }),
        },
        Target {
            name: "config",
            fixtures: vec![repo("examples/notes/dwpipe.yaml")],
            bound: text_bound,
            parse: Box::new(|bytes, scratch| {
                let _ = Config::load(&in_file(scratch, "dwpipe.yaml", bytes));
            }),
        },
        Target {
            name: "playbook",
            fixtures: many("playbooks", "yaml"),
            bound: text_bound,
            parse: Box::new(move |bytes, _| {
                // Every playbook file in turn would need the fixture's name: the cold-start
                // one stands for the format (they share one parser).
                let file = playbooks.join("perf.cold-start.yaml");
                std::fs::write(&file, bytes).unwrap();
                let _ = Playbooks::load(Some(&playbooks));
            }),
        },
        Target {
            name: "capture transcript",
            fixtures: vec![repo("device-fixtures/notes-pass/transcript.yaml")],
            bound: text_bound,
            parse: Box::new({
                let capture = capture.clone();
                move |bytes, _| {
                    std::fs::write(capture.join("transcript.yaml"), bytes).unwrap();
                    let _ = Capture::load(&capture);
                }
            }),
        },
        Target {
            name: "capture device",
            fixtures: vec![repo("device-fixtures/notes-pass/device.yaml")],
            bound: text_bound,
            parse: Box::new(move |bytes, _| {
                std::fs::copy(
                    repo("device-fixtures/notes-pass/transcript.yaml"),
                    capture.join("transcript.yaml"),
                )
                .unwrap();
                std::fs::write(capture.join("device.yaml"), bytes).unwrap();
                let _ = Capture::load(&capture);
            }),
        },
        Target {
            name: "trace",
            fixtures: many("tests/fixtures/hitrace", "ftrace"),
            bound: text_bound,
            parse: Box::new(|bytes, _| {
                let _ = hitrace::analyze(bytes, Some("com.example.notes".to_owned()), &[]);
            }),
        },
        Target {
            name: "step trace",
            fixtures: vec![
                repo("device-fixtures/notes-pass/files/step-1-02.ftrace"),
                repo("device-fixtures/notes-editor-missing/files/step-1-02.ftrace"),
            ],
            bound: text_bound,
            parse: Box::new(|bytes, _| {
                for kind in [InputKind::Tap, InputKind::Swipe] {
                    let _ = hitrace::response_of(bytes, kind);
                }
            }),
        },
        Target {
            name: "layout",
            fixtures: many("tests/fixtures/layout", "json"),
            bound: text_bound,
            parse: Box::new(|bytes, _| {
                if let Ok(layout) = Layout::parse(bytes) {
                    std::hint::black_box(layout.report(None, 3.25));
                }
            }),
        },
        Target {
            name: "hidumper",
            fixtures: many("tests/fixtures/hidumper", "txt"),
            bound: text_bound,
            parse: Box::new(|bytes, _| {
                let dump = text(bytes);
                let _ = (
                    hidumper::fps_blocks(&dump)
                        .map(|b| b.iter().map(|b| b.summary(None)).collect::<Vec<_>>()),
                    hidumper::fps_count(&dump),
                    hidumper::screens(&dump),
                    hidumper::memory_total(&dump),
                    hidumper::windows(&dump),
                    dwpipe::device::virtual_pixel_ratio(&dump),
                );
            }),
        },
        Target {
            name: "hypium",
            fixtures: vec![repo("tests/fixtures/hypium/aa_test_pass.txt")],
            bound: text_bound,
            parse: Box::new(|bytes, _| {
                let _ = hypium::parse(&text(bytes));
            }),
        },
        Target {
            name: "png",
            fixtures: vec![repo("device-fixtures/notes-pass/files/screen-1.png")],
            bound: image_bound,
            parse: Box::new(decode_and_measure),
        },
        Target {
            name: "jpeg",
            fixtures: many("tests/fixtures/screenshot", "jpg"),
            bound: image_bound,
            parse: Box::new(decode_and_measure),
        },
    ]
}

/// A screenshot decoded, and a contrast measured in a box of it.
fn decode_and_measure(bytes: &[u8], _: &Path) {
    if let Ok(image) = Image::decode(bytes) {
        let _ = contrast(
            &image,
            Rect {
                l: 0,
                t: 0,
                r: 40,
                b: 30,
            },
        );
    }
}

#[test]
fn every_parser_survives_mutated_fixtures() {
    let cases = env_number("DWPIPE_FUZZ_CASES", 24) as u32;
    let seed = env_number("DWPIPE_FUZZ_SEED", 20_261_201);
    let scratch = tempfile::tempdir().unwrap();
    for target in targets(scratch.path()) {
        assert!(!target.fixtures.is_empty(), "{}: no fixtures", target.name);
        let fixtures: Vec<Vec<u8>> = target
            .fixtures
            .iter()
            .map(|p| std::fs::read(p).unwrap())
            .collect();
        let mut seed_bytes = [0u8; 32];
        seed_bytes[..8].copy_from_slice(&seed.to_le_bytes());
        seed_bytes[8..16].copy_from_slice(&(target.name.len() as u64).to_le_bytes());
        seed_bytes[16..16 + target.name.len().min(16)]
            .copy_from_slice(&target.name.as_bytes()[..target.name.len().min(16)]);
        let mut runner = TestRunner::new_with_rng(
            Cases {
                cases,
                failure_persistence: None,
                ..Cases::default()
            },
            TestRng::from_seed(RngAlgorithm::ChaCha, &seed_bytes),
        );
        let strategy = (
            0..fixtures.len(),
            proptest::collection::vec(mutation(), 1..16),
        );
        let result = runner.run(&strategy, |(which, mutations)| {
            let input = mutate(fixtures[which].clone(), &mutations);
            HEAP.reset_peak_usage();
            let before = HEAP.current_usage();
            (target.parse)(&input, scratch.path());
            let peak = HEAP.peak_usage().saturating_sub(before);
            let bound = (target.bound)(input.len());
            if peak > bound {
                return Err(TestCaseError::fail(format!(
                    "{}: a {}-byte input peaked at {peak} bytes of heap (bound {bound})",
                    target.name,
                    input.len()
                )));
            }
            Ok(())
        });
        if let Err(e) = result {
            panic!("{}: {e}", target.name);
        }
    }
}
