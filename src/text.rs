//! What a device or a file said, made fit to show. A device names itself, an hdc server
//! lists what it likes, and an imported report holds any text: shown in a table, a report or
//! on the terminal, it is one line (control characters written as escapes: `\n`, `\u{1b}`),
//! bounded (cut with `…`), and padded by its characters — never by a format width, which has a
//! ceiling of 65,535 and panics past it.

use std::borrow::Cow;

mod doc_path;
mod host;
pub(crate) use doc_path::doc_path;
pub(crate) use host::host_text;

/// The most characters of a table cell.
pub(crate) const CELL: usize = 64;

/// The most characters of a sentence a device or a file said (an error, a path).
pub(crate) const LINE: usize = 512;

/// The most characters of a command quoted to name what was being done (a playbook's shell
/// line runs to hundreds: its start says which it was).
pub(crate) const GLIMPSE: usize = 48;

/// `text` on one line of at most `max` characters: every control character escaped, cut
/// with `…` past the bound.
pub(crate) fn one_line(text: &str, max: usize) -> Cow<'_, str> {
    if !text.chars().any(char::is_control) && text.chars().nth(max).is_none() {
        return Cow::Borrowed(text);
    }
    // Escaped lazily: only as much of the text as is shown is ever looked at.
    let mut escaped = text.chars().flat_map(|c| {
        let piece: Vec<char> = if c.is_control() {
            c.escape_default().collect()
        } else {
            vec![c]
        };
        piece
    });
    let mut shown: String = escaped.by_ref().take(max).collect();
    if escaped.next().is_some() {
        shown.pop();
        shown.push('…');
    }
    Cow::Owned(shown)
}

/// `text` as one bounded line of Markdown that stays text: a table cell or a sentence whose
/// words came from a device, a capture's folder or a file. A `<` that could open a tag and an
/// `&` that could begin an entity are written as entities (a capture named `<img onerror=…>`
/// is shown, never rendered as HTML), `|` escaped (it would end a cell), control characters
/// as their escapes. A comparison's `<` or `>` between words stays as it reads.
pub(crate) fn markdown_cell(text: &str, max: usize) -> String {
    let line = one_line(text, max);
    let mut cell = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        let next = chars.peek().copied();
        match c {
            '<' if next.is_some_and(|n| n.is_ascii_alphabetic() || "/!?".contains(n)) => {
                cell.push_str("&lt;");
            }
            '&' if next.is_some_and(|n| n.is_ascii_alphanumeric() || n == '#') => {
                cell.push_str("&amp;");
            }
            '|' => cell.push_str("\\|"),
            _ => cell.push(c),
        }
    }
    cell
}

/// `text` with every control character but newline and tab escaped: a multi-line text (a
/// Markdown report, a terminal message) whose bytes never act as terminal or control codes.
pub(crate) fn without_controls(text: &str) -> Cow<'_, str> {
    let unsafe_char = |c: char| c.is_control() && c != '\n' && c != '\t';
    if !text.chars().any(unsafe_char) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.chars()
            .map(|c| {
                if unsafe_char(c) {
                    c.escape_default().to_string()
                } else {
                    c.to_string()
                }
            })
            .collect(),
    )
}

/// `text` left-aligned in `width` characters (never cut; a wider text overflows).
pub(crate) fn pad(text: &str, width: usize) -> String {
    let count = text.chars().count();
    let mut padded = String::with_capacity(text.len() + width.saturating_sub(count));
    padded.push_str(text);
    padded.extend(std::iter::repeat_n(' ', width.saturating_sub(count)));
    padded
}

/// Rows of cells as aligned columns two spaces apart, each cell one line of at most [`CELL`]
/// characters (the last, which nothing follows, of at most [`LINE`]); the trailing blanks of
/// each row trimmed.
pub(crate) fn columns<S: AsRef<str>>(rows: &[Vec<S>]) -> Vec<String> {
    let shown: Vec<Vec<Cow<'_, str>>> = rows
        .iter()
        .map(|row| {
            let last = row.len().saturating_sub(1);
            row.iter()
                .enumerate()
                .map(|(i, c)| one_line(c.as_ref(), if i == last { LINE } else { CELL }))
                .collect()
        })
        .collect();
    let widths: Vec<usize> = (0..shown.iter().map(Vec::len).max().unwrap_or(0))
        .map(|i| {
            shown
                .iter()
                .filter_map(|r| r.get(i))
                .map(|c| c.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    shown
        .iter()
        .map(|row| {
            row.iter()
                .zip(&widths)
                .map(|(cell, width)| pad(cell, *width))
                .collect::<Vec<_>>()
                .join("  ")
                .trim_end()
                .to_owned()
        })
        .collect()
}

/// `1 criterion`, `0 criteria`, `9 criteria`: a count with its noun in the right number.
pub(crate) fn counted(n: usize, one: &str, many: &str) -> String {
    match n {
        1 => format!("1 {one}"),
        n => format!("{n} {many}"),
    }
}

/// `text` with the host's path to `folder` (as given, and resolved) replaced by the folder's
/// own name: a message quoting a capture's path is published without the machine's layout.
pub(crate) fn unhosted(text: &str, folder: Option<&std::path::Path>) -> String {
    let Some(folder) = folder else {
        return text.to_owned();
    };
    let Some(name) = folder.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return text.to_owned();
    };
    let mut said = text.to_owned();
    let resolved = std::fs::canonicalize(folder).ok();
    for path in resolved
        .iter()
        .map(std::path::PathBuf::as_path)
        .chain([folder])
    {
        let shown = path.display().to_string();
        if shown.len() > name.len() {
            said = said.replace(&shown, &name);
        }
    }
    said
}

#[cfg(test)]
mod tests;
