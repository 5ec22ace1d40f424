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
    let text = crate::text::without_controls(text);
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

/// Prints diagnostics on stderr, one block each.
pub(super) fn diagnostics(diagnostics: &[Diagnostic]) {
    for diagnostic in diagnostics {
        emit(Stream::Err, &diagnostic.to_string());
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
