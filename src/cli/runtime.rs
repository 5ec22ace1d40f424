//! The async runtime for commands that drive children (devices, agents, verification
//! commands), with SIGINT and SIGTERM wired to cancellation, the same way: a cancelled CI job,
//! `timeout` and a lab scheduler send SIGTERM where a person presses Ctrl-C.

use std::future::Future;
use std::time::Duration;

use tokio::signal::unix::{Signal, SignalKind, signal};

use crate::exit_code;
use crate::process::Cancel;

/// After a second signal killed every child group, how long the command may take to record
/// `interrupted` and write what it has before dwpipe exits regardless.
const ABORT_DEADLINE: Duration = Duration::from_secs(3);

/// Runs `work` to completion on a single-threaded runtime (device calls are processes, not
/// CPU work). The first SIGINT or SIGTERM fires `cancel`, which stops every child's process
/// group (SIGTERM, grace, SIGKILL) and lets the command record and write what it has; a
/// second one of either kind SIGKILLs every live group at once, so the command ends without
/// waiting out any grace period.
pub(super) fn block_on<F: Future>(cancel: &Cancel, work: F) -> F::Output {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime starts");
    let on_signal = cancel.clone();
    runtime.block_on(async move {
        // Installed before any child starts, so no signal is lost to the default action (which,
        // without handlers, stays: dwpipe exits and nothing is left waiting on it).
        if let (Ok(interrupt), Ok(terminate)) = (
            signal(SignalKind::interrupt()),
            signal(SignalKind::terminate()),
        ) {
            tokio::spawn(stop_on_signals(on_signal, interrupt, terminate));
        }
        work.await
    })
}

/// Cancels on the first signal; aborts on the second, and exits if the command has not
/// finished by the deadline (its children are gone by then: an abort SIGKILLs their groups).
async fn stop_on_signals(cancel: Cancel, mut interrupt: Signal, mut terminate: Signal) {
    let mut next = async || {
        tokio::select! {
            _ = interrupt.recv() => {}
            _ = terminate.recv() => {}
        }
    };
    next().await;
    cancel.cancel();
    next().await;
    cancel.abort();
    tokio::time::sleep(ABORT_DEADLINE).await;
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
        let (Ok(mut interrupt), Ok(mut terminate)) = (
            signal(SignalKind::interrupt()),
            signal(SignalKind::terminate()),
        ) else {
            return finished(worker.await);
        };
        tokio::select! {
            done = worker => finished(done),
            _ = interrupt.recv() => std::process::exit(exit_code::INTERRUPTED),
            _ = terminate.recv() => std::process::exit(exit_code::INTERRUPTED),
        }
    })
}

/// The worker's result; its panic, carried on.
fn finished<T>(done: Result<T, tokio::task::JoinError>) -> T {
    done.unwrap_or_else(|e| std::panic::resume_unwind(e.into_panic()))
}
