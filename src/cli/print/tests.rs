//! Tests of `crate::cli::print`.

use super::*;

#[test]
fn verdict_words_are_coloured_only_where_colour_is_shown() {
    let line = Line::default()
        .plain("audit: ")
        .verdict("FAIL")
        .plain(" — \u{1b}[2Jdevice");
    let coloured = line.render(true);
    assert!(
        coloured.contains("\u{1b}[1m\u{1b}[31mFAIL\u{1b}[0m"),
        "{coloured:?}"
    );
    // A device's own escape is shown as text, coloured or not.
    assert!(!coloured.contains("\u{1b}[2J"), "{coloured:?}");
    assert_eq!(line.render(false), "audit: FAIL — \\u{1b}[2Jdevice");
    for (word, tone) in [
        ("pass", Some(Tone::Pass)),
        ("REGRESSED", Some(Tone::Fail)),
        ("inconclusive", Some(Tone::Warn)),
        ("unverified  ", None),
        ("measured", None),
    ] {
        assert_eq!(Tone::of(word), tone, "{word}");
    }
}
