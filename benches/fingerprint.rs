//! Workspace fingerprints of a 20,000- and a 100,000-file git workspace (50 files changed,
//! 50 untracked), cold and warm, as a whole `dwpipe` process, side by side with
//! `git status --porcelain` on the same tree in the same run.
//!
//! `cargo bench --bench fingerprint` (builds the trees under the system temp dir; takes a while)

use std::fs;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args([
            "-c",
            "user.email=b@b",
            "-c",
            "user.name=b",
            "-c",
            "core.fsmonitor=false",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
}

fn tree(root: &Path, files: usize) {
    for i in 0..files {
        let dir = root.join(format!("entry/src/main/ets/m{:03}", i / 200));
        if i % 200 == 0 {
            fs::create_dir_all(&dir).unwrap();
        }
        fs::write(
            dir.join(format!("File{i}.ets")),
            format!("// file {i}\nexport const value{i} = {i};\n"),
        )
        .unwrap();
    }
    git(root, &["init", "-q"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-qm", "tree"]);
    for i in 0..50 {
        let file = root.join(format!(
            "entry/src/main/ets/m{:03}/File{}.ets",
            (i * 37) / 200,
            i * 37
        ));
        fs::write(file, format!("// changed {i}\n")).unwrap();
        fs::write(root.join(format!("entry/untracked{i}.ets")), "// new\n").unwrap();
    }
}

fn time(command: &mut Command) -> Duration {
    let started = Instant::now();
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    started.elapsed()
}

fn median(mut runs: Vec<Duration>) -> Duration {
    runs.sort();
    runs[runs.len() / 2]
}

fn main() {
    let dwpipe = env!("CARGO_BIN_EXE_dwpipe");
    for files in [20_000, 100_000] {
        let work = tempfile::tempdir().unwrap();
        let root = work.path().join("ws");
        fs::create_dir_all(&root).unwrap();
        tree(&root, files);
        let cache = work.path().join("cache.json");
        let fingerprint = || {
            let mut command = Command::new(dwpipe);
            command
                .args(["fingerprint"])
                .arg(&root)
                .arg("--cache")
                .arg(&cache);
            command
        };
        let cold = time(&mut fingerprint());
        let warm = median((0..5).map(|_| time(&mut fingerprint())).collect());
        let status = median(
            (0..5)
                .map(|_| {
                    time(
                        Command::new("git")
                            .args(["status", "--porcelain"])
                            .current_dir(&root),
                    )
                })
                .collect(),
        );
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        println!(
            "{files:>6} files: dwpipe fingerprint cold {:>8.1} ms, warm {:>7.1} ms; git status --porcelain {:>7.1} ms; warm/git {:.2}",
            ms(cold),
            ms(warm),
            ms(status),
            warm.as_secs_f64() / status.as_secs_f64()
        );
    }
}
