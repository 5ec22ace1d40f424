//! The async runtime for commands that drive children (devices, agents, verification
//! commands), with SIGINT and SIGTERM (Ctrl-C and Ctrl-Break on Windows) wired to
//! cancellation, the same way: a cancelled CI job, `timeout` and a lab scheduler send SIGTERM
//! where a person presses Ctrl-C.

use std::future::Future;
use std::time::Duration;

use crate::exit_code;
use crate::process::Cancel;

mod signals;
use signals::Signals;

/// After the first signal, how long the command may take to stop its children (grace
/// included), record `interrupted` and write what it has, before dwpipe exits regardless.
const STOP_DEADLINE: Duration = Duration::from_secs(30);

/// After the first signal, how long a command with no child left may take to notice and end
/// on its own (recording and writing are quick; parsing a large trace is not, and nothing of
/// it needs keeping: reports are written atomically).
const IDLE_DEADLINE: Duration = Duration::from_secs(2);

/// How often the watcher looks at what is still running.
const TICK: Duration = Duration::from_millis(50);

/// After a second signal killed every child group, how long the command may take to record
/// `interrupted` and write what it has before dwpipe exits regardless.
const ABORT_DEADLINE: Duration = Duration::from_secs(3);

/// Runs `work` to completion on a single-threaded runtime (device calls are processes, not
/// CPU work). The first SIGINT or SIGTERM fires `cancel`, which stops every child's process
/// group (SIGTERM, grace, SIGKILL) and lets the command record and write what it has; a
/// second one of either kind SIGKILLs every live group at once, so the command ends without
/// waiting out any grace period.
///
/// The signals are watched on a thread of their own, so CPU work between device calls (a
/// large trace parsed during a replay) cannot keep them from being seen, and a command that
/// does not stop by the deadline still ends with exit 130.
pub(super) fn block_on<F: Future>(cancel: &Cancel, work: F) -> F::Output {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime starts");
    let watcher = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime starts");
    // Installed before any child starts, so no signal is lost to the default action (which,
    // without handlers, stays: dwpipe exits and nothing is left waiting on it).
    let signals = watcher.block_on(async { Signals::install() });
    if let Some(signals) = signals {
        let on_signal = cancel.clone();
        std::thread::spawn(move || {
            watcher.block_on(stop_on_signals(on_signal, signals));
        });
    }
    runtime.block_on(work)
}

/// Cancels on the first signal; aborts on the second (or when the command has not stopped by
/// the deadline), and exits if it has not finished soon after (its children are gone by then:
/// an abort SIGKILLs their groups).
async fn stop_on_signals(cancel: Cancel, mut signals: Signals) {
    signals.next().await;
    cancel.cancel();
    let stop_by = tokio::time::Instant::now() + STOP_DEADLINE;
    let mut idle_since = None;
    loop {
        tokio::select! {
            () = signals.next() => break,
            () = tokio::time::sleep(TICK) => {}
        }
        let now = tokio::time::Instant::now();
        if cancel.has_live_children() {
            idle_since = None;
        } else if now - *idle_since.get_or_insert(now) >= IDLE_DEADLINE {
            exit_interrupted();
        }
        if now >= stop_by {
            break;
        }
    }
    cancel.abort();
    tokio::time::sleep(ABORT_DEADLINE).await;
    exit_interrupted();
}

/// Ends dwpipe now, saying so, with exit 130.
fn exit_interrupted() -> ! {
    super::print::line("dwpipe: error[E_INTERRUPTED]: interrupted");
    std::process::exit(exit_code::INTERRUPTED);
}

/// Runs synchronous `work` (reading, parsing, writing reports: no children) on a thread of its
/// own, so that the first SIGINT or SIGTERM ends dwpipe at once with exit 130: there is nothing
/// to stop or record, and what such a command writes is written atomically.
pub(super) fn interruptible<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime starts");
    runtime.block_on(async move {
        let worker = tokio::task::spawn_blocking(work);
        let Some(mut signals) = Signals::install() else {
            return finished(worker.await);
        };
        tokio::select! {
            done = worker => finished(done),
            () = signals.next() => exit_interrupted(),
        }
    })
}

/// The worker's result; its panic, carried on.
fn finished<T>(done: Result<T, tokio::task::JoinError>) -> T {
    done.unwrap_or_else(|e| std::panic::resume_unwind(e.into_panic()))
}
