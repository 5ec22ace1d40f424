//! The terminal reporters for long work (an audit, a delivery): indicatif bars on stderr,
//! hidden when stderr is not a terminal, in CI, or with `--json`.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::audit::AuditEvent;
use crate::diagnostic::chain;
use crate::pipeline::{Event, Note};
use crate::session::{self, Reporter};
use crate::target::Capped;
use crate::verify::VerifyReport;

use super::print;

/// Follows an audit session of any shape: a bar over the one device's session visits (an A/B
/// session's arms included), a line when a lab's device starts and ends, when an A/B session
/// switches builds or adds runs, and for each hdc server that did not answer.
pub(super) struct SessionProgress {
    bar: ProgressBar,
    quiet: bool,
}

impl SessionProgress {
    /// A reporter; `json` keeps stderr to what cannot wait (servers that did not answer).
    pub(super) fn new(json: bool) -> SessionProgress {
        let bar = if watched(json) {
            ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr_with_hz(4))
        } else {
            ProgressBar::hidden()
        };
        bar.set_style(audit_style());
        bar.enable_steady_tick(Duration::from_millis(250));
        SessionProgress { bar, quiet: json }
    }

    /// A note on stderr with the bar out of the way.
    fn note(&self, text: &str) {
        self.bar.suspend(|| print::note(text));
    }

    /// Clears the bar before the summary is printed.
    pub(super) fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Reporter for SessionProgress {
    fn event(&self, event: session::Event<'_>) {
        match event {
            session::Event::Audit(event) => follow(&self.bar, event, ""),
            session::Event::Unreachable(servers) => {
                for (server, error) in servers {
                    self.note(&format!("hdc server {server}: {}", chain(error)));
                }
            }
            session::Event::Capped(capped) => self.note(&capped_note(capped)),
            _ if self.quiet => {}
            session::Event::DeviceStarted(serial) => self.note(&format!("{serial}: auditing…")),
            session::Event::DeviceEnded(serial, Ok(verdict)) => {
                self.note(&format!("{serial}: {verdict}"));
            }
            session::Event::DeviceEnded(serial, Err(error)) => {
                self.note(&format!("{serial}: {}", chain(error)));
            }
            session::Event::Installing(arm) => self.note(&format!("installing the {arm} build…")),
            session::Event::Escalated { runs, unknown } => self.note(&format!(
                "{} still unknown: {runs} runs per arm",
                unknown.join(", ")
            )),
        }
    }
}

/// Why a lab runs fewer devices at once than asked, and what to do about it.
fn capped_note(capped: Capped) -> String {
    format!(
        "{} device(s) at once, not the {} asked for: this host allows {} open files per process \
         (raise the hard limit, `ulimit -Hn`, for more)",
        capped.allowed, capped.asked, capped.open_files
    )
}

/// Moves an audit's bar on one event; `prefix` goes before the device's serial.
fn follow(bar: &ProgressBar, event: AuditEvent, prefix: &str) {
    match event {
        AuditEvent::Started { serial, visits } => {
            bar.set_style(audit_style());
            bar.set_prefix(format!("{prefix}{serial}"));
            bar.set_length(visits);
            // An A/B session starts a bar per block.
            bar.set_position(0);
        }
        AuditEvent::Session { run, runs, session } => {
            bar.set_message(format!("run {run}/{runs} · {session}"));
        }
        AuditEvent::SessionDone => bar.inc(1),
    }
}

/// Follows a delivery: a line per finished stage with its duration, a spinner (or the audit's
/// bar) for the running one where a person is watching, plain lines elsewhere; the agent's
/// and the verification commands' output stays folded in the run directory unless `--verbose`.
pub(super) struct DeliverProgress {
    bar: ProgressBar,
    watched: bool,
    quiet: bool,
    verbose: bool,
}

