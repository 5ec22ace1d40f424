//! Trace parsing against the line-reading limit, on a 256 MB trace made by repeating a real
//! capture: `dwpipe inspect trace` (every core, and one: `taskset -c 0`) and the audit's
//! extractors (frames and cold start over one stream of the trace, in this process), against
//! `grep -c print` (the goal: a line scan that looks at every line) and `wc -l` (the floor) on
//! the same file in the same run — warmed, alternated round by round, medians — with the
//! ratios (and the cost of asking for the app's own trace points in the same pass); then the
//! peak memory of `inspect trace` on it, and on the capture repeated to 1 GiB through standard
//! input, with and without trace points asked.
//!
//! `DWPIPE_CAPTURES=../shared/captures cargo bench --bench trace`

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use dwpipe::audit::{self, Context, Decoded, Files};
use dwpipe::pack::load_lock;
use dwpipe::probe::{Evidence, Extractor};

const TARGET_BYTES: u64 = 256 * 1024 * 1024;
const LARGE_BYTES: u64 = 1024 * 1024 * 1024;
const RUNS: usize = 7;

fn main() {
    let captures = std::env::var_os("DWPIPE_CAPTURES").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/captures"),
        PathBuf::from,
    );
    let source = captures.join("hitrace/codrax_donghu_first3MB.ftrace");
    let chunk = std::fs::read(&source)
        .unwrap_or_else(|e| panic!("{}: {e} (set DWPIPE_CAPTURES)", source.display()));
    // In memory where the machine has it (tmpfs): a file on disk is written back and, once
    // deleted, freed by the kernel in the background, taking a core from whatever runs on two.
    let shm = Path::new("/dev/shm");
    let dir = if shm.is_dir() {
        tempfile::tempdir_in(shm)
    } else {
        tempfile::tempdir()
    }
    .unwrap();
    let trace = dir.path().join(Evidence::Trace.as_str());
    let written = repeat(&chunk, &trace, TARGET_BYTES);
    let mb = written as f64 / (1024.0 * 1024.0);
    println!(
        "trace: {mb:.0} MiB ({} copies of {}), {} cores",
        written / chunk.len() as u64,
        source.display(),
        std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
    );

    let wc = || run(Command::new("wc").arg("-l").arg(&trace));
    let grep = || run(Command::new("grep").args(["-c", "print"]).arg(&trace));
    let dwpipe = || {
        run(Command::new(env!("CARGO_BIN_EXE_dwpipe"))
            .args(["inspect", "trace"])
            .arg(&trace)
            .arg("--json"))
    };
    // The same asked about the app's own trace points (a span, a section by pattern, a
    // counter, as `perf.span`/`perf.section`/`perf.counter` read them in the audit's pass):
    // every begin, async begin and counter is matched against them.
    let points = || {
        run(Command::new(env!("CARGO_BIN_EXE_dwpipe"))
            .args(["inspect", "trace"])
            .arg(&trace)
            .args(["--span", "CommitAndGetReleaseFence..Validate"])
            .args(["--section", "/^VSyncReceiver:/", "--counter", "FrameBuffer"])
            .arg("--json"))
    };
    // The same on one core (`taskset -c 0`): a large trace is parsed on every core the
    // process may use, so this is the single-core figure.
    let one_core = || {
        run(Command::new("taskset")
            .args(["-c", "0", env!("CARGO_BIN_EXE_dwpipe"), "inspect", "trace"])
            .arg(&trace)
            .arg("--json"))
    };
    // What an audit does with a session's trace: both trace probes of the example pack read
    // from one decoded visit, so the trace is streamed once.
    let work = tempfile::tempdir().unwrap();
    let freeze = Command::new(env!("CARGO_BIN_EXE_dwpipe"))
        .arg("freeze")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/notes/pack.yaml"))
        .current_dir(work.path())
        .output()
        .unwrap();
    assert!(freeze.status.success());
    let frozen = load_lock(&work.path().join("pack.lock.json")).unwrap();
    let probe = |id: &str| {
        let criterion = frozen.pack.criteria.iter().find(|c| c.id == id).unwrap();
        &criterion
            .assertion
            .as_ref()
            .unwrap()
            .probe
            .as_ref()
            .unwrap()
            .args
    };
    let (cold_start, frames) = (probe("P-01"), probe("P-02"));
    let files: Files = [(Evidence::Trace.as_str().to_owned(), trace.clone())].into();
    let context = Context {
        bundle: &frozen.pack.doc.app.bundle.value,
        vpr: None,
        charging_off: false,
        samples: None,
        api_level: None,
    };
    let extractors = || {
        let started = Instant::now();
        let decoded = Decoded::new(&files, context);
        let frames = audit::extract(Extractor::Frames, &decoded, frames);
        assert!(frames.is_ok(), "{frames:?}");
        // The repeated capture holds no launch: the reading is an error, from the same stream.
        std::hint::black_box(audit::extract(Extractor::ColdStart, &decoded, cold_start).err());
        started.elapsed()
    };
    // Reading the file in 8 MiB blocks and finding every line's end: the limit of any line
    // parser in this process.
    let lines = || {
        let started = Instant::now();
        let (mut file, mut block) = (File::open(&trace).unwrap(), vec![0u8; 8 << 20]);
        let mut lines = 0usize;
        loop {
            let n = std::io::Read::read(&mut file, &mut block).unwrap();
            if n == 0 {
                break;
            }
            lines += memchr::memchr_iter(b'\n', &block[..n]).count();
        }
        assert!(lines > 0);
        started.elapsed()
    };
    let tools: [(&str, &dyn Fn() -> Duration); 7] = [
        ("wc -l (the floor)", &wc),
        ("grep -c print (the goal)", &grep),
        ("line splitting only (in process)", &lines),
        ("dwpipe inspect trace --json, one core", &one_core),
        ("dwpipe inspect trace --json", &dwpipe),
        ("the same, asked 3 trace points", &points),
        ("the audit's extractors (in process)", &extractors),
    ];
    // Warmed (each tool once, the file in the page cache), then alternated round by round, so
    // that a drift of the machine lands on every tool alike; medians.
    for (_, warm) in tools {
        warm();
    }
    let mut times: [Vec<Duration>; 7] = Default::default();
    for _ in 0..RUNS {
        for (i, (_, tool)) in tools.iter().enumerate() {
            times[i].push(tool());
        }
    }
    let medians = times.map(median);
    let rate = |d: Duration| mb / d.as_secs_f64();
    println!("medians of {RUNS} alternated runs, each tool warmed once:");
    for ((name, _), took) in tools.iter().zip(medians) {
        println!(
            "{name:<40}{:>8.3} s  {:>7.0} MB/s",
            took.as_secs_f64(),
            rate(took)
        );
    }
    let [wc, grep, _, one_core, dwpipe, points, extractors] = medians.map(|d| d.as_secs_f64());
    for (name, ratio) in [
        ("dwpipe / grep -c print", dwpipe / grep),
        ("with 3 trace points / without", points / dwpipe),
        ("one core / grep -c print", one_core / grep),
        ("audit's extractors / grep -c print", extractors / grep),
        ("dwpipe / wc -l", dwpipe / wc),
    ] {
        println!("ratio {name:<34}{ratio:>8.2}");
    }
    let peak = |trace: &Path| {
        peak_rss_mb(
            Command::new(env!("CARGO_BIN_EXE_dwpipe"))
                .args(["inspect", "trace"])
                .arg(trace),
            None,
        )
    };
    println!(
        "peak RSS of inspect trace, {mb:.0} MiB            {:>8.1} MB",
        peak(&trace)
    );
    // 1 GiB through standard input (`-`), fed from memory: nothing that large is written.
    let copies = LARGE_BYTES.div_ceil(chunk.len() as u64);
    let fed = peak_rss_mb(
        Command::new(env!("CARGO_BIN_EXE_dwpipe")).args(["inspect", "trace", "-"]),
        Some((&chunk, copies)),
    );
    println!(
        "peak RSS of inspect trace, {:.0} MiB (stdin)   {fed:>8.1} MB",
        (copies * chunk.len() as u64) as f64 / (1024.0 * 1024.0)
    );
    let asked = peak_rss_mb(
        Command::new(env!("CARGO_BIN_EXE_dwpipe")).args([
            "inspect",
            "trace",
            "-",
            "--span",
            "CommitAndGetReleaseFence..Validate",
            "--section",
            "/^VSyncReceiver:/",
            "--counter",
            "FrameBuffer",
        ]),
        Some((&chunk, copies)),
    );
    println!("the same, asked 3 trace points             {asked:>8.1} MB");
}

