//! `dwpipe inspect trace` on a 256 MB trace made by repeating a real capture: throughput in
//! MB/s, peak memory of the process, and the ratios to `grep -c print` (the goal: a line scan
//! that looks at every line) and `wc -l` (the floor) on the same file in the same run, on every
//! core and on one (`taskset -c 0`).
//!
//! `DWPIPE_CAPTURES=../shared/captures cargo bench --bench trace`

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const TARGET_BYTES: u64 = 256 * 1024 * 1024;
const RUNS: usize = 5;

fn main() {
    let captures = std::env::var_os("DWPIPE_CAPTURES").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/captures"),
        PathBuf::from,
    );
    let source = captures.join("hitrace/codrax_donghu_first3MB.ftrace");
    let chunk = std::fs::read(&source)
        .unwrap_or_else(|e| panic!("{}: {e} (set DWPIPE_CAPTURES)", source.display()));
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("big.ftrace");
    let mut out = BufWriter::new(File::create(&trace).unwrap());
    let mut written = 0u64;
    while written < TARGET_BYTES {
        out.write_all(&chunk).unwrap();
        written += chunk.len() as u64;
    }
    out.flush().unwrap();
    drop(out);
    let mb = written as f64 / (1024.0 * 1024.0);
    println!(
        "trace: {mb:.0} MiB ({} copies of {})",
        written / chunk.len() as u64,
        source.display()
    );

    // Warmed (each tool once, the file in the page cache), then alternated round by round, so
    // that a drift of the machine lands on every tool alike; medians.
    let wc = || run(Command::new("wc").arg("-l").arg(&trace));
    let grep = || run(Command::new("grep").args(["-c", "print"]).arg(&trace));
    let dwpipe = || {
        run(Command::new(env!("CARGO_BIN_EXE_dwpipe"))
            .args(["inspect", "trace"])
            .arg(&trace)
            .arg("--json"))
    };
    // The same on one core (`taskset -c 0`): dwpipe parses a large trace's blocks on every
    // core, so this is the single-core figure.
    let one_core = || {
        run(Command::new("taskset")
            .args(["-c", "0", env!("CARGO_BIN_EXE_dwpipe"), "inspect", "trace"])
            .arg(&trace)
            .arg("--json"))
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
    let tools: [&dyn Fn() -> Duration; 5] = [&wc, &grep, &dwpipe, &one_core, &lines];
    for warm in tools {
        warm();
    }
    let mut times: [Vec<Duration>; 5] = Default::default();
    for _ in 0..RUNS {
        for (i, tool) in tools.iter().enumerate() {
            times[i].push(tool());
        }
    }
    let [wc, grep, dwpipe, one_core, in_process_lines] = times.map(median);
    let rate = |d: Duration| mb / d.as_secs_f64();
    println!("medians of {RUNS} alternated runs, each tool warmed once:");
    for (name, took) in [
        ("wc -l (the floor)", wc),
        ("grep -c print (the goal)", grep),
        ("line splitting only (in process)", in_process_lines),
        ("dwpipe inspect trace --json, one core", one_core),
        ("dwpipe inspect trace --json", dwpipe),
    ] {
        println!(
            "{name:<38}{:>8.3} s  {:>7.0} MB/s",
            took.as_secs_f64(),
            rate(took)
        );
    }
    println!(
        "ratio dwpipe / grep -c print          {:>8.2}",
        dwpipe.as_secs_f64() / grep.as_secs_f64()
    );
    println!(
        "ratio one core / grep -c print        {:>8.2}",
        one_core.as_secs_f64() / grep.as_secs_f64()
    );
    println!(
        "ratio dwpipe / wc -l                  {:>8.2}",
        dwpipe.as_secs_f64() / wc.as_secs_f64()
    );
    println!(
        "peak RSS of the child processes       {:>8.1} MB",
        peak_child_rss_mb()
    );
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

/// The largest resident set of any child waited for so far (wc's is tiny, dwpipe's dominates).
fn peak_child_rss_mb() -> f64 {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage writes a whole rusage into the pointer it is given, which is valid.
    #[expect(unsafe_code, reason = "std does not read a child's peak memory")]
    let usage = unsafe {
        libc::getrusage(libc::RUSAGE_CHILDREN, usage.as_mut_ptr());
        usage.assume_init()
    };
    usage.ru_maxrss as f64 / 1024.0
}