impl DeliverProgress {
    /// A reporter; `json` keeps stderr quiet but for errors.
    pub(super) fn new(json: bool, verbose: bool) -> DeliverProgress {
        let watched = watched(json);
        let bar = if watched {
            ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr_with_hz(4))
        } else {
            ProgressBar::hidden()
        };
        bar.set_style(stage_style());
        DeliverProgress {
            bar,
            watched,
            quiet: json,
            verbose,
        }
    }

    fn line(&self, text: &str) {
        if self.quiet {
            return;
        }
        self.suspended(|| print::line(text));
    }

    /// Runs `print` with the bar out of the way.
    pub(super) fn suspended(&self, print: impl FnOnce()) {
        if self.watched {
            self.bar.suspend(print);
        } else {
            print();
        }
    }

    /// Follows one event.
    pub(super) fn event(&self, event: Event<'_>) {
        match event {
            Event::Stage { stage, round } => {
                let label = match round {
                    0 => stage.as_str().to_owned(),
                    n => format!("{stage} (repair {n})"),
                };
                if self.watched {
                    self.bar.reset();
                    self.bar.set_style(stage_style());
                    self.bar.set_prefix(label);
                    self.bar.set_message("");
                    self.bar.enable_steady_tick(Duration::from_millis(250));
                } else {
                    self.line(&format!("dwpipe: {label}…"));
                }
            }
            Event::Session(session::Event::Audit(event)) => follow(&self.bar, event, "audit on "),
            Event::Session(session::Event::Unreachable(servers)) => {
                for (server, error) in servers {
                    self.line(&format!("dwpipe: hdc server {server}: {}", chain(error)));
                }
            }
            Event::Session(session::Event::Capped(capped)) => {
                self.line(&format!("dwpipe: {}", capped_note(capped)));
            }
            Event::Session(session::Event::DeviceStarted(serial)) => {
                self.bar.set_message(serial.to_owned());
            }
            Event::Session(session::Event::DeviceEnded(serial, outcome)) => {
                let outcome = match outcome {
                    Ok(verdict) => verdict.as_str().to_owned(),
                    Err(error) => chain(error),
                };
                self.line(&format!("dwpipe: audit: {serial}: {outcome}"));
            }
            // A delivery's audit is no A/B session.
            Event::Session(session::Event::Installing(_) | session::Event::Escalated { .. }) => {}
            Event::Done {
                stage,
                outcome,
                note,
                millis,
                output,
            } => {
                let mut findings = Vec::new();
                let shown = match note {
                    Note::None => outcome.word(),
                    Note::Detail(detail) => detail,
                    Note::Report(report) => format!("{} ({report})", outcome.word()),
                    Note::Findings(report, found) => {
                        findings = found;
                        format!("{} ({report})", outcome.word())
                    }
                    Note::File(file) => file,
                    Note::Claim(end, claim) => format!("{end} (claims {claim})"),
                };
                self.line(&format!(
                    "dwpipe: {stage}: {shown} [{:.1}s]",
                    millis as f64 / 1000.0
                ));
                for finding in findings {
                    self.line(&format!("  {finding}"));
                }
                if self.verbose
                    && let Some(path) = output
                {
                    self.line(&unfold(&path));
                }
            }
        }
    }

    /// Clears the spinner before the summary is printed.
    pub(super) fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// Whether a person is watching: stderr is a terminal, outside CI, without `--json`.
fn watched(json: bool) -> bool {
    !json && std::io::stderr().is_terminal() && std::env::var_os("CI").is_none()
}

/// An audit: its bar over the session visits.
fn audit_style() -> ProgressStyle {
    ProgressStyle::with_template("{spinner} {prefix} [{bar:30}] {pos}/{len} {msg} ({elapsed})")
        .expect("a valid template")
        .progress_chars("=> ")
}

/// A running stage: a spinner, its name and the time so far.
fn stage_style() -> ProgressStyle {
    ProgressStyle::with_template("{spinner} {prefix}… {msg} ({elapsed})").expect("a valid template")
}

/// A stage's output for `--verbose`: the agent's log as it is, each verification command's
/// kept output under its name; indented under the stage's line.
fn unfold(path: &std::path::Path) -> String {
    let Ok(text) =
        crate::input::read_text(path, crate::input::MAX_REPORT_BYTES, "a stage's output")
    else {
        return format!("    (cannot read {})", path.display());
    };
    let text = match serde_json::from_str::<VerifyReport>(&text) {
        Ok(report) => report
            .commands
            .iter()
            .map(|c| format!("── {} ({})\n{}", c.name, c.status, c.output_tail))
            .collect::<Vec<_>>()
            .join("\n"),
        Err(_) => text,
    };
    text.lines()
        .map(|line| format!("    │ {line}"))
        .collect::<Vec<_>>()
        .join("\n")
}
