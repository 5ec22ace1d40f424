//! Every stable `E_*` code dwpipe prints or records, with what it means, the exit code it
//! comes with and how to put it right: one table (`codes.txt`, a line per code,
//! `CODE|exit|meaning|fix`), from which `dwpipe explain` answers and `docs/errors.md` is made.
//! A test holds the table to the source: a code used and not listed, or listed and never
//! used, fails it.

use std::fmt::Write as _;

use super::verdicts::{ENVIRONMENT, INTERRUPTED, INVALID_INPUT, OK};

/// The table, as written.
const TABLE: &str = include_str!("codes.txt");

/// What exit code a code comes with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Exit {
    /// The input does not validate: exit 2.
    Invalid,
    /// The machine, a tool or a device failed: exit 3.
    Environment,
    /// A signal stopped the run: exit 130.
    Interrupted,
    /// A finding inside a report (an audit, a verification, a review): the command's exit is
    /// the verdict's, 1 when it fails.
    Report,
    /// The stop hook said it to the user and answered the harness: exit 0.
    Answered,
}

impl Exit {
    /// The word the table spells it with.
    fn parse(word: &str) -> Option<Exit> {
        Some(match word {
            "invalid" => Exit::Invalid,
            "environment" => Exit::Environment,
            "interrupted" => Exit::Interrupted,
            "report" => Exit::Report,
            "answered" => Exit::Answered,
            _ => return None,
        })
    }

    /// The exit code, said for a reader.
    pub(crate) fn words(self) -> String {
        match self {
            Exit::Invalid => format!("{INVALID_INPUT} (invalid input)"),
            Exit::Environment => format!("{ENVIRONMENT} (environment)"),
            Exit::Interrupted => format!("{INTERRUPTED} (interrupted)"),
            Exit::Report => "the verdict's (1 when it fails): a finding in a report".to_owned(),
            Exit::Answered => format!("{OK} (the hook answered)"),
        }
    }
}

/// One code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Code {
    /// `E_…`.
    pub(crate) code: &'static str,
    /// Its exit code.
    pub(crate) exit: Exit,
    /// What it means.
    pub(crate) meaning: &'static str,
    /// How to put it right.
    pub(crate) fix: &'static str,
}

/// Every code, in the table's (alphabetical) order (a unit test holds every line to read).
pub(crate) static CODES: std::sync::LazyLock<Vec<Code>> =
    std::sync::LazyLock::new(|| TABLE.lines().filter_map(|line| parse(line).ok()).collect());

/// One line of the table.
fn parse(line: &'static str) -> Result<Code, &'static str> {
    let mut parts = line.splitn(4, '|');
    let (Some(code), Some(exit), Some(meaning), Some(fix)) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err("not CODE|exit|meaning|fix");
    };
    Ok(Code {
        code,
        exit: Exit::parse(exit)
            .ok_or("an exit that is not invalid, environment, interrupted, report or answered")?,
        meaning,
        fix,
    })
}

/// `docs/errors.md`: every code, its exit code, meaning and fix.
pub(crate) fn markdown() -> String {
    let mut page = String::from(
        "# Error codes\n\n\
         Every stable code dwpipe prints (`error[E_…]`) or records in a report, with the exit \
         code it comes with and how to put it right. `dwpipe explain CODE` prints one. \
         Generated from `src/exit_code/codes.txt` (`dwpipe explain --markdown`); a test keeps \
         this page, the table and the source in step.\n\n\
         Exit codes: 0 pass, 1 fail (the verdict), 2 invalid input, 3 environment, 130 \
         interrupted. Warnings (`W_…`) never change an exit code.\n\n\
         | Code | Exit | Meaning | Fix |\n|---|---|---|---|\n",
    );
    for code in CODES.iter() {
        let cell = |text: &str| text.replace('|', "\\|");
        let _ = writeln!(
            page,
            "| `{}` | {} | {} | {} |",
            code.code,
            code.exit.words(),
            cell(code.meaning),
            cell(code.fix)
        );
    }
    page
}

#[cfg(test)]
mod tests;
