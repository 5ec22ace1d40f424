//! Writing to the terminal: results on stdout, diagnostics on stderr, JSON when asked. A
//! closed stdout (`dwpipe … | head`) is not an error.

use std::io::{self, Write};

use serde::Serialize;

use crate::diagnostic::Diagnostic;

use super::error::Error;

/// Writes a line to stdout, ignoring a reader that went away.
pub(super) fn out(text: &str) {
    let mut stdout = io::stdout().lock();
    let _ = writeln!(stdout, "{text}");
}

/// Prints a value as pretty JSON on stdout.
pub(super) fn json(value: &impl Serialize) {
    out(&serde_json::to_string_pretty(value).expect("output values always serialize"));
}

/// Prints diagnostics on stderr, one block each.
pub(super) fn diagnostics(diagnostics: &[Diagnostic]) {
    let mut stderr = io::stderr().lock();
    for diagnostic in diagnostics {
        let _ = writeln!(stderr, "{diagnostic}");
    }
}

/// A line of progress or context on stderr, `dwpipe: …`.
pub(super) fn note(text: &str) {
    let _ = writeln!(io::stderr().lock(), "dwpipe: {text}");
}

/// The hdc servers that did not answer (the others were enough to go on).
pub(super) fn unreachable_servers(servers: &[(String, crate::device::DeviceError)]) {
    for (server, error) in servers {
        note(&format!(
            "hdc server {server}: {}",
            crate::diagnostic::chain(error)
        ));
    }
}

/// Reports an error that ended a command.
pub(super) fn error(error: &Error, json_mode: bool) {
    match error {
        Error::Usage(e) => {
            let _ = e.print();
        }
        Error::Invalid(found) if json_mode => json(&serde_json::json!({
            "format-version": crate::format::DIAGNOSTICS,
            "diagnostics": found,
        })),
        Error::Invalid(found) => {
            diagnostics(found);
            let errors = found.iter().filter(|d| d.is_error()).count();
            eprintln!("dwpipe: refused: {errors} error(s)");
        }
        other => {
            // Messages never repeat their cause: each link of the chain is said once.
            let mut message = format!("dwpipe: error: {other}");
            let mut source = std::error::Error::source(other);
            while let Some(cause) = source {
                let _ = std::fmt::Write::write_fmt(
                    &mut message,
                    format_args!("\n  caused by: {cause}"),
                );
                source = cause.source();
            }
            eprintln!("{message}");
        }
    }
}
