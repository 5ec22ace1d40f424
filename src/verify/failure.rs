//! Failure fingerprints: "the same failure again" recognized across rounds. The failing
//! output is normalized (ANSI codes, timestamps, UUIDs, temporary paths, hex addresses and
//! durations replaced by placeholders) before it is hashed with the exit code.

use std::sync::LazyLock;

use regex::Regex;

use crate::hash::sha256_hex;

/// How much of the output's end counts (failures print their cause last).
const TAIL_CHARS: usize = 4000;

static RULES: LazyLock<Vec<(Regex, &'static str)>> = LazyLock::new(|| {
    [
        (r"\x1b\[[0-9;?]*[ -/]*[@-~]", ""),
        (
            r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?",
            "<time>",
        ),
        (r"\b\d{2}:\d{2}:\d{2}(?:[.,]\d+)?\b", "<time>"),
        (
            r"(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b",
            "<uuid>",
        ),
        (r"(?:/tmp|/var/folders|/private/var)/[^\s:'\x22]*", "<tmp>"),
        (r"(?i)\b0x[0-9a-f]{4,}\b", "<addr>"),
        (
            r"(?i)\b\d+(?:\.\d+)?\s?(?:ns|us|µs|ms|s|sec|seconds|m|min)\b",
            "<duration>",
        ),
        (r"[ \t]+", " "),
    ]
    .into_iter()
    .map(|(pattern, with)| (Regex::new(pattern).expect("static regex"), with))
    .collect()
});

/// The output with everything that changes between identical failures replaced.
pub(crate) fn normalize(output: &str) -> String {
    let count = output.chars().count();
    let tail: String = output
        .chars()
        .skip(count.saturating_sub(TAIL_CHARS))
        .collect();
    RULES
        .iter()
        .fold(tail, |text, (pattern, with)| {
            pattern.replace_all(&text, *with).into_owned()
        })
        .trim()
        .to_owned()
}

/// SHA-256 of the exit status and the normalized output.
pub(crate) fn fingerprint(exit: &str, output: &str) -> String {
    sha256_hex(format!("{exit}\n{}", normalize(output)).as_bytes())
}

#[cfg(test)]
mod tests;
