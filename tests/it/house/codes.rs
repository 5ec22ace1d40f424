//! The error codes' one table (`src/exit_code/codes.txt`, as `dwpipe explain` prints it):
//! every `E_*` code the library and the binary use is listed, every listed code is used, and
//! `docs/errors.md` is the page the table makes.

use std::collections::BTreeSet;
use std::fs;

use regex::Regex;

use crate::support::{Test, repo};

/// The codes `dwpipe explain` lists (its first column).
fn listed() -> BTreeSet<String> {
    let out = Test::new(&repo()).args(["explain"]).run().stdout;
    out.lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_owned)
        .collect()
}

/// Every `E_*` code named in `src/` outside unit tests and the fake phone.
fn used() -> BTreeSet<String> {
    let code = Regex::new(r"\bE_[A-Z][A-Z0-9_]+\b").unwrap();
    let src = repo().join("src");
    let mut used = BTreeSet::new();
    for entry in walkdir::WalkDir::new(&src) {
        let entry = entry.unwrap();
        let rel = entry.path().strip_prefix(&src).unwrap();
        let skip = entry.path().extension().is_none_or(|e| e != "rs")
            || rel.starts_with("bin/fake-hdc")
            || rel.iter().any(|p| p == "tests" || p == "tests.rs");
        if skip {
            continue;
        }
        let text = fs::read_to_string(entry.path()).unwrap();
        used.extend(code.find_iter(&text).map(|m| m.as_str().to_owned()));
    }
    used
}

#[test]
fn every_code_used_is_listed_and_every_listed_code_is_used() {
    let listed = listed();
    let used = used();
    let unlisted: Vec<_> = used.difference(&listed).collect();
    let unused: Vec<_> = listed.difference(&used).collect();
    assert!(
        unlisted.is_empty(),
        "codes used and not in src/exit_code/codes.txt (add a line: CODE|exit|meaning|fix): {unlisted:?}"
    );
    assert!(
        unused.is_empty(),
        "codes listed in src/exit_code/codes.txt and never used: {unused:?}"
    );
    assert!(listed.len() > 150, "{}", listed.len());
}

#[test]
fn docs_errors_md_is_the_page_the_table_makes() {
    let made = Test::new(&repo())
        .args(["explain", "--markdown"])
        .run()
        .stdout;
    let kept = fs::read_to_string(repo().join("docs/errors.md")).unwrap();
    assert!(
        made == kept,
        "docs/errors.md is not what the table makes: run `dwpipe explain --markdown > docs/errors.md`"
    );
}

#[test]
fn explain_says_what_a_code_means_its_exit_and_its_fix() {
    let out = Test::new(&repo())
        .args(["explain", "capture_tampered"])
        .run()
        .stdout;
    assert!(out.starts_with("E_CAPTURE_TAMPERED\n"), "{out}");
    assert!(out.contains("exit: 2 (invalid input)"), "{out}");
    assert!(
        out.contains("fix:  Use the capture as it was recorded."),
        "{out}"
    );
    Test::new(&repo())
        .args(["explain", "E_TAMPERED"])
        .status(2)
        .stderr_contains("did you mean E_CAPTURE_TAMPERED")
        .run();
}
