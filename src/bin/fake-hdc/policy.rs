//! A stand-in phone as strict as a production one: a read the SELinux policy of the release
//! its capture names denies the hdc shell (`device-fixtures/access.yaml`, through
//! `dwpipe::device::access_table`) is answered as that phone's shell prints the refusal,
//! whatever the capture recorded — so a probe that cannot be read on a release fails in a
//! test, not on a user's phone. A reply that already shows the refusal is left as it is.
//!
//! How each refusal shows (toybox's words):
//! - a `cat` of a denied file prints `cat: FILE: Permission denied` in place of the file and
//!   exits 1; several files of one `cat` are told apart one line each but the last (the
//!   `/proc` files dwpipe reads beside others are one line);
//! - a `for` loop over a glob in a folder the shell may not list runs once on the pattern,
//!   each `cat` of it saying `No such file or directory`; in one it may list but not read,
//!   each `cat` says `Permission denied`;
//! - a SmartPerf sampling that cannot open its nodes prints those keys empty, or stops.
//!
//! A capture that names no API level, or one the table has no family for, answers as
//! recorded.

use std::fmt::Write as _;

use dwpipe::device::{Shows, access_table};
use regex::Regex;
use std::sync::LazyLock;

use crate::line::{Part, parts, segments};

/// Commands that print nothing beside the one that reads.
const SILENT: [&str; 4] = ["sleep", "rm", "true", "wait"];

/// What a production phone of API level `api` prints for `line`, given what the capture
/// recorded (`reply`, exit `status`); an error when fake-hdc cannot tell.
pub(crate) fn production(
    api: Option<u32>,
    line: &str,
    reply: &str,
    status: i32,
) -> Result<(String, i32), String> {
    let table = access_table();
    let Some(family) = api.and_then(|api| table.family(api)) else {
        return Ok((reply.to_owned(), status));
    };
    let mut answer = (reply.to_owned(), status);
    for read in table.reads_in(line) {
        let Some(shows) = read.refused_on(family) else {
            continue;
        };
        answer = match shows {
            Shows::Cat(_) => cat_refused(line, &answer.0, answer.1, |file| read.made_by(file))?,
            Shows::GlobUnexpanded | Shows::GlobUnreadable => {
                glob_refused(line, &answer.0, shows)?.map_or(answer, |text| (text, 0))
            }
            Shows::ValuesEmpty(keys) => (values_emptied(&answer.0, keys), answer.1),
            Shows::Aborted(said) => aborted(&answer.0, said).unwrap_or(answer),
        };
    }
    Ok(answer)
}

/// Every `cat` of the line: each file `denied` says the shell's refusal in place of its
/// content; the exit status is 1 when the line's last command is one of them.
fn cat_refused(
    line: &str,
    reply: &str,
    status: i32,
    denied: impl Fn(&str) -> bool,
) -> Result<(String, i32), String> {
    let parts = parts(line).ok_or_else(|| format!("`{line}` is more than commands"))?;
    let cut = segments(&parts, reply)
        .ok_or_else(|| format!("the recorded reply to `{line}` lacks one of its markers"))?;
    let mut out = String::new();
    let mut status = status;
    for segment in &cut {
        let printing: Vec<&Vec<String>> = segment
            .commands
            .iter()
            .filter_map(|&i| match &parts[i] {
                Part::Command { words, .. } if !SILENT.contains(&words[0].as_str()) => Some(words),
                _ => None,
            })
            .collect();
        let refused: Vec<&String> = printing
            .iter()
            .filter(|w| w[0] == "cat")
            .flat_map(|w| w[1..].iter())
            .filter(|file| denied(file))
            .collect();
        if refused.is_empty() {
            out.push_str(segment.text);
            out.push_str(segment.marker);
            continue;
        }
        let [words] = printing.as_slice() else {
            return Err(format!(
                "`{line}`: the denied read shares its output with other commands; fake-hdc cannot tell its part"
            ));
        };
        out.push_str(&files_refused(&words[1..], segment.text, &denied)?);
        out.push_str(segment.marker);
        // After the last marker the line's own status is the last command's.
        if segment.status.is_none() {
            status = 1;
        }
    }
    Ok((out, status))
}

