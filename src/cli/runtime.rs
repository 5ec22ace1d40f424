//! The async runtime for commands that drive devices, with Ctrl-C wired to cancellation.

use std::future::Future;

use crate::process::Cancel;

/// Runs `work` to completion on a single-threaded runtime (device calls are processes, not
/// CPU work). The first Ctrl-C fires `cancel`, which stops every child's process group and
/// lets the command write what it has; a second one exits at once.
pub(super) fn block_on<F: Future>(cancel: &Cancel, work: F) -> F::Output {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime starts");
    let on_interrupt = cancel.clone();
    runtime.block_on(async move {
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                on_interrupt.cancel();
                if tokio::signal::ctrl_c().await.is_ok() {
                    std::process::exit(crate::exit_code::INTERRUPTED);
                }
            }
        });
        work.await
    })
}
