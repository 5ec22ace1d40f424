//! The requests to stop that reach dwpipe, as one stream: SIGINT and SIGTERM on Unix (a
//! person's Ctrl-C; a cancelled CI job, `timeout`, a lab scheduler), Ctrl-C and Ctrl-Break on
//! Windows (a person's keys; a CI runner's or `taskkill`'s console event).

/// The stop requests, watched from the moment this is made.
pub(super) struct Signals {
    #[cfg(unix)]
    interrupt: tokio::signal::unix::Signal,
    #[cfg(unix)]
    terminate: tokio::signal::unix::Signal,
    #[cfg(windows)]
    interrupt: tokio::signal::windows::CtrlC,
    #[cfg(windows)]
    terminate: tokio::signal::windows::CtrlBreak,
}

impl Signals {
    /// Installs the handlers (inside a runtime); `None` when the host refuses them.
    pub(super) fn install() -> Option<Signals> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Some(Signals {
                interrupt: signal(SignalKind::interrupt()).ok()?,
                terminate: signal(SignalKind::terminate()).ok()?,
            })
        }
        #[cfg(windows)]
        {
            use tokio::signal::windows::{ctrl_break, ctrl_c};
            Some(Signals {
                interrupt: ctrl_c().ok()?,
                terminate: ctrl_break().ok()?,
            })
        }
    }

    /// Resolves at the next request of either kind.
    pub(super) async fn next(&mut self) {
        tokio::select! {
            _ = self.interrupt.recv() => {}
            _ = self.terminate.recv() => {}
        }
    }
}