/// Writes `chunk` to `path` until it holds at least `bytes`; returns the bytes written.
fn repeat(chunk: &[u8], path: &Path, bytes: u64) -> u64 {
    let mut out = BufWriter::new(File::create(path).unwrap());
    let mut written = 0u64;
    while written < bytes {
        out.write_all(chunk).unwrap();
        written += chunk.len() as u64;
    }
    out.flush().unwrap();
    written
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// Runs `command` with its output read through a pipe (GNU grep stops at the first match
/// when its output is /dev/null, as if `-q`: that would time nothing).
fn run(command: &mut Command) -> Duration {
    let started = Instant::now();
    let output = command.stdout(Stdio::piped()).output().unwrap();
    assert!(output.status.success() && !output.stdout.is_empty());
    started.elapsed()
}

/// The peak resident set of one run of `command`, in MB; fed `copies` copies of a chunk on
/// standard input when asked. Read from the child's own `VmHWM` every 5 ms while it runs: the
/// `ru_maxrss` of `wait4` starts at the spawning process's own size (Linux carries it over
/// `exec`), which here is this bench's.
fn peak_rss_mb(command: &mut Command, stdin: Option<(&[u8], u64)>) -> f64 {
    let mut child = command
        .arg("--json")
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let status = format!("/proc/{}/status", child.id());
    let high_water_kb = || {
        let text = std::fs::read_to_string(&status).ok()?;
        let line = text.lines().find(|l| l.starts_with("VmHWM:"))?;
        line.split_whitespace().nth(1)?.parse::<u64>().ok()
    };
    let mut peak_kb = 0;
    std::thread::scope(|scope| {
        if let Some((chunk, copies)) = stdin {
            let mut pipe = child.stdin.take().unwrap();
            scope.spawn(move || {
                for _ in 0..copies {
                    pipe.write_all(chunk).unwrap();
                }
            });
        }
        while child.try_wait().unwrap().is_none() {
            peak_kb = peak_kb.max(high_water_kb().unwrap_or(0));
            std::thread::sleep(Duration::from_millis(5));
        }
    });
    assert!(child.wait().unwrap().success());
    peak_kb as f64 / 1024.0
}
