//! What the unit tests share: running a future on the single-threaded runtime dwpipe's
//! commands use.

use std::future::Future;

/// Runs `future` to completion on a current-thread runtime with timers and processes.
pub(crate) fn block_on<F: Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime starts")
        .block_on(future)
}