/// One `cat`'s output with each `denied` file's part replaced by the refusal.
fn files_refused(
    files: &[String],
    text: &str,
    denied: &impl Fn(&str) -> bool,
) -> Result<String, String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    if lines.len() < files.len() {
        return Err(format!(
            "`cat {}` printed {} line(s) for {} file(s): fake-hdc cannot tell each file's part",
            files.join(" "),
            lines.len(),
            files.len()
        ));
    }
    let mut out = String::new();
    for (i, file) in files.iter().enumerate() {
        let part: String = if i + 1 == files.len() {
            lines[i..].concat()
        } else {
            lines[i].to_owned()
        };
        if denied(file) {
            let _ = writeln!(out, "cat: {file}: Permission denied");
        } else {
            out.push_str(&part);
        }
    }
    Ok(out)
}

/// `…; echo MARKER; for VAR in GLOB; do BODY; done 2>&1` at the end of a line.
static LOOP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"echo (\S+); for (\w+) in (\S+); do (.*); done(?: 2>&1)?$").expect("static regex")
});

/// The loop's output (after its marker's line) as the shell prints it when the glob's folder
/// does not list, or its files do not read; `None` when the line has no such loop.
fn glob_refused(line: &str, reply: &str, shows: &Shows) -> Result<Option<String>, String> {
    let Some(found) = LOOP.captures(line) else {
        return Ok(None);
    };
    let (marker, var, glob, body) = (&found[1], &found[2], &found[3], &found[4]);
    let marker_line = format!("{marker}\n");
    let at = reply
        .rfind(&marker_line)
        .ok_or_else(|| format!("the recorded reply to `{line}` lacks the line `{marker}`"))?;
    let (head, tail) = reply.split_at(at + marker_line.len());
    // Each `$(cat $VAR/NAME)` of the body, in order.
    let files: Vec<String> = Regex::new(&format!(r"\$\(cat \${var}/([\w.]+)\)"))
        .map_err(|e| e.to_string())?
        .captures_iter(body)
        .map(|c| c[1].to_owned())
        .collect();
    let refuse = |path: &str, why: &str| {
        let mut said: String = files
            .iter()
            .map(|file| format!("cat: {path}/{file}: {why}\n"))
            .collect();
        said.push_str(path);
        said.push('\n');
        said
    };
    let loop_output = match shows {
        Shows::GlobUnexpanded => refuse(glob, "No such file or directory"),
        // The folder lists: each zone the capture shows, none of its files read.
        _ => tail
            .lines()
            .map(
                |l| match l.split_whitespace().collect::<Vec<_>>().as_slice() {
                    [path, _, _] if !path.contains('*') => refuse(path, "Permission denied"),
                    _ => format!("{l}\n"),
                },
            )
            .collect(),
    };
    Ok(Some(format!("{head}{loop_output}")))
}

/// SmartPerf's samples with `keys` printed empty (`order:1 currentNow=`).
fn values_emptied(reply: &str, keys: &[String]) -> String {
    reply
        .split_inclusive('\n')
        .map(|l| {
            let key = l
                .strip_prefix("order:")
                .and_then(|rest| rest.split_once(' '))
                .and_then(|(_, pair)| pair.split_once('='))
                .map(|(key, _)| key.trim());
            match key {
                Some(key) if keys.iter().any(|k| k == key) => {
                    let (kept, _) = l.split_once('=').unwrap_or((l, ""));
                    format!("{kept}=\n")
                }
                _ => l.to_owned(),
            }
        })
        .collect()
}

/// SmartPerf stopped on its first unreadable node: no sample, its last words, status 134
/// (SIGABRT); `None` when the reply already says so.
fn aborted(reply: &str, said: &str) -> Option<(String, i32)> {
    if reply.contains(said.trim_end()) {
        return None;
    }
    let kept: String = reply
        .split_inclusive('\n')
        .filter(|l| !l.starts_with("order:") && !l.contains("exec finished"))
        .collect();
    Some((format!("{kept}{said}"), 134))
}

#[cfg(test)]
mod tests;
