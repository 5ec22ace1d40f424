//! The WindowManagerService window table (`hidumper -s WindowManagerService -a '-a'`,
//! research/hdc-hidumper.md §2.9), legacy and SceneBoard layouts.
//!
//! WMS pads each column with `setw` (name 21, DisplayId 10, Pid 8, WinId 6, the other numbers
//! 5, the rect's fields 5), so a value as wide as its column touches the next one:
//! `[ -13400    1344 2772 ]` is x −1340, y 0. A row is read by whitespace when that gives
//! every field, else by the header's column offsets. A row inside the table that neither
//! reading makes sense of is a warning with its line, never dropped silently, and the count
//! is checked against the table's own `total window num`.

use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

use super::{DumpError, re, require_block};

/// A row of the window table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Window {
    /// Window name (WMS truncates it to 20 characters).
    pub name: String,
    /// The display it is on.
    pub(crate) display: u64,
    /// Owning process.
    pub(crate) pid: u32,
    /// Window id.
    pub(crate) id: u64,
    /// Its type (`WindowType`: below 2000 an app's windows, from 2000 the system's).
    pub(crate) kind: u32,
    /// Its mode (`WindowMode`: 1 full screen, 100/101 split primary/secondary, 102 floating,
    /// 103 picture-in-picture).
    pub(crate) mode: u32,
    /// Z order (−1 for background windows).
    pub(crate) z_order: i64,
    /// `[x, y, w, h]` in render px.
    pub rect: [i64; 4],
    /// Above the dashes line that separates foreground from background windows.
    pub(crate) foreground: bool,
}

/// The first window type of the system's (`WindowType::SYSTEM_WINDOW_BASE`); below it, an
/// app's main and sub windows.
const SYSTEM_WINDOW_BASE: u32 = 2000;

impl Window {
    /// An app's window (main or sub), not the system's (status bar, keyboard, dialogs).
    pub(crate) fn is_apps(&self) -> bool {
        self.kind < SYSTEM_WINDOW_BASE
    }

    /// How it is shown, in words (`WindowMode`, window_manager `wm_common.h`).
    pub(crate) fn mode_words(&self) -> &'static str {
        match self.mode {
            1 => "full screen",
            100 => "split screen (primary)",
            101 => "split screen (secondary)",
            102 => "a floating window",
            103 => "picture-in-picture",
            _ => "an undefined mode",
        }
    }

    /// Whether it shares its display with other apps' windows by its mode.
    pub(crate) fn shares_display(&self) -> bool {
        self.mode != 1
    }
}

/// The window table and the focused window.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WindowTable {
    /// Every window row.
    pub windows: Vec<Window>,
    /// `Focus window: <id>`.
    pub focus: Option<u64>,
    /// Rows that could not be read, and a count that disagrees with the table's own total.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

static FOCUS: LazyLock<Regex> = LazyLock::new(|| re(r"(?m)^Focus window:\s*(\d+)"));
static TOTAL: LazyLock<Regex> = LazyLock::new(|| re(r"(?mi)^total window num:\s*(\d+)"));

/// The columns before the first `[`, as the header names them.
const COLUMNS: [&str; 9] = [
    "WindowName",
    "DisplayId",
    "Pid",
    "WinId",
    "Type",
    "Mode",
    "Flag",
    "ZOrd",
    "Orientation",
];

/// Where each field of a row starts, read from the header line.
struct Header {
    /// Char offsets of [`COLUMNS`].
    columns: Vec<usize>,
    /// Offsets of the rect's four fields from its `[`.
    rect: Vec<usize>,
}

impl Header {
    fn parse(line: &str) -> Option<Header> {
        let chars: Vec<char> = line.chars().collect();
        let open = chars.iter().position(|c| *c == '[')?;
        let left: String = chars[..open].iter().collect();
        let columns = label_offsets(&left);
        let names: Vec<&str> = left.split_whitespace().collect();
        if names != COLUMNS {
            return None;
        }
        let close = open + chars[open..].iter().position(|c| *c == ']')?;
        let inside: String = chars[open..close].iter().collect();
        let rect: Vec<usize> = label_offsets(&inside).into_iter().skip(1).collect();
        (rect.len() == 4).then_some(Header { columns, rect })
    }

