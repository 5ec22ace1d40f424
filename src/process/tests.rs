//! The runner against real children: sleepers, TERM-ignorers, forkers, floods.

use std::time::Duration;

use super::runner::drain;
use super::*;
use crate::test_support::block_on;

fn sh(script: &str) -> ProcessSpec {
    ProcessSpec::new("/bin/sh", ["-c", script])
}

fn run_sh(spec: &ProcessSpec) -> ProcessOutcome {
    block_on(run(spec, &Cancel::new())).unwrap()
}

/// Whether a process is gone (or a zombie nobody has reaped yet).
fn is_gone(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
    }
}

fn eventually_gone(pid: &str) -> bool {
    (0..200).any(|_| {
        std::thread::sleep(Duration::from_millis(10));
        is_gone(pid)
    })
}

#[test]
#[cfg_attr(
    windows,
    ignore = "children are `sh` scripts and signals; tests::tree holds the Windows side"
)]
fn records_exit_code_and_both_streams() {
    let outcome = run_sh(&sh("echo out; echo err >&2; exit 3"));
    assert_eq!(outcome.completion, Completion::Exited(3));
    assert_eq!(outcome.stdout.to_string_lossy(), "out\n");
    assert_eq!(outcome.stderr.to_string_lossy(), "err\n");
    assert!(!outcome.leaked);
}

#[test]
#[cfg_attr(
    windows,
    ignore = "children are `sh` scripts and signals; tests::tree holds the Windows side"
)]
fn stdin_is_null_unless_given() {
    let outcome = run_sh(&sh("cat"));
    assert_eq!(outcome.stdout.to_string_lossy(), "");
    let outcome = run_sh(&sh("tr a-z A-Z").stdin("pack lock"));
    assert_eq!(outcome.stdout.to_string_lossy(), "PACK LOCK");
}

#[test]
#[cfg_attr(
    windows,
    ignore = "children are `sh` scripts and signals; tests::tree holds the Windows side"
)]
fn a_fed_stdin_is_a_conversation_that_ends_when_the_senders_go() {
    // The child answers each line as it comes, and the second line is sent only once the
    // first answer was seen: a stdin given up front could not hold this conversation.
    let (sender, feed) = stdin_feed(1 << 20);
    sender.send(b"one\n".to_vec()).unwrap();
    let mut spec = sh("while read line; do echo \"got $line\"; done; echo closed");
    spec.stdin = Stdin::Feed(feed);
    let sender = std::sync::Mutex::new(Some(sender));
    spec.lines = Some(std::sync::Arc::new(std::sync::Mutex::new(
        move |line: Line<'_>| {
            let mut sender = sender.lock().unwrap();
            match line.text {
                "got one" => {
                    let _ = sender.as_ref().unwrap().send(b"two\n".to_vec());
                }
                // Dropping the last sender closes stdin.
                "got two" => drop(sender.take()),
                _ => {}
            }
        },
    )));
    let outcome = run_sh(&spec);
    assert_eq!(outcome.completion, Completion::Exited(0));
    assert_eq!(
        outcome.stdout.to_string_lossy(),
        "got one\ngot two\nclosed\n"
    );
}

#[test]
fn a_feed_the_child_does_not_read_is_bounded() {
    // Nothing reads it yet: what was sent waits, up to the bound, and then a send is refused.
    let (sender, _feed) = stdin_feed(256 * 1024);
    for _ in 0..4 {
        sender.send(vec![b'x'; 64 * 1024]).unwrap();
    }
    assert_eq!(sender.send(vec![b'x'; 1]), Err(NotSent::Unread(256 * 1024)));
}

#[test]
#[cfg_attr(
    windows,
    ignore = "children are `sh` scripts and signals; tests::tree holds the Windows side"
)]
fn a_timeout_terminates_the_whole_group() {
    let outcome = run_sh(
        &sh("sleep 30 & echo $!; wait")
            .timeout(Duration::from_millis(200))
            .grace(Duration::from_millis(500)),
    );
    assert_eq!(outcome.completion, Completion::TimedOut);
    let grandchild = outcome.stdout.to_string_lossy();
    assert!(
        eventually_gone(grandchild.trim()),
        "grandchild {grandchild} survived"
    );
    // A generous bound: only a runner that waited for the sleeper would break it.
    assert!(
        outcome.duration < Duration::from_secs(10),
        "{:?}",
        outcome.duration
    );
}

#[test]
#[cfg_attr(
    windows,
    ignore = "children are `sh` scripts and signals; tests::tree holds the Windows side"
)]
fn a_child_ignoring_sigterm_is_killed_after_the_grace_period() {
    let outcome = run_sh(
        &sh("trap '' TERM; sleep 30 & echo $!; while :; do wait; done")
            .timeout(Duration::from_millis(100))
            .grace(Duration::from_millis(300)),
    );
    assert_eq!(outcome.completion, Completion::TimedOut);
    let grandchild = outcome.stdout.to_string_lossy();
    assert!(
        eventually_gone(grandchild.trim()),
        "grandchild {grandchild} survived"
    );
    assert!(
        outcome.duration >= Duration::from_millis(400),
        "waited the grace period"
    );
    assert!(
        outcome.duration < Duration::from_secs(10),
        "{:?}",
        outcome.duration
    );
}

#[test]
#[cfg_attr(
    windows,
    ignore = "children are `sh` scripts and signals; tests::tree holds the Windows side"
)]
fn a_grandchild_holding_the_pipes_is_reported_as_leaked() {
    let outcome = run_sh(&sh("sleep 3 & echo started"));
    assert_eq!(outcome.completion, Completion::Exited(0));
    assert!(outcome.leaked);
    assert_eq!(outcome.stdout.to_string_lossy(), "started\n");
    assert!(
        outcome.duration < Duration::from_secs(3),
        "did not wait for the sleeper"
    );
}

