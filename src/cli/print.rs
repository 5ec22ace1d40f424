//! Writing to the terminal: results on stdout, diagnostics on stderr, JSON when asked. A
//! closed stdout (`dwpipe … | head`) ends output quietly; any other write failure makes the
//! command exit 3 ([`finish`]). Control characters never reach the terminal raw.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

use serde::Serialize;

use crate::diagnostic::Diagnostic;

use super::error::Error;

/// Where a line goes.
#[derive(Clone, Copy)]
enum Stream {
    Out,
    Err,
}

/// stdout's reader went away (`dwpipe … | head`): nothing more is written there, quietly.
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);
/// A write to the terminal failed for another reason (a full disk, a closed descriptor).
static FAILED: AtomicBool = AtomicBool::new(false);

/// Writes one line, made safe for a terminal. A broken pipe ends that stream's output
/// quietly; any other failure is remembered for the exit code ([`finish`]).
fn emit(stream: Stream, text: &str) {
    // Device names, serials, replies and capture fields reach the terminal as text, never as
    // escape sequences.
    emit_safe(stream, &crate::text::without_controls(text));
}

/// Writes one line already made safe (its only escape sequences dwpipe's own colours).
fn emit_safe(stream: Stream, text: &str) {
    let written = match stream {
        Stream::Out if STDOUT_CLOSED.load(Ordering::Relaxed) => return,
        Stream::Out => writeln!(io::stdout().lock(), "{text}"),
        Stream::Err => writeln!(io::stderr().lock(), "{text}"),
    };
    match written {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
            if matches!(stream, Stream::Out) {
                STDOUT_CLOSED.store(true, Ordering::Relaxed);
            }
        }
        Err(_) => FAILED.store(true, Ordering::Relaxed),
    }
}

/// Flushes stdout; whether every write reached its stream (a reader that went away counts as
/// reached: that is how `| head` ends).
pub(super) fn finish() -> bool {
    if let Err(e) = io::stdout().lock().flush()
        && e.kind() != io::ErrorKind::BrokenPipe
    {
        FAILED.store(true, Ordering::Relaxed);
    }
    !FAILED.load(Ordering::Relaxed)
}

/// Writes a line to stdout.
pub(super) fn out(text: &str) {
    emit(Stream::Out, text);
}

/// How a word of a verdict is coloured on a terminal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Tone {
    Pass,
    Fail,
    /// Neither shown to pass nor to fail, or a warning.
    Warn,
}

impl Tone {
    /// The tone of a verdict's word (`pass`, `REGRESSED`, `unverified`, …), if it has one.
    pub(super) fn of(word: &str) -> Option<Tone> {
        match word.to_ascii_lowercase().as_str() {
            "pass" | "passes" | "same" | "improved" | "verified" => Some(Tone::Pass),
            "fail" | "fails" | "regressed" | "error" => Some(Tone::Fail),
            "unverified" | "incomplete" | "inconclusive" | "not-measured" | "stopped"
            | "warning" | "pass with warnings" => Some(Tone::Warn),
            _ => None,
        }
    }

    fn style(self) -> anstyle::Style {
        let colour = match self {
            Tone::Pass => anstyle::AnsiColor::Green,
            Tone::Fail => anstyle::AnsiColor::Red,
            Tone::Warn => anstyle::AnsiColor::Yellow,
        };
        anstyle::Style::new().fg_color(Some(colour.into())).bold()
    }
}

/// A line whose verdict words are coloured on a terminal: plain parts and toned parts, each
/// made safe for a terminal before any colour is added.
#[derive(Default)]
pub(super) struct Line(Vec<(String, Option<Tone>)>);

impl Line {
    /// Text as it is.
    pub(super) fn plain(mut self, text: impl Into<String>) -> Line {
        self.0.push((text.into(), None));
        self
    }

    /// A verdict's word, coloured by what it says.
    pub(super) fn verdict(mut self, word: impl Into<String>) -> Line {
        let word = word.into();
        let tone = Tone::of(word.trim());
        self.0.push((word, tone));
        self
    }

    /// Text in a tone of its own.
    pub(super) fn toned(mut self, text: impl Into<String>, tone: Tone) -> Line {
        self.0.push((text.into(), Some(tone)));
        self
    }

    fn render(&self, coloured: bool) -> String {
        self.0
            .iter()
            .map(|(text, tone)| {
                let text = crate::text::without_controls(text);
                match tone {
                    Some(tone) if coloured => {
                        let style = tone.style();
                        format!("{}{text}{}", style.render(), style.render_reset())
                    }
                    _ => text.into_owned(),
                }
            })
            .collect()
    }
}

