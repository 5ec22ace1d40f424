//! Tests of `crate::pack::selector`.

use super::*;

#[test]
fn parses_the_four_kinds_and_an_index() {
    let s = Selector::parse("id:note_item_0").unwrap();
    assert_eq!(
        (s.kind, s.value.as_str(), s.index),
        (SelectorKind::Id, "note_item_0", None)
    );
    let s = Selector::parse("type:Button[2]").unwrap();
    assert_eq!(
        (s.kind, s.value.as_str(), s.index),
        (SelectorKind::Type, "Button", Some(2))
    );
    let s = Selector::parse("text:Save [draft]").unwrap();
    assert_eq!(
        s.value, "Save [draft]",
        "a non-numeric bracket is part of the text"
    );
    assert_eq!(Selector::parse("key:a:b").unwrap().value, "a:b");
    for bad in ["", "id:", "name:x", "note_item_0", "type:[1]"] {
        assert!(Selector::parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn displays_as_written() {
    for text in ["id:a", "type:Button[2]", "text:Save"] {
        assert_eq!(Selector::parse(text).unwrap().to_string(), text);
    }
}
