//! The terminal reporters for long work (an audit, a delivery): indicatif bars on stderr,
//! hidden when stderr is not a terminal, in CI, or with `--json`.

use std::collections::HashMap;
use std::io::IsTerminal;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::audit::AuditEvent;
use crate::diagnostic::chain;
use crate::pipeline::{Event, Note};
use crate::schema::Arm;
use crate::schema::VerifyReport;
use crate::session::{self, Reporter};
use crate::target::Capped;

use super::print;

/// Follows an audit session of any shape: a bar over the one device's session visits (each
/// block of an A/B session its own, named by its arm, with a line when it is done), a bar per
/// device in a lab, a line when an A/B session adds runs, and for each hdc server that did
/// not answer. Nothing is drawn before there is something to count.
pub(super) struct SessionProgress {
    multi: MultiProgress,
    /// The one device's bar, from its first visit.
    bar: Mutex<Option<ProgressBar>>,
    /// A lab's bars, by serial.
    devices: Mutex<HashMap<String, ProgressBar>>,
    /// The build an A/B session installed last.
    arm: Mutex<Option<Arm>>,
    quiet: bool,
}

impl SessionProgress {
    /// A reporter; `json` keeps stderr to what cannot wait (servers that did not answer).
    pub(super) fn new(json: bool) -> SessionProgress {
        let multi = if watched(json) {
            MultiProgress::with_draw_target(ProgressDrawTarget::stderr_with_hz(4))
        } else {
            MultiProgress::with_draw_target(ProgressDrawTarget::hidden())
        };
        SessionProgress {
            multi,
            bar: Mutex::default(),
            devices: Mutex::default(),
            arm: Mutex::default(),
            quiet: json,
        }
    }

    /// A note on stderr with the bars out of the way.
    fn note(&self, text: &str) {
        self.multi.suspend(|| print::note(text));
    }

    /// A bar over `visits` at the bottom, its label set before it is first drawn (never an
    /// empty `0/0` bar).
    fn add_bar(&self, label: String, visits: u64) -> ProgressBar {
        let bar = ProgressBar::new(visits)
            .with_style(audit_style())
            .with_prefix(label);
        let bar = self.multi.add(bar);
        bar.enable_steady_tick(Duration::from_millis(250));
        bar
    }

    /// An A/B block's bar is done: said on its own line, so that every block stays on record.
    fn block_done(&self, bar: &ProgressBar) {
        bar.finish_and_clear();
        if !self.quiet {
            self.note(&format!(
                "{}: {}/{} visits done",
                bar.prefix(),
                bar.position(),
                bar.length().unwrap_or(0)
            ));
        }
    }

    /// The one device's audit went on: each start (an A/B session's block) a bar of its own.
    fn audit(&self, event: AuditEvent) {
        let mut bar = self.bar.lock().unwrap_or_else(PoisonError::into_inner);
        match event {
            AuditEvent::AlreadyRecorded { report } => self.note(&already_recorded(&report)),
            AuditEvent::Started { serial, visits } => {
                if let Some(done) = bar.take() {
                    // An A/B session's previous block.
                    self.block_done(&done);
                }
                let arm = *self.arm.lock().unwrap_or_else(PoisonError::into_inner);
                let label = match arm {
                    Some(arm) => format!("{arm} build on {serial}"),
                    None => serial,
                };
                *bar = Some(self.add_bar(label, visits));
            }
            other => {
                if let Some(bar) = bar.as_ref() {
                    follow(bar, other, "");
                }
            }
        }
    }

    /// A lab's device went on, on its own bar.
    fn device(&self, serial: &str, event: AuditEvent) {
        let mut devices = self.devices.lock().unwrap_or_else(PoisonError::into_inner);
        match event {
            AuditEvent::AlreadyRecorded { report } => self.note(&already_recorded(&report)),
            AuditEvent::Started { visits, .. } => {
                if let Some(old) =
                    devices.insert(serial.to_owned(), self.add_bar(serial.to_owned(), visits))
                {
                    old.finish_and_clear();
                }
            }
            other => {
                if let Some(bar) = devices.get(serial) {
                    follow(bar, other, "");
                }
            }
        }
    }

    /// Clears the bars before the summary is printed.
    pub(super) fn finish(&self) {
        let ab = self
            .arm
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some();
        if let Some(bar) = self
            .bar
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
        {
            if ab {
                // The last block is on record like the others.
                self.block_done(&bar);
            } else {
                bar.finish_and_clear();
            }
        }
        for bar in self
            .devices
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
        {
            bar.finish_and_clear();
        }
        let _ = self.multi.clear();
    }
}

