//! Tests of `crate::report::summary`.

use super::*;

#[test]
fn a_summary_never_outgrows_a_comment() {
    let mut out = String::new();
    bounded(
        &mut out,
        (0..10_000).map(|i| format!("| row {i} | {} |\n", "x".repeat(40))),
        "rows",
    );
    assert!(out.len() < MAX_CHARS, "{}", out.len());
    assert!(out.contains("more rows left out"), "the cut is said");
    assert_eq!(cell("a|b`c\nd"), "a\\|b'c d");
}
