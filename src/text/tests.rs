//! Tests of `crate::text`.

#[test]
fn counts_say_their_noun_in_the_right_number() {
    assert_eq!(counted(0, "criterion", "criteria"), "0 criteria");
    assert_eq!(counted(1, "criterion", "criteria"), "1 criterion");
    assert_eq!(counted(9, "criterion", "criteria"), "9 criteria");
}

#[test]
fn a_folders_host_path_is_published_as_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let capture = dir.path().join("notes-fail");
    std::fs::create_dir(&capture).unwrap();
    let said = format!(
        "fake-hdc: {}/transcript.yaml (exchange 3): ended",
        capture.display()
    );
    assert_eq!(
        unhosted(&said, Some(&capture)),
        "fake-hdc: notes-fail/transcript.yaml (exchange 3): ended"
    );
    assert_eq!(unhosted(&said, None), said);
}

use super::*;

#[test]
fn what_a_device_said_is_one_bounded_line() {
    let rows: [(&str, usize, &str); 7] = [
        ("FMR0223C13000649", 64, "FMR0223C13000649"),
        ("EVIL\u{1b}]0;x\u{7}", 64, "EVIL\\u{1b}]0;x\\u{7}"),
        ("two\nlines", 64, "two\\nlines"),
        ("nul\0", 64, "nul\\u{0}"),
        ("abcdef", 4, "abc…"),
        ("abcd", 4, "abcd"),
        ("ab\ncd", 5, "ab\\n…"),
    ];
    for (text, max, shown) in rows {
        assert_eq!(one_line(text, max), shown, "{text:?}");
        assert!(one_line(text, max).chars().count() <= max);
    }
    let long = "A".repeat(70_000);
    assert_eq!(one_line(&long, CELL).chars().count(), CELL);
}

#[test]
fn a_markdown_cell_is_text_whatever_it_was_given() {
    let rows = [
        ("1200 ms > 800 ms", "1200 ms > 800 ms"),
        ("36 vp < 48 vp", "36 vp < 48 vp"),
        (
            "<img src=x onerror=alert(1)>",
            "&lt;img src=x onerror=alert(1)>",
        ),
        ("</details>", "&lt;/details>"),
        ("<!-- hidden", "&lt;!-- hidden"),
        ("&lt;b&gt;", "&amp;lt;b&amp;gt;"),
        ("&#60;b>", "&amp;#60;b>"),
        ("R&D & co", "R&amp;D & co"),
        ("a | b", "a \\| b"),
        ("two\nlines", "two\\nlines"),
    ];
    for (text, cell) in rows {
        assert_eq!(markdown_cell(text, LINE), cell, "{text:?}");
    }
}

#[test]
fn columns_are_padded_by_characters_whatever_their_length() {
    let long = "D".repeat(70_000);
    let lines = columns(&[vec!["serial", "model"], vec![long.as_str(), "ALN-AL00"]]);
    assert_eq!(lines[0].find("model"), Some(CELL + 2));
    assert!(lines[1].ends_with("…  ALN-AL00"), "{}", lines[1]);
    let last = columns(&[vec!["model", long.as_str()]]);
    assert_eq!(last[0].chars().count(), "model  ".len() + LINE);
    assert_eq!(pad("vp", 4), "vp  ");
    assert_eq!(without_controls("a\tb\n\u{1b}[2J"), "a\tb\n\\u{1b}[2J");
}
