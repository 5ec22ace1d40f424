//! The terminal reporter for long device work: an indicatif bar on stderr, hidden when
//! stderr is not a terminal, in CI, or with `--json`.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::audit::AuditEvent;

/// A bar that follows an audit's events.
pub(super) struct AuditProgress {
    bar: ProgressBar,
}

impl AuditProgress {
    /// A bar, drawn only where a person is watching.
    pub(super) fn new(json: bool) -> AuditProgress {
        let watched = !json && std::io::stderr().is_terminal() && std::env::var_os("CI").is_none();
        let bar = if watched {
            ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr_with_hz(4))
        } else {
            ProgressBar::hidden()
        };
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} {prefix} [{bar:30}] {pos}/{len} {msg} ({elapsed})",
            )
            .expect("a valid template")
            .progress_chars("=> "),
        );
        bar.enable_steady_tick(Duration::from_millis(250));
        AuditProgress { bar }
    }

    /// Follows one event.
    pub(super) fn event(&self, event: AuditEvent) {
        match event {
            AuditEvent::Started { serial, visits } => {
                self.bar.set_prefix(serial);
                self.bar.set_length(visits);
            }
            AuditEvent::Session { run, runs, session } => self
                .bar
                .set_message(format!("run {run}/{runs} · {session}")),
            AuditEvent::SessionDone => self.bar.inc(1),
        }
    }

    /// Clears the bar before the summary is printed.
    pub(super) fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
