//! Byte-level scanning shared by the analysis and the metrics: what kind of slice a name
//! opens, substring search, marker finders built once, a number after a key. Leaf of the
//! hitrace module.

use std::sync::LazyLock;

use memchr::memmem::Finder;

/// Marker substrings searched in every slice name: built once, not per search.
macro_rules! needles {
    ($($name:ident = $text:literal;)*) => {
        $(pub(super) static $name: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
            std::sync::LazyLock::new(|| memchr::memmem::Finder::new($text));)*
    };
}
pub(super) use needles;

needles! {
    COMMIT_AND_RELEASE = b"CommitAndReleaseLayers";
}

/// Whether the marker occurs in `name`.
pub(super) fn has(name: &[u8], needle: &LazyLock<Finder<'static>>) -> bool {
    needle.find(name).is_some()
}

/// A render-service commit of layers (its `rate:` is the refresh rate in force).
pub(super) fn is_commit(name: &[u8]) -> bool {
    name.starts_with(b"CommitLayers") || has(name, &COMMIT_AND_RELEASE)
}

/// A marker name as text.
pub(super) fn text(name: &[u8]) -> String {
    String::from_utf8_lossy(name).into_owned()
}

/// Milliseconds (or any value) rounded to 3 decimals for reports.
pub(super) fn round3(value: f64) -> f64 {
    (value * 1000.0).round() / 1000.0
}

/// What kind of slice a `B` opened, decided once from its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SliceKind {
    /// `Waiting for Present Fence <n>`: its end is a frame on screen.
    PresentFence,
    /// `RSMainThread::ProcessCommandUni…`: the render service taking apps' transactions.
    ProcessCommands,
    /// Anything else.
    Other,
}

/// The kind of slice a `B` with this name opens.
pub(crate) fn classify(name: &[u8]) -> SliceKind {
    // `Waiting for Present Fence 695279` on one screen; `Waiting for PresentFence_0 350342`
    // where the render service names fences per screen.
    if name.starts_with(b"Waiting for Present Fence")
        || name.starts_with(b"Waiting for PresentFence")
    {
        SliceKind::PresentFence
    } else if name.starts_with(b"RSMainThread::ProcessCommandUni") {
        SliceKind::ProcessCommands
    } else {
        SliceKind::Other
    }
}

/// Whether `needle` occurs in `haystack`.
pub(crate) fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    find(haystack, needle).is_some()
}

/// Where `needle` first occurs in `haystack`.
pub(crate) fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(haystack, needle)
}

/// The unsigned integer right after `key` in `text` (`rate:60` → 60).
pub(crate) fn number_after(text: &[u8], key: &[u8]) -> Option<u64> {
    let at = find(text, key)? + key.len();
    let digits = &text[at..];
    let digits = &digits[digits.iter().take_while(|b| **b == b' ').count()..];
    let len = digits.iter().take_while(|b| b.is_ascii_digit()).count();
    std::str::from_utf8(&digits[..len]).ok()?.parse().ok()
}
