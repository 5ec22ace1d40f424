//! Tests of the code table: every line reads, each code once, in order.

use super::*;

#[test]
fn every_line_reads_and_each_code_is_listed_once_in_order() {
    let codes: Vec<&str> = CODES.iter().map(|c| c.code).collect();
    assert!(codes.len() > 100, "{}", codes.len());
    let mut sorted = codes.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(
        codes, sorted,
        "codes.txt is sorted and lists each code once"
    );
    assert_eq!(
        codes.len(),
        TABLE.lines().count(),
        "every line of codes.txt reads"
    );
    for code in CODES.iter() {
        assert!(code.code.starts_with("E_"), "{}", code.code);
        assert!(
            code.meaning.ends_with('.') && code.fix.ends_with('.'),
            "{code:?}"
        );
    }
}

#[test]
fn a_malformed_line_is_refused() {
    assert!(parse("E_X|sometimes|a|b").is_err());
    assert!(parse("E_X|invalid|only a meaning").is_err());
    assert_eq!(parse("E_X|report|m.|f.").unwrap().exit, Exit::Report);
}
