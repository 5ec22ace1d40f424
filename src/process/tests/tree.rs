//! A child's whole tree, on every host: the children are this test binary run again as a
//! helper (no shell, no Unix tool), so the same tests hold a Unix process group and a Windows
//! Job Object to the same promises. A grandchild proves it runs by growing a file; once the
//! tree is stopped the file stops growing.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::super::*;
use crate::test_support::block_on;

/// What the helper does, when this test binary is run as one.
const ROLE: &str = "DWPIPE_TEST_CHILD";

/// Not a test: the helper child the tests below start (ignored when the suite runs).
#[test]
#[ignore = "the helper child the tree tests start, not a test of its own"]
fn child() {
    let Ok(role) = std::env::var(ROLE) else {
        return;
    };
    let (what, file) = role.split_once(':').unwrap();
    match what {
        // A grandchild: grows the file every 20 ms for a minute.
        "beat" => {
            for _ in 0..3000 {
                let mut beats = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(file)
                    .unwrap();
                std::io::Write::write_all(&mut beats, b".").unwrap();
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        // A child that starts a beating grandchild, then waits (`tree`) or leaves (`leave`).
        "tree" | "leave" => {
            #[expect(
                clippy::zombie_processes,
                reason = "the grandchild outlives its parent on purpose: it is what is stopped"
            )]
            std::process::Command::new(std::env::current_exe().unwrap())
                .args(helper_args())
                .env(ROLE, format!("beat:{file}"))
                .spawn()
                .unwrap();
            if what == "tree" {
                std::thread::sleep(Duration::from_secs(60));
            }
        }
        // Both streams and an exit code.
        "say" => {
            println!("out");
            eprintln!("err");
            std::process::exit(3);
        }
        _ => panic!("unknown role {role}"),
    }
}

/// The arguments that run [`child`] alone.
fn helper_args() -> [&'static str; 4] {
    [
        "process::tests::tree::child",
        "--exact",
        "--ignored",
        "--nocapture",
    ]
}

/// This binary as the helper `role`, its beats in `beats`.
fn helper(role: &str, beats: &Path) -> ProcessSpec {
    let mut spec = ProcessSpec::new(std::env::current_exe().unwrap(), helper_args());
    spec.env
        .push((ROLE.into(), format!("{role}:{}", beats.display()).into()));
    spec.grace = Duration::from_secs(1);
    spec
}

fn beats(file: &Path) -> u64 {
    std::fs::metadata(file).map_or(0, |m| m.len())
}

/// Waits (up to a minute: a loaded host starts processes slowly) until the grandchild beats.
async fn beating(file: &Path) {
    for _ in 0..600 {
        if beats(file) >= 3 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the grandchild never beat in {}", file.display());
}

/// Asserts the grandchild no longer beats.
fn stilled(file: &Path) {
    let before = beats(file);
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(
        beats(file),
        before,
        "the grandchild still beats: it outlived its tree"
    );
}

fn beats_file() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("beats");
    (dir, file)
}

#[test]
fn a_child_records_its_exit_code_and_both_streams() {
    let (_dir, file) = beats_file();
    let outcome = block_on(run(&helper("say", &file), &Cancel::new())).unwrap();
    assert_eq!(outcome.completion, Completion::Exited(3));
    assert!(outcome.stdout.to_string_lossy().contains("out\n"));
    assert_eq!(outcome.stderr.to_string_lossy().trim(), "err");
}

#[test]
fn cancellation_stops_the_whole_tree() {
    let (_dir, file) = beats_file();
    let cancel = Cancel::new();
    let spec = helper("tree", &file);
    let (outcome, ()) = block_on(async {
        tokio::join!(run(&spec, &cancel), async {
            beating(&file).await;
            cancel.cancel();
        })
    });
    assert_eq!(outcome.unwrap().completion, Completion::Cancelled);
    stilled(&file);
    assert!(
        cancel.live().is_empty(),
        "the tree is forgotten once reaped"
    );
}

#[test]
fn a_timeout_stops_the_whole_tree() {
    let (_dir, file) = beats_file();
    let spec = helper("tree", &file).timeout(Duration::from_secs(8));
    let cancel = Cancel::new();
    let outcome = block_on(async {
        // Started well before the deadline, the grandchild must beat before the timeout.
        let (outcome, ()) = tokio::join!(run(&spec, &cancel), beating(&file));
        outcome
    });
    assert_eq!(outcome.unwrap().completion, Completion::TimedOut);
    stilled(&file);
}

#[test]
fn what_a_child_leaves_running_is_stopped_when_it_exits() {
    let (_dir, file) = beats_file();
    let outcome = block_on(run(&helper("leave", &file), &Cancel::new())).unwrap();
    assert_eq!(outcome.completion, Completion::Exited(0));
    assert!(outcome.leaked, "what it left running is reported");
    stilled(&file);
}

/// A batch file (`hvigorw.bat`) runs by argv: std quotes each argument by cmd.exe's rules, so
/// an argument stays one argument and never becomes a command of its own.
#[cfg(windows)]
#[test]
fn a_batch_file_runs_by_argv_and_its_arguments_stay_arguments() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("hvigorw.bat");
    std::fs::write(
        &script,
        "@echo off\r\necho [%1]\r\necho [%2]\r\nexit /b 4\r\n",
    )
    .unwrap();
    let spec = ProcessSpec::new(&script, ["a&echo INJECTED", "assemble Hap"]);
    let outcome = block_on(run(&spec, &Cancel::new())).unwrap();
    let stdout = outcome.stdout.to_string_lossy();
    assert_eq!(outcome.completion, Completion::Exited(4), "{stdout}");
    assert!(stdout.contains(r#"["a&echo INJECTED"]"#), "{stdout}");
    assert!(stdout.contains(r#"["assemble Hap"]"#), "{stdout}");
    assert!(!stdout.lines().any(|l| l.trim() == "INJECTED"), "{stdout}");
}
