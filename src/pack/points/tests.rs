//! Tests of `crate::pack::points`.

use super::*;

#[test]
fn names_and_patterns_are_told_apart() {
    let exact = TraceName::parse("H:feed loaded").unwrap();
    assert_eq!(exact.to_string(), "feed loaded");
    assert!(exact.matcher().matches(b"feed loaded"));
    assert!(!exact.matcher().matches(b"feed loaded twice"));
    let pattern = TraceName::parse("/^decode page \\d+$/").unwrap();
    assert!(pattern.matcher().matches(b"decode page 12"));
    assert!(!pattern.matcher().matches(b"decode page x"));
    assert!(TraceName::parse("/(/").is_err());
    assert!(TraceName::parse("  ").is_err());
    // A lone slash or `//` is a name, not an empty pattern.
    assert_eq!(TraceName::parse("//").unwrap().to_string(), "//");
    assert_eq!(
        section_value("arg:area"),
        Some(SectionValue::Arg("area".to_owned()))
    );
    assert_eq!(section_value("duration"), Some(SectionValue::Duration));
    assert_eq!(section_value("arg:"), None);
    assert_eq!(section_value("arg:a b"), None);
    assert_eq!(section_value("area"), None);
}