    /// Reads a row: the name, the eight numbers after it and the rect.
    fn row(&self, line: &str) -> Option<([String; 9], [i64; 4])> {
        let chars: Vec<char> = line.chars().collect();
        let open = chars.iter().position(|c| *c == '[')?;
        let close = open + chars[open..].iter().position(|c| *c == ']')?;
        let numbers = chars.get(self.columns[1]..open)?;
        let name: String = chars[..self.columns[1]].iter().collect();
        let mut left = fields(numbers, &self.columns[1..], self.columns[1])?;
        left.insert(0, name.trim().to_owned());
        let left: [String; 9] = left.try_into().ok()?;
        if left[0].is_empty() || left[1..8].iter().any(|n| n.parse::<i64>().is_err()) {
            return None;
        }
        let rect = fields(&chars[open..close], &self.rect, 0)?;
        let rect: Vec<i64> = rect.iter().map(|v| v.parse().ok()).collect::<Option<_>>()?;
        Some((left, rect.try_into().ok()?))
    }
}

/// The char offset of each whitespace-separated label.
fn label_offsets(text: &str) -> Vec<usize> {
    let mut offsets = Vec::new();
    let mut previous = ' ';
    for (i, c) in text.chars().enumerate() {
        if !c.is_whitespace() && (previous.is_whitespace() || previous == '[') {
            offsets.push(i);
        }
        previous = c;
    }
    offsets
}

/// The fields of `chars` (which starts at char `base` of the row) at `starts`: split by
/// whitespace when that yields one per start, else sliced at the starts (values as wide as
/// their column touch the next one).
fn fields(chars: &[char], starts: &[usize], base: usize) -> Option<Vec<String>> {
    let text: String = chars.iter().filter(|c| **c != '[').collect();
    let split: Vec<String> = text.split_whitespace().map(str::to_owned).collect();
    if split.len() == starts.len() {
        return Some(split);
    }
    let sliced: Vec<String> = starts
        .iter()
        .enumerate()
        .map(|(i, start)| {
            let from = start.checked_sub(base)?;
            let to = starts.get(i + 1).map_or(chars.len(), |s| s - base);
            let field: String = chars.get(from..to.min(chars.len()))?.iter().collect();
            let field = field.trim().to_owned();
            (!field.is_empty()).then_some(field)
        })
        .collect::<Option<_>>()?;
    Some(sliced)
}

/// Parses `hidumper -s WindowManagerService -a '-a'`.
pub fn windows(dump: &str) -> Result<WindowTable, DumpError> {
    require_block(dump, "WindowManagerService")?;
    let mut table = WindowTable {
        windows: Vec::new(),
        focus: FOCUS.captures(dump).and_then(|c| c[1].parse().ok()),
        warnings: Vec::new(),
    };
    let mut header: Option<Header> = None;
    let mut foreground = true;
    for (number, line) in dump.lines().enumerate() {
        if line.starts_with("WindowName") {
            header = Header::parse(line);
            if header.is_none() {
                table.warnings.push(format!(
                    "line {}: a window table header of unknown columns: {}",
                    number + 1,
                    line.trim()
                ));
            }
            foreground = true;
            continue;
        }
        let Some(columns) = &header else {
            continue;
        };
        let trimmed = line.trim();
        if trimmed.starts_with("Focus window") {
            header = None;
            continue;
        }
        if trimmed.is_empty() || trimmed.contains("ScreenGroup") {
            continue;
        }
        if trimmed.starts_with("-----") {
            foreground = false;
            continue;
        }
        match columns.row(line) {
            Some((left, rect)) => table.windows.push(Window {
                name: left[0].clone(),
                display: left[1].parse().unwrap_or_default(),
                pid: left[2].parse().unwrap_or_default(),
                id: left[3].parse().unwrap_or_default(),
                kind: left[4].parse().unwrap_or_default(),
                mode: left[5].parse().unwrap_or_default(),
                z_order: left[7].parse().unwrap_or_default(),
                rect,
                foreground,
            }),
            None => table.warnings.push(format!(
                "line {}: a row of the window table that is not a window: {trimmed}",
                number + 1
            )),
        }
    }
    if let Some(total) = TOTAL
        .captures(dump)
        .and_then(|c| c[1].parse::<usize>().ok())
        && total != table.windows.len()
    {
        table.warnings.push(format!(
            "the table says {total} windows (`total window num`), {} were read",
            table.windows.len()
        ));
    }
    Ok(table)
}

#[cfg(test)]
mod tests;
