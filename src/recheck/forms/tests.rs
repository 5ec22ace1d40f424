//! Tests of `crate::recheck::forms`.

use super::*;

#[test]
fn the_first_differing_line_is_named() {
    assert_eq!(first_difference("a\nb\n", "a\nb\n"), None);
    assert_eq!(
        first_difference("a\n**PASS**\n", "a\n**FAIL**\n"),
        Some((2, "**PASS**".to_owned(), "**FAIL**".to_owned()))
    );
    assert_eq!(
        first_difference("a", "a\nb"),
        Some((2, "(the end)".to_owned(), "b".to_owned()))
    );
    // A page whose history follows its body is checked up to the history.
    let page = "<main>PASS</main>";
    let expected = format!("{page}{}", crate::report::html::FOOT);
    let given = format!(
        "{page}<section><h2>History</h2><ul></ul></section>{}",
        crate::report::html::FOOT
    );
    let (said, made, note) = without_history(&given, &expected);
    assert_eq!((said, made), (page, page));
    assert!(note.is_some());
    let forged = format!("<main>FAIL</main>{}", crate::report::html::FOOT);
    let (said, made, note) = without_history(&forged, &expected);
    assert_eq!(
        (said, made.len(), note),
        (forged.as_str(), expected.len(), None)
    );
}
