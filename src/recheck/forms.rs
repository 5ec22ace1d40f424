//! The forms an audit was published in, held to its evidence: `audit-<n>.md` beside it, and
//! `junit.xml` and `report.html` when it is its folder's latest audit (each audit writes them
//! over the last). Each is rendered again from the report its evidence gives (the page with
//! the figures its evidence draws) and must be that, byte for byte: a
//! FAIL turned PASS in a page a reviewer reads is a difference like one in the report. Only
//! the page's history (the trends of the audits before it, the history's at the time) is not
//! evidence, and is said to be unchecked. Forms rendered by another dwpipe are not checked
//! (its renderer may have worded them otherwise), and said so.

use std::path::Path;

use super::{Cause, Difference};
use crate::audit::Figures;
use crate::input::read_bounded;
use crate::pack::Pack;
use crate::schema::{AuditReport, FormCheck, files};

/// The most bytes of a form read (a page with its screenshots inlined).
const FORM_LIMIT: u64 = 64 * 1024 * 1024;

/// Where the history's trends begin on an audit's page (the last sections before its end).
const HISTORY_MARKERS: [&str; 2] = ["<section><h2>History</h2>", "<section><h2>Trend of "];

/// The forms of the audit at `path`, held to `report` as its evidence rebuilt it: what was
/// looked at, and each difference.
pub(crate) fn forms(
    path: &Path,
    report: &AuditReport,
    figures: &Figures,
    pack: &Pack,
) -> (Vec<FormCheck>, Vec<Difference>) {
    let folder = crate::output::dir_or_dot(path.parent());
    let mut checks = Vec::new();
    let mut found = Vec::new();
    let mut named = Vec::new();
    if let Some(md) = sibling_markdown(path) {
        named.push((md, Form::Markdown));
    }
    if latest(path) {
        named.push((files::AUDIT_JUNIT.to_owned(), Form::Junit));
        named.push((files::AUDIT_HTML.to_owned(), Form::Html));
    }
    let ours = report.dwpipe_version == env!("CARGO_PKG_VERSION");
    for (file, form) in named {
        let at = folder.join(&file);
        match std::fs::symlink_metadata(&at) {
            Ok(meta) if meta.is_file() => {}
            // A link or a pipe where a form was written is not what dwpipe wrote there.
            Ok(_) => {
                found.push(differs(
                    &file,
                    Some("a link or a special file".to_owned()),
                    "a file".to_owned(),
                ));
                continue;
            }
            Err(_) => continue,
        }
        if !ours {
            checks.push(FormCheck {
                file,
                checked: false,
                note: Some(format!(
                    "rendered by dwpipe {}: verify it with that release",
                    report.dwpipe_version
                )),
            });
            continue;
        }
        let given = match read_bounded(&at, FORM_LIMIT, "a report form") {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) => {
                found.push(differs(
                    &file,
                    Some(e.to_string()),
                    "a readable file".to_owned(),
                ));
                continue;
            }
        };
        let expected = match form {
            Form::Markdown => match crate::report::markdown(report) {
                Ok(text) => text,
                Err(e) => {
                    found.push(differs(&file, None, format!("cannot be rendered: {e}")));
                    continue;
                }
            },
            Form::Junit => crate::report::junit(report),
            Form::Html => crate::report::html(report, figures, pack),
        };
        let (said, made, note) = match form {
            Form::Html => without_history(&given, &expected),
            _ => (given.as_str(), expected.as_str(), None),
        };
        if let Some((line, said, made)) = first_difference(said, made) {
            found.push(differs(&format!("{file}:{line}"), Some(said), made));
        }
        checks.push(FormCheck {
            file,
            checked: true,
            note,
        });
    }
    (checks, found)
}

#[derive(Clone, Copy)]
enum Form {
    Markdown,
    Junit,
    Html,
}

/// `audit-<n>.md` beside `audit-<n>.json`.
fn sibling_markdown(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    let stem = name.strip_suffix(".json")?;
    files::is_audit(name).then(|| format!("{stem}.md"))
}

/// Whether no audit in the folder has a higher number than the one at `path`: the folder's
/// `junit.xml` and `report.html` are its.
fn latest(path: &Path) -> bool {
    let number = |name: &str| -> Option<u64> {
        name.strip_prefix("audit-")?
            .strip_suffix(".json")?
            .parse()
            .ok()
    };
    let Some(mine) = path.file_name().and_then(|n| n.to_str()).and_then(number) else {
        return false;
    };
    let folder = crate::output::dir_or_dot(path.parent());
    let Ok(entries) = std::fs::read_dir(folder) else {
        return false;
    };
    entries
        .flatten()
        .filter_map(|e| number(&e.file_name().to_string_lossy()))
        .all(|n| n <= mine)
}

/// The page and its rendering, to compare: without the page's history sections when it has
/// them (the history's at the audit's time, not evidence), up to where they begin.
fn without_history<'a>(given: &'a str, expected: &'a str) -> (&'a str, &'a str, Option<String>) {
    let foot = crate::report::html::FOOT;
    let body = expected.strip_suffix(foot).unwrap_or(expected);
    let history = given
        .strip_prefix(body)
        .and_then(|rest| rest.strip_suffix(foot))
        .filter(|h| HISTORY_MARKERS.iter().any(|m| h.starts_with(m)));
    match history {
        Some(_) => (
            &given[..body.len()],
            body,
            Some("its history section (trends from the history at the audit's time) is not evidence, and was not checked".to_owned()),
        ),
        None => (given, expected, None),
    }
}

/// The first line where `given` and `expected` differ: (its number, from 1; the given line;
/// the expected one).
fn first_difference(given: &str, expected: &str) -> Option<(usize, String, String)> {
    if given == expected {
        return None;
    }
    let shown = |l: Option<&str>| {
        l.map_or_else(
            || "(the end)".to_owned(),
            |l| crate::text::one_line(l, 160).into_owned(),
        )
    };
    let (mut said, mut made) = (given.split('\n'), expected.split('\n'));
    let mut line = 0;
    loop {
        line += 1;
        match (said.next(), made.next()) {
            (Some(a), Some(b)) if a == b => {}
            (a, b) => return Some((line, shown(a), shown(b))),
        }
    }
}

fn differs(path: &str, said: Option<String>, made: String) -> Difference {
    Difference {
        cause: Cause::Tampered,
        path: path.to_owned(),
        report: said.map(serde_json::Value::String),
        rebuilt: Some(serde_json::Value::String(made)),
    }
}

#[cfg(test)]
mod tests;
