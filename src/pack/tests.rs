//! Freeze diagnostics, table-driven: every bad pack gets its stable code, its location and
//! its criterion; good packs hash the same whatever their syntax or key order.

use std::fmt::Write;
use std::path::Path;

use super::*;
use crate::diagnostic::{Diagnostic, Severity};
use crate::hash::sha256_hex;

const HEADER: &str = "version: 1\napp:\n  bundle: com.example.notes\ncriteria:\n";

/// A criterion block appended to the header; the criterion starts on line 5.
fn with_criterion(body: &str) -> String {
    format!("{HEADER}{body}")
}

fn diagnostics_of(path: &str, text: &str) -> Vec<Diagnostic> {
    match parse_pack(Path::new(path), text.as_bytes()) {
        Err(diagnostic) => vec![diagnostic],
        Ok((doc, _)) => validate(doc, Path::new(path)).1,
    }
}

fn first_error(path: &str, text: &str) -> Diagnostic {
    let found = diagnostics_of(path, text);
    found
        .into_iter()
        .find(Diagnostic::is_error)
        .unwrap_or_else(|| panic!("no error for:\n{text}"))
}

fn position(d: &Diagnostic) -> Option<(u32, u32)> {
    d.location.as_ref().map(|l| (l.line, l.column))
}

const GOOD: &str = "  - id: P-01\n    dimension: performance\n    statement: Cold start ≤ 800ms\n    weight: must\n";

fn criterion_with_assertion(assertion: &str) -> String {
    with_criterion(&format!("{GOOD}    assertion: {assertion}\n"))
}

#[test]
fn schema_errors_name_code_key_path_and_position() {
    // (pack text, code, (line, column), text the message must contain)
    type Row = (String, &'static str, Option<(u32, u32)>, &'static str);
    let rows: Vec<Row> = vec![
        (
            criterion_with_assertion("{ matchr: lte, expected: 800 }"),
            "E_PACK_UNKNOWN_KEY",
            Some((9, 18)),
            "`criteria[0].assertion.matchr`",
        ),
        (
            with_criterion(
                "  - id: P-01\n    dimension: performance\n    statment: x\n    weight: must\n",
            ),
            "E_PACK_UNKNOWN_KEY",
            Some((7, 5)),
            "criteria[0].statment",
        ),
        (
            with_criterion("  - id: P-01\n    dimension: performance\n    weight: must\n"),
            "E_PACK_MISSING_FIELD",
            None,
            "statement",
        ),
        (
            "version: 1\napp: {bundle: com.x.y}\ncriteria: {}\n".to_owned(),
            "E_PACK_SCHEMA",
            Some((3, 11)),
            "criteria",
        ),
        (
            criterion_with_assertion("{ matcher: lte, expected: .nan }"),
            "E_PACK_SCHEMA",
            Some((9, 42)),
            "",
        ),
        (
            criterion_with_assertion("{ matcher: lte, expected: .inf }"),
            "E_PACK_SCHEMA",
            Some((9, 42)),
            "",
        ),
        (
            criterion_with_assertion("{ matcher: lte, expected: 1e400 }"),
            "E_PACK_SCHEMA",
            Some((9, 42)),
            "",
        ),
        (
            "version: 1\nversion: 2\n".to_owned(),
            "E_PACK_DUPLICATE_KEY",
            Some((2, 1)),
            "",
        ),
        (
            "version: 1\napp: { bundle: \"unterminated\n".to_owned(),
            "E_PACK_PARSE",
            None,
            "",
        ),
    ];
    for (text, code, at, contains) in rows {
        let d = first_error("pack.yaml", &text);
        assert_eq!(d.code, code, "{text}\n{d}");
        if at.is_some() {
            assert_eq!(position(&d), at, "{text}\n{d}");
        }
        assert!(d.message.contains(contains), "{d}");
        assert!(d.fix.is_some(), "every diagnostic has a fix: {d}");
        if contains.contains("criteria[0]") {
            assert_eq!(d.criterion_id.as_deref(), Some("P-01"), "{d}");
        }
    }
}

#[test]
fn bad_files_get_codes_not_panics() {
    let rows: Vec<(&[u8], &str)> = vec![
        (b"", "E_PACK_EMPTY"),
        (b"  \n\t\n", "E_PACK_EMPTY"),
        (b"version: 1\nname: caf\xe9\n", "E_PACK_NOT_UTF8"),
        (b"\x00\x01\x02binary", "E_PACK_PARSE"),
        (b"just a sentence", "E_PACK_SCHEMA"),
        (b"[1, 2, 3]", "E_PACK_SCHEMA"),
    ];
    for (bytes, code) in rows {
        let d = parse_pack(Path::new("pack.yaml"), bytes).unwrap_err();
        assert_eq!(d.code, code, "{bytes:?}: {d}");
    }
    let d = parse_pack(Path::new("pack.yaml"), b"version: 1\nname: caf\xe9\n").unwrap_err();
    assert_eq!(position(&d), Some((2, 10)), "{d}");
}

