//! `dwpipe inspect trace` on a 256 MB trace made by repeating a real capture: throughput in
//! MB/s, peak memory of the process, and the ratio to `wc -l` on the same file in the same run.
//!
//! `DWPIPE_CAPTURES=../shared/captures cargo bench --bench trace`

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const TARGET_BYTES: u64 = 256 * 1024 * 1024;
const RUNS: usize = 3;

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

    let wc = best(|| run(Command::new("wc").arg("-l").arg(&trace)));
    let dwpipe = best(|| {
        run(Command::new(env!("CARGO_BIN_EXE_dwpipe"))
            .args(["inspect", "trace"])
            .arg(&trace)
            .arg("--json"))
    });
    let in_process_lines = best(|| {
        let started = Instant::now();
        let mut lines = 0u64;
        dwpipe::probe::hitrace::for_each_line(File::open(&trace).unwrap(), |_| lines += 1).unwrap();
        assert!(lines > 0);
        started.elapsed()
    });
    let rate = |d: Duration| mb / d.as_secs_f64();
    println!(
        "wc -l                                 {:>8.3} s  {:>7.0} MB/s",
        wc.as_secs_f64(),
        rate(wc)
    );
    println!(
        "line splitting only (in process)      {:>8.3} s  {:>7.0} MB/s",
        in_process_lines.as_secs_f64(),
        rate(in_process_lines)
    );
    println!(
        "dwpipe inspect trace --json           {:>8.3} s  {:>7.0} MB/s",
        dwpipe.as_secs_f64(),
        rate(dwpipe)
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

fn best(mut once: impl FnMut() -> Duration) -> Duration {
    (0..RUNS).map(|_| once()).min().unwrap()
}

fn run(command: &mut Command) -> Duration {
    let started = Instant::now();
    let status = command.stdout(Stdio::null()).status().unwrap();
    assert!(status.success());
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