/// Whether a stream shows colour: a terminal, with `NO_COLOR` unset or empty
/// (<https://no-color.org>) and a terminal that knows colour.
fn coloured(stream: Stream) -> bool {
    use std::io::IsTerminal;
    let terminal = match stream {
        Stream::Out => io::stdout().is_terminal(),
        Stream::Err => io::stderr().is_terminal(),
    };
    terminal
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
}

/// Writes a line with its verdict words coloured to stdout.
pub(super) fn out_line(line: &Line) {
    emit_safe(Stream::Out, &line.render(coloured(Stream::Out)));
}

/// Writes bytes to stdout as they are (a completion script); a failed write counts as one.
pub(super) fn raw(bytes: &[u8]) {
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return;
    }
    match io::stdout().lock().write_all(bytes) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
            STDOUT_CLOSED.store(true, Ordering::Relaxed);
        }
        Err(_) => FAILED.store(true, Ordering::Relaxed),
    }
}

/// Prints a value as pretty JSON on stdout.
pub(super) fn json(value: &impl Serialize) {
    out(&serde_json::to_string_pretty(value).expect("output values always serialize"));
}

/// Prints diagnostics on stderr, one block each, its severity coloured on a terminal.
pub(super) fn diagnostics(diagnostics: &[Diagnostic]) {
    for diagnostic in diagnostics {
        let text = diagnostic.to_string();
        let (level, rest) = text.split_at(text.find('[').unwrap_or(0));
        let line = Line::default().verdict(level).plain(rest);
        emit_safe(Stream::Err, &line.render(coloured(Stream::Err)));
    }
}

/// A line of progress or context on stderr, `dwpipe: …`.
pub(super) fn note(text: &str) {
    emit(Stream::Err, &format!("dwpipe: {text}"));
}

/// A line on stderr as it is (a reporter's own line).
pub(super) fn line(text: &str) {
    emit(Stream::Err, text);
}

/// Reports an error that ended a command.
pub(super) fn error(error: &Error, json_mode: bool) {
    match error {
        Error::Usage(e) => {
            // `--help` and `--version` arrive here too: what cannot be written is an error.
            if let Err(failed) = e.print()
                && failed.kind() != io::ErrorKind::BrokenPipe
            {
                FAILED.store(true, Ordering::Relaxed);
            }
        }
        Error::Invalid(found) | Error::Missing(found) if json_mode => {
            json(&crate::schema::DiagnosticsOutput {
                format_version: crate::format::DIAGNOSTICS,
                diagnostics: found,
            });
        }
        Error::Invalid(found) => {
            diagnostics(found);
            let errors = found.iter().filter(|d| d.is_error()).count();
            note(&format!("refused: {errors} error(s)"));
        }
        Error::History(e) if json_mode => {
            json(&crate::schema::DiagnosticsOutput {
                format_version: crate::format::DIAGNOSTICS,
                diagnostics: &[e.diagnostic()],
            });
        }
        Error::History(e) => diagnostics(&[e.diagnostic()]),
        Error::Missing(found) => {
            diagnostics(found);
            note(&format!(
                "preflight: {} missing; nothing was started (`dwpipe doctor` checks it all)",
                found.len()
            ));
        }
        // Asked for JSON: every other error is one JSON diagnostic too, never a bare line.
        other if json_mode => {
            json(&crate::schema::DiagnosticsOutput {
                format_version: crate::format::DIAGNOSTICS,
                diagnostics: &[Diagnostic::error(
                    other.code(),
                    crate::diagnostic::chain(other),
                )],
            });
        }
        other => {
            // Messages never repeat their cause: each link of the chain is said once.
            let mut message = format!("dwpipe: error[{}]: {other}", other.code());
            let mut source = std::error::Error::source(other);
            while let Some(cause) = source {
                let _ = std::fmt::Write::write_fmt(
                    &mut message,
                    format_args!("\n  caused by: {cause}"),
                );
                source = cause.source();
            }
            line(&message);
        }
    }
}

/// How a probe fares on a device's release (`probes --api-level`, `doctor --device`): its
/// word, then each read the release refuses, with the policy's lines and what is still read.
pub(super) fn on_release(label: &str, on: &crate::playbook::ProbeOnRelease) {
    out(&format!("  {label}: {}", on.readable.as_str()));
    for read in on.reads.iter().filter(|r| !r.access.on_production()) {
        out(&format!(
            "    {}: {} ({})",
            read.read,
            read.access.as_str(),
            read.policy
        ));
        if let Some(fallback) = &read.fallback {
            out(&format!("      still read: {fallback}"));
        }
    }
}

#[cfg(test)]
mod tests;
