//! The rooms: ARCHITECTURE.md says files of a few hundred lines, at most 10 of them over 400,
//! and no function over 120 lines. Held here over every `.rs` file under `src/` (unit tests
//! included), functions found by matching braces once comments, strings and characters are
//! blanked out — the way `house-tools/measure.py` counts them.

use std::fs;
use std::path::PathBuf;

use regex::Regex;

/// The most files over [`BIG_FILE`] lines ARCHITECTURE.md allows.
const BIG_FILES: usize = 10;
/// A file over this many lines is a big one.
const BIG_FILE: usize = 400;
/// The longest function ARCHITECTURE.md allows.
const LONGEST_FN: usize = 120;

/// Every `.rs` file under `src/`, with its text.
fn sources() -> Vec<(PathBuf, String)> {
    let repo = crate::support::repo();
    walkdir::WalkDir::new(repo.join("src"))
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| e.path().extension().is_some_and(|x| x == "rs"))
        .map(|e| {
            let text = fs::read_to_string(e.path()).unwrap();
            let rel = e.path().strip_prefix(&repo).unwrap().to_owned();
            (rel, text)
        })
        .collect()
}

/// `text` with comments, string and character literals blanked (newlines kept), so that the
/// braces left are the code's.
fn blanked(text: &str) -> String {
    let raw = Regex::new(r##"^b?r(#*)""##).unwrap();
    let ch = Regex::new(r"^'(\\.|\\u\{[0-9a-fA-F]+\}|\\x..|[^\\'])'").unwrap();
    let blank = |s: &str| {
        s.chars()
            .map(|c| if c == '\n' { '\n' } else { ' ' })
            .collect::<String>()
    };
    let (mut out, mut i) = (String::with_capacity(text.len()), 0);
    let bytes = text.as_bytes();
    while i < text.len() {
        let rest = &text[i..];
        let after_word = i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        let end = if rest.starts_with("//") {
            i + rest.find('\n').unwrap_or(rest.len())
        } else if rest.starts_with("/*") {
            let (mut depth, mut j) = (0, i);
            while j < text.len() {
                if text[j..].starts_with("/*") {
                    depth += 1;
                    j += 2;
                } else if text[j..].starts_with("*/") {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += text[j..].chars().next().map_or(1, char::len_utf8);
                }
            }
            j
        } else if let Some(open) = raw.captures(rest).filter(|_| !after_word) {
            let close = format!("\"{}", &open[1]);
            let from = i + open[0].len();
            text[from..]
                .find(&close)
                .map_or(text.len(), |at| from + at + close.len())
        } else if rest.starts_with('"') {
            let mut j = i + 1;
            while j < text.len() && bytes[j] != b'"' {
                j += if bytes[j] == b'\\' { 2 } else { 1 };
            }
            (j + 1).min(text.len())
        } else if let Some(found) = ch.find(rest) {
            i + found.end()
        } else {
            let next = i + rest.chars().next().map_or(1, char::len_utf8);
            out.push_str(&text[i..next]);
            i = next;
            continue;
        };
        let end = (i..=end)
            .rev()
            .find(|e| text.is_char_boundary(*e))
            .unwrap_or(end);
        out.push_str(&blank(&text[i..end]));
        i = end;
    }
    out
}

/// Every function of `text` longer than `limit` lines: `(name, first line, lines)`.
fn long_functions(text: &str, limit: usize) -> Vec<(String, usize, usize)> {
    let header = Regex::new(
        r#"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?(?:extern\s+"[^"]*"\s+)?fn\s+(\w+)"#,
    )
    .unwrap();
    let code = blanked(text);
    let lines: Vec<&str> = code.lines().collect();
    let mut long = Vec::new();
    for (start, line) in lines.iter().enumerate() {
        let Some(name) = header.captures(line) else {
            continue;
        };
        let (mut depth, mut opened) = (0i32, false);
        'body: for (at, line) in lines.iter().enumerate().skip(start) {
            for c in line.chars() {
                match c {
                    '{' => {
                        depth += 1;
                        opened = true;
                    }
                    '}' => depth -= 1,
                    // A declaration without a body (a trait's).
                    ';' if !opened && depth == 0 => break 'body,
                    _ => {}
                }
            }
            if opened && depth == 0 {
                let length = at - start + 1;
                if length > limit {
                    long.push((name[1].to_owned(), start + 1, length));
                }
                break;
            }
        }
    }
    long
}

#[test]
fn few_files_are_over_400_lines_and_no_function_is_over_120() {
    let sources = sources();
    let mut big: Vec<(usize, String)> = sources
        .iter()
        .map(|(path, text)| (text.lines().count(), path.display().to_string()))
        .filter(|(lines, _)| *lines > BIG_FILE)
        .collect();
    big.sort_unstable_by(|a, b| b.cmp(a));
    assert!(
        big.len() <= BIG_FILES,
        "{} files are over {BIG_FILE} lines (at most {BIG_FILES}): split along a responsibility, \
         never into part-one/part-two files:\n{big:#?}",
        big.len()
    );
    let long: Vec<String> = sources
        .iter()
        .flat_map(|(path, text)| {
            long_functions(text, LONGEST_FN)
                .into_iter()
                .map(move |(name, line, n)| format!("{}:{line} {name} ({n} lines)", path.display()))
        })
        .collect();
    assert!(
        long.is_empty(),
        "functions over {LONGEST_FN} lines:\n{}",
        long.join("\n")
    );
}

#[test]
fn the_counter_sees_past_strings_comments_and_declarations() {
    let text = "fn a() {\n    let s = \"}}}\";\n    // }\n    let c = '}';\n    let r = r#\"{\"#;\n}\ntrait T {\n    fn b(&self);\n}\nfn long() {\n\n\n\n}\n";
    // `a` ends at its own brace (line 6), whatever its strings, comment and characters hold.
    assert_eq!(
        long_functions(text, 4),
        [("a".to_owned(), 1, 6), ("long".to_owned(), 10, 5)]
    );
    assert_eq!(long_functions(text, 5), [("a".to_owned(), 1, 6)]);
    assert_eq!(long_functions(text, 6), []);
    let block = "fn c() {\n    /* { /* } */ */\n}\n";
    assert_eq!(long_functions(block, 2), [("c".to_owned(), 1, 3)]);
}