#[test]
#[cfg_attr(
    windows,
    ignore = "children are `sh` scripts and signals; tests::tree holds the Windows side"
)]
fn what_a_child_wrote_is_kept_when_reading_is_stopped_before_it_was_read() {
    // On a loaded host the reading task may first run after the leak wait has told it to
    // stop: the reply already in the pipe must still be read, never taken as empty.
    block_on(async {
        let mut child = tokio::process::Command::new("sh")
            .args(["-c", "echo the-reply; exec sleep 5"])
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let pipe = child.stdout.take();
        tokio::time::sleep(Duration::from_millis(300)).await;
        let (stop, stopped) = tokio::sync::watch::channel(false);
        stop.send(true).unwrap();
        let output = drain(pipe, (1024, 1024), stopped, None).await;
        assert_eq!(output.to_string_lossy(), "the-reply\n");
    });
}

#[test]
#[cfg_attr(
    windows,
    ignore = "children are `sh` scripts and signals; tests::tree holds the Windows side"
)]
fn a_flood_of_output_stays_bounded() {
    let mut spec = sh("head -c 100000000 /dev/zero; echo tail-marker");
    spec.head_limit = 64 * 1024;
    spec.tail_limit = 64 * 1024;
    let outcome = run_sh(&spec);
    assert_eq!(outcome.completion, Completion::Exited(0));
    assert_eq!(outcome.stdout.total(), 100_000_012);
    assert_eq!(outcome.stdout.dropped(), 100_000_012 - 128 * 1024);
    assert!(outcome.stdout.to_string_lossy().ends_with("tail-marker\n"));
    assert!(outcome.stdout.to_bytes().len() < 200 * 1024);
}

#[test]
#[cfg_attr(
    windows,
    ignore = "children are `sh` scripts and signals; tests::tree holds the Windows side"
)]
fn cancellation_stops_the_group() {
    let cancel = Cancel::new();
    let trigger = cancel.clone();
    let outcome = block_on(async move {
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(100)).await;
            trigger.cancel();
        });
        run(&sh("sleep 30"), &cancel).await.unwrap()
    });
    assert_eq!(outcome.completion, Completion::Cancelled);
    assert!(outcome.duration < Duration::from_secs(10));
}

#[test]
#[cfg_attr(
    windows,
    ignore = "children are `sh` scripts and signals; tests::tree holds the Windows side"
)]
fn a_signal_from_elsewhere_is_recorded() {
    let outcome = run_sh(&sh("kill -9 $$"));
    assert_eq!(outcome.completion, Completion::Signalled(9));
}

#[test]
fn a_missing_program_is_not_found() {
    let spec = ProcessSpec::new("/nonexistent/hdc", ["list", "targets"]);
    match block_on(run(&spec, &Cancel::new())) {
        Err(SpawnError::NotFound { program }) => {
            assert_eq!(program.to_str(), Some("/nonexistent/hdc"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
#[cfg_attr(
    windows,
    ignore = "children are `sh` scripts and signals; tests::tree holds the Windows side"
)]
fn an_abort_kills_a_group_that_ignores_sigterm_without_waiting_for_the_grace() {
    let cancel = Cancel::new();
    let trigger = cancel.clone();
    let spec = sh("trap '' TERM; sleep 30 & echo $!; while :; do wait; done")
        .grace(Duration::from_secs(30));
    let outcome = block_on(async move {
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(100)).await;
            trigger.cancel();
            assert!(trigger.is_cancelled() && !trigger.is_aborted());
            tokio::time::sleep(Duration::from_millis(200)).await;
            assert_eq!(trigger.live().len(), 1, "the group is known while it runs");
            trigger.abort();
        });
        run(&spec, &cancel).await.unwrap()
    });
    assert_eq!(outcome.completion, Completion::Cancelled);
    assert!(
        outcome.duration < Duration::from_secs(10),
        "waited the grace period: {:?}",
        outcome.duration
    );
    let grandchild = outcome.stdout.to_string_lossy();
    assert!(
        eventually_gone(grandchild.trim()),
        "grandchild {grandchild} survived"
    );
}

#[test]
#[cfg_attr(
    windows,
    ignore = "children are `sh` scripts and signals; tests::tree holds the Windows side"
)]
fn a_child_started_after_an_abort_is_killed_at_once_and_forgotten_when_reaped() {
    let cancel = Cancel::new();
    assert!(!cancel.is_cancelled());
    cancel.abort();
    assert!(cancel.is_cancelled() && cancel.is_aborted());
    let spec = sh("trap '' TERM; sleep 30").grace(Duration::from_secs(30));
    let started = std::time::Instant::now();
    let outcome = block_on(run(&spec, &cancel)).unwrap();
    assert_eq!(outcome.completion, Completion::Cancelled);
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(cancel.live().is_empty(), "a reaped group is forgotten");
}

#[test]
#[cfg_attr(
    windows,
    ignore = "children are `sh` scripts and signals; tests::tree holds the Windows side"
)]
fn what_a_child_leaves_running_in_its_group_is_stopped_when_it_exits() {
    let outcome = run_sh(&sh("sleep 301 & echo $!"));
    assert_eq!(outcome.completion, Completion::Exited(0));
    assert!(outcome.leaked);
    let pid: i32 = outcome.stdout.to_string_lossy().trim().parse().unwrap();
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let state = stat.rsplit(')').next().unwrap_or("").trim_start();
    assert!(
        stat.is_empty() || state.starts_with('Z'),
        "sleep {pid} still runs: {stat}"
    );
}

mod tree;