impl Reporter for SessionProgress {
    fn event(&self, event: session::Event<'_>) {
        match event {
            session::Event::Audit(event) => self.audit(event),
            session::Event::DeviceAudit(serial, event) => self.device(serial, event),
            session::Event::Unreachable(servers) => {
                for (server, error) in servers {
                    self.note(&server_said(server, error));
                }
            }
            session::Event::Capped(capped) => self.note(&capped_note(capped)),
            session::Event::Installing(arm) => {
                *self.arm.lock().unwrap_or_else(PoisonError::into_inner) = Some(arm);
                if !self.quiet {
                    self.note(&format!("installing the {arm} build…"));
                }
            }
            // What is signed, or is not, is said whatever else is quiet.
            session::Event::Attested(attested) => self.note(&attested_note(attested)),
            session::Event::NotAttested { report, why } => {
                self.note(&not_attested_note(report, why));
            }
            _ if self.quiet => {}
            session::Event::DeviceStarted(serial) => self.note(&format!("{serial}: auditing…")),
            session::Event::DeviceEnded(serial, outcome) => {
                if let Some(bar) = self
                    .devices
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .remove(serial)
                {
                    bar.finish_and_clear();
                }
                match outcome {
                    Ok(verdict) => self.note(&format!("{serial}: {verdict}")),
                    Err(error) => self.note(&format!("{serial}: {}", chain(error))),
                }
            }
            session::Event::Escalated { runs, unknown } => self.note(&format!(
                "{} still unknown: {runs} runs per arm",
                unknown.join(", ")
            )),
        }
    }
}

/// What an hdc server that did not answer said, naming it once.
fn server_said(server: &str, error: &crate::device::DeviceError) -> String {
    let said = chain(error);
    if said.contains(server) {
        said
    } else {
        format!("hdc server {server}: {said}")
    }
}

/// `attested audit-1.json: PASSED (key 1a2b…) → audit-1.intoto.jsonl`.
fn attested_note(attested: &crate::attest::AttestOutcome) -> String {
    format!(
        "attested {}: {} ({} key {}) → {}",
        attested.audit,
        attested.result,
        attested.algorithm,
        &attested.keyid[..12.min(attested.keyid.len())],
        attested.file
    )
}

/// Why an audit was not attested, with the first refusal's code and fix.
fn not_attested_note(report: &std::path::Path, why: &[crate::diagnostic::Diagnostic]) -> String {
    let reasons: Vec<String> = why
        .iter()
        .map(|d| match &d.fix {
            Some(fix) => format!("{} {} (fix: {fix})", d.code, d.message),
            None => format!("{} {}", d.code, d.message),
        })
        .collect();
    format!("not attested {}: {}", report.display(), reasons.join("; "))
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
            bar.set_position(0);
            bar.enable_steady_tick(Duration::from_millis(250));
        }
        AuditEvent::Session { run, runs, session } => {
            bar.set_message(format!("run {run}/{runs} · {session}"));
        }
        AuditEvent::SessionDone => bar.inc(1),
        // Said as a note by whoever follows the audit, never on a bar (hidden off a terminal).
        AuditEvent::AlreadyRecorded { .. } => {}
    }
}

/// What a reporter says of an audit the history had already.
fn already_recorded(report: &std::path::Path) -> String {
    format!(
        "{}: not recorded again: the history has this report already",
        report.display()
    )
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
            Event::Session(session::Event::Audit(AuditEvent::AlreadyRecorded { report })) => {
                self.line(&format!("dwpipe: {}", already_recorded(&report)));
            }
            Event::Session(session::Event::Audit(event)) => follow(&self.bar, event, "audit on "),
            // A delivery's lab shows its devices starting and ending on its one line.
            Event::Session(session::Event::DeviceAudit(..)) => {}
            Event::Session(session::Event::Unreachable(servers)) => {
                for (server, error) in servers {
                    self.line(&format!("dwpipe: {}", server_said(server, error)));
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
                    Ok(said) => said.to_owned(),
                    Err(error) => chain(error),
                };
                self.line(&format!("dwpipe: audit: {serial}: {outcome}"));
            }
            Event::Session(session::Event::Attested(attested)) => {
                self.line(&format!("dwpipe: {}", attested_note(attested)));
            }
            Event::Session(session::Event::NotAttested { report, why }) => {
                self.line(&format!("dwpipe: {}", not_attested_note(report, why)));
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
