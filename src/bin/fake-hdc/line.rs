//! A shell line as a phone's `/bin/sh` runs it, taken apart the way its reply was put
//! together: commands separated by `;` (`&` sends one to the background until `wait`), and
//! `echo` markers whose lines cut the reply into each command's part.
//!
//! dwpipe's lines are plain: words, single quotes, `$?` only at the end of a marker. A line
//! with anything else (`$(…)`, a loop) is not taken apart: the tool says so.

/// One command of a line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Part {
    /// `echo TEXT`: a line of the reply; `status` when it ends in `$?` (the line is
    /// `TEXT<status>`).
    Echo { text: String, status: bool },
    /// `wait`: the commands sent to the background finish here.
    Wait,
    /// Any other command, as its words; `background` when it ended in `&`.
    Command {
        words: Vec<String>,
        background: bool,
    },
}

/// What one command printed and its exit status.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Said {
    pub(crate) output: String,
    pub(crate) status: i32,
}

/// The words of one command: split at blanks outside quotes, quotes removed; `None` when the
/// command expands anything (`$`, `` ` ``) or groups (`(`, `{`) or redirects.
pub(crate) fn words(command: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut quote: Option<char> = None;
    for c in command.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.get_or_insert_with(String::new).push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                word.get_or_insert_with(String::new);
            }
            (None, c) if c.is_whitespace() => words.extend(word.take()),
            (None, '$' | '`' | '(' | ')' | '{' | '}' | '<' | '>' | '|') => return None,
            (None, c) => word.get_or_insert_with(String::new).push(c),
        }
    }
    if quote.is_some() {
        return None;
    }
    words.extend(word);
    Some(words)
}

/// The commands of `line`, in order; `None` when one of them is more than words.
pub(crate) fn parts(line: &str) -> Option<Vec<Part>> {
    let mut parts = Vec::new();
    let mut start = 0;
    let mut quote: Option<char> = None;
    let bytes: Vec<(usize, char)> = line.char_indices().collect();
    let mut push = |text: &str, background: bool| -> Option<()> {
        let text = text.trim();
        if text.is_empty() {
            return Some(());
        }
        if let Some(echoed) = text.strip_prefix("echo ") {
            let echoed = echoed.trim();
            let (text, status) = match echoed.strip_suffix("$?") {
                Some(prefix) => (prefix, true),
                None => (echoed, false),
            };
            if text.contains(['$', '`', '\'', '"']) {
                return None;
            }
            parts.push(Part::Echo {
                text: text.to_owned(),
                status,
            });
        } else if text == "wait" || text.starts_with("wait ") {
            parts.push(Part::Wait);
        } else {
            let words = words(text)?;
            if words
                .first()
                .is_some_and(|w| matches!(w.as_str(), "for" | "while" | "if" | "do" | "done"))
            {
                return None;
            }
            parts.push(Part::Command { words, background });
        }
        Some(())
    };
    for &(at, c) in &bytes {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, ';' | '&') => {
                push(&line[start..at], c == '&')?;
                start = at + 1;
            }
            _ => {}
        }
    }
    push(&line[start..], false)?;
    Some(parts)
}

/// What each command of `parts` printed, cut from `reply` at the markers' lines (`None` for
/// an echo or a wait; a command that printed nothing says `""`): the text before a marker
/// is the first command's since the previous marker (a background command's, once `wait`
/// brought it back), its status the marker's `$?`; after the last marker, the line's
/// `status`. `None` when a marker's line is not in the reply.
pub(crate) fn said(
    parts: &[Part],
    reply: &str,
    status: i32,
    is_tool: impl Fn(&[String]) -> bool,
) -> Option<Vec<Option<Said>>> {
    let mut said: Vec<Option<Said>> = vec![None; parts.len()];
    for segment in segments(parts, reply)? {
        // The words go to the first phone tool among them (a `sleep` or an `rm` beside it
        // printed nothing), the status to every one.
        let speaker = segment
            .commands
            .iter()
            .copied()
            .find(|&i| matches!(&parts[i], Part::Command { words, .. } if is_tool(words)))
            .or_else(|| segment.commands.first().copied());
        let status = segment.status.unwrap_or(status);
        for &i in &segment.commands {
            let output = if Some(i) == speaker { segment.text } else { "" };
            said[i] = Some(Said {
                output: output.to_owned(),
                status,
            });
        }
    }
    Some(said)
}

/// A stretch of a reply between two markers' lines, and the commands that printed it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Segment<'r> {
    /// The commands (indexes into the parts) whose output it is, in order.
    pub(crate) commands: Vec<usize>,
    /// Their output.
    pub(crate) text: &'r str,
    /// The marker's line that ends it, its newline with it (empty after the last marker).
    pub(crate) marker: &'r str,
    /// The status the marker carries (`$?`; 0 for one without); `None` after the last
    /// marker, where the line's own status stands.
    pub(crate) status: Option<i32>,
}

/// `reply` cut at the markers' lines of `parts`: joined again, the segments' texts and
/// markers are the reply. A command sent to the background and never waited for printed
/// nothing of it: it ends in a last, empty segment with status 0. `None` when a marker's
/// line is not in the reply.
pub(crate) fn segments<'r>(parts: &[Part], reply: &'r str) -> Option<Vec<Segment<'r>>> {
    let mut segments = Vec::new();
    let mut pending: Vec<usize> = Vec::new();
    let mut background: Vec<usize> = Vec::new();
    let mut rest = reply;
    for (i, part) in parts.iter().enumerate() {
        match part {
            Part::Command {
                background: true, ..
            } => background.push(i),
            Part::Command { .. } => pending.push(i),
            Part::Wait => pending.append(&mut background),
            Part::Echo { text, status } => {
                let (at, marker_status, after) = find_marker(rest, text, *status)?;
                segments.push(Segment {
                    commands: std::mem::take(&mut pending),
                    text: &rest[..at],
                    marker: &rest[at..after],
                    status: Some(marker_status),
                });
                rest = &rest[after..];
            }
        }
    }
    segments.push(Segment {
        commands: pending,
        text: rest,
        marker: "",
        status: None,
    });
    if !background.is_empty() {
        segments.push(Segment {
            commands: background,
            text: "",
            marker: "",
            status: Some(0),
        });
    }
    Some(segments)
}

/// Where the line an `echo` printed starts in `text`, the status it carries (`$?`), and where
/// the text after it starts.
fn find_marker(text: &str, echoed: &str, with_status: bool) -> Option<(usize, i32, usize)> {
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let body = line.strip_suffix('\n').unwrap_or(line);
        if let Some(after) = body.strip_prefix(echoed) {
            let status = if with_status {
                after.trim().parse().ok()
            } else {
                after.is_empty().then_some(0)
            };
            if let Some(status) = status {
                return Some((at, status, at + line.len()));
            }
        }
        at += line.len();
    }
    None
}

#[cfg(test)]
mod tests;
