//! The terminal reporters for long work (an audit, a delivery): indicatif bars on stderr,
//! hidden when stderr is not a terminal, in CI, or with `--json`.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::audit::AuditEvent;
use crate::diagnostic::chain;
use crate::lab::LabEvent;
use crate::pipeline::{Event, Note};
use crate::verify::VerifyReport;

/// A bar that follows an audit's events.
pub(super) struct AuditProgress {
    bar: ProgressBar,
}

impl AuditProgress {
    /// A bar, drawn only where a person is watching.
    pub(super) fn new(json: bool) -> AuditProgress {
        let bar = if watched(json) {
            ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr_with_hz(4))
        } else {
            ProgressBar::hidden()
        };
        bar.set_style(audit_style());
        bar.enable_steady_tick(Duration::from_millis(250));
        AuditProgress { bar }
    }

    /// Follows one event.
    pub(super) fn event(&self, event: AuditEvent) {
        match event {
            AuditEvent::Started { serial, visits } => {
                self.bar.set_prefix(serial);
                self.bar.set_length(visits);
                // An A/B session starts a bar per block.
                self.bar.set_position(0);
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
        self.suspended(|| super::print::line(text));
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
            Event::Audit(AuditEvent::Started { serial, visits }) => {
                self.bar.set_style(audit_style());
                self.bar.set_prefix(format!("audit on {serial}"));
                self.bar.set_length(visits);
            }
            Event::Audit(AuditEvent::Session { run, runs, session }) => {
                self.bar
                    .set_message(format!("run {run}/{runs} · {session}"));
            }
            Event::Audit(AuditEvent::SessionDone) => self.bar.inc(1),
            Event::Lab(LabEvent::Started(serial)) => self.bar.set_message(serial.to_owned()),
            Event::Lab(LabEvent::Finished(serial, outcome)) => {
                let outcome = match outcome {
                    Ok(verdict) => verdict.as_str().to_owned(),
                    Err(error) => chain(error),
                };
                self.line(&format!("dwpipe: audit: {serial}: {outcome}"));
            }
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
