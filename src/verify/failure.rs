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
mod tests {
    use super::*;

    #[test]
    fn the_same_failure_on_another_day_has_the_same_fingerprint() {
        let monday = "\x1b[31merror\x1b[0m at 2026-11-29T20:53:01.123Z in /tmp/build-8f3a/Index.ets: 0x7ffd1234abcd\nrun 3f2b7a10-1c2d-4e5f-8a9b-0c1d2e3f4a5b took 1.52s\n";
        let tuesday = "\x1b[31merror\x1b[0m at 2026-11-30T08:12:44.987Z in /tmp/build-11aa/Index.ets: 0x7ffe9999ffff\nrun 00000000-1111-2222-3333-444444444444 took 2.3 s\n";
        assert_eq!(fingerprint("1", monday), fingerprint("1", tuesday));
        assert_eq!(
            normalize(monday),
            "error at <time> in <tmp>: <addr>\nrun <uuid> took <duration>"
        );
        assert_ne!(
            fingerprint("1", monday),
            fingerprint("2", monday),
            "another exit status is another failure"
        );
        assert_ne!(
            fingerprint("1", "error in Index.ets:12"),
            fingerprint("1", "error in Index.ets:13"),
            "line numbers matter"
        );
    }
}