#[test]
fn alias_bombs_and_deep_nesting_are_refused_quickly() {
    let mut bomb = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
    for (name, prev) in ["b", "c", "d", "e", "f", "g", "h", "i"]
        .iter()
        .zip(["a", "b", "c", "d", "e", "f", "g", "h"])
    {
        let _ = writeln!(
            bomb,
            "{name}: &{name} [{}]",
            vec![format!("*{prev}"); 10].join(", ")
        );
    }
    // The deserializer streams: it refuses at the first value the schema does not expect, so
    // the billion laughs are never expanded (saphyr's alias budget is the second line).
    let bomb = format!("version: 1\napp:\n  bundle: com.x.y\ncriteria: []\n{bomb}");
    let started = std::time::Instant::now();
    let d = parse_pack(Path::new("bomb.yaml"), bomb.as_bytes()).unwrap_err();
    assert!(d.is_error(), "{d}");
    let deep = format!(
        "version: 1\napp: {}{}\n",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let d = parse_pack(Path::new("deep.yaml"), deep.as_bytes()).unwrap_err();
    assert!(d.is_error(), "{d}");
    let deep_json = format!(
        "{{\"version\": 1, \"app\": {}{}}}",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let d = parse_pack(Path::new("deep.json"), deep_json.as_bytes()).unwrap_err();
    assert!(d.is_error(), "{d}");
    // Not a timing assertion: a generous bound that only an exponential expansion would break.
    assert!(started.elapsed().as_secs() < 30);
}

#[test]
fn an_oversized_pack_is_refused_before_parsing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.yaml");
    let line = "# padding padding padding padding padding padding padding padding padding\n";
    let text = line.repeat(50 * 1024 * 1024 / line.len() + 1);
    std::fs::write(&path, text).unwrap();
    let d = load_pack(&path).unwrap_err();
    assert_eq!(d.code, "E_PACK_TOO_LARGE", "{d}");
}

#[test]
fn json_packs_report_key_paths_too() {
    let json = r#"{"version": 1, "app": {"bundle": "com.x.y"}, "criteria": [
        {"id": "P-01", "dimension": "performance", "statement": "fast", "weight": "must",
         "assertion": {"matcher": "lte", "expected": 800, "unti": "ms"}}]}"#;
    let d = first_error("pack.json", json);
    assert_eq!(d.code, "E_PACK_UNKNOWN_KEY");
    assert!(d.message.contains("criteria[0].assertion.unti"), "{d}");
    assert_eq!(position(&d).map(|p| p.0), Some(3));
    let d = first_error(
        "pack.json",
        r#"{"version": 1, "app": {"bundle": "com.x.y"}, "criteria": []} trailing"#,
    );
    assert_eq!(d.code, "E_PACK_PARSE", "{d}");
    let d = first_error(
        "pack.json",
        r#"{"version": 1, "app": {"bundle": "com.x.y"}, "criteria": [{"id": "X", "dimension": "function", "statement": "s", "weight": "must", "assertion": {"matcher": "lte", "expected": 1e400}}]}"#,
    );
    assert!(d.is_error(), "{d}");
}

fn hash_of(path: &str, text: &str) -> String {
    let (doc, _) = parse_pack(Path::new(path), text.as_bytes()).unwrap();
    let (pack, diagnostics) = validate(doc, Path::new(path));
    freeze(pack.unwrap(), diagnostics).lock.sha256
}

#[test]
fn the_hash_is_over_canonical_json_whatever_the_syntax_or_key_order() {
    let yaml = "version: 1\napp:\n  bundle: com.x.y\ncriteria:\n  - id: P-01\n    dimension: performance\n    statement: fast\n    weight: should\n    assertion: { matcher: range, min: 11.5, max: 12.5, unit: vp }\n";
    let reordered = "criteria:\n  - weight: should\n    assertion: { unit: vp, max: 12.5, min: 11.5, matcher: range }\n    statement: fast\n    dimension: performance\n    id: P-01\napp: { bundle: com.x.y }\nversion: 1\n";
    let json = r#"{"version":1,"app":{"bundle":"com.x.y"},"criteria":[{"id":"P-01","dimension":"performance","statement":"fast","weight":"should","assertion":{"matcher":"range","min":11.5,"max":12.5,"unit":"vp"}}]}"#;
    let h = hash_of("a.yaml", yaml);
    assert_eq!(h, hash_of("b.yaml", reordered));
    assert_eq!(h, hash_of("c.json", json));
    assert_eq!(h.len(), 64);
    assert_ne!(h, hash_of("d.yaml", &yaml.replace("12.5", "12.6")));
    let frozen = {
        let (doc, _) = parse_pack(Path::new("a.yaml"), yaml.as_bytes()).unwrap();
        freeze(validate(doc, Path::new("a.yaml")).0.unwrap(), vec![])
    };
    assert_eq!(
        sha256_hex(canonical_json(&frozen.lock.pack).as_bytes()),
        frozen.lock.sha256
    );
    assert!(canonical_json(&frozen.lock.pack).starts_with(r#"{"app":{"bundle":"com.x.y"},"criteria":[{"assertion":{"matcher":"range","max":12.5,"min":11.5,"unit":"vp"}"#));
}

#[test]
fn the_example_pack_freezes_cleanly() {
    let found = diagnostics_of("pack.yaml", crate::template::INIT_PACK);
    assert!(found.is_empty(), "{found:?}");
    let (doc, _) = parse_pack(
        Path::new("pack.yaml"),
        crate::template::INIT_PACK.as_bytes(),
    )
    .unwrap();
    let pack = validate(doc, Path::new("pack.yaml")).0.unwrap();
    let dimensions: std::collections::BTreeSet<&str> =
        pack.criteria.iter().map(|c| c.dimension.as_str()).collect();
    assert_eq!(dimensions.len(), 4, "all four dimensions");
}

mod semantic;
