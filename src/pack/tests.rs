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
fn semantic_errors_name_the_criterion_and_its_line() {
    let rows: Vec<(String, &str, Option<&str>, u32, &str)> = vec![
        (
            criterion_with_assertion("{ matcher: below, expected: 800 }"),
            "E_CRITERION_ASSERTION_INVALID",
            Some("P-01"),
            9,
            "unknown matcher `below`",
        ),
        (
            criterion_with_assertion("{ matcher: range, unit: vp }"),
            "E_CRITERION_ASSERTION_INVALID",
            Some("P-01"),
            9,
            "no bounds",
        ),
        (
            criterion_with_assertion("{ matcher: range, min: 13, max: 11 }"),
            "E_CRITERION_ASSERTION_INVALID",
            Some("P-01"),
            9,
            "min 13 greater than max 11",
        ),
        (
            criterion_with_assertion(
                "{ matcher: lte, expected: 60, unit: fps, probe: { id: perf.cold-start } }",
            ),
            "E_CRITERION_ASSERTION_INVALID",
            Some("P-01"),
            9,
            "`perf.cold-start` measures in ms, the assertion is in fps",
        ),
        (
            criterion_with_assertion("{ matcher: gte, expected: 1, probe: { id: test.hypium } }"),
            "E_CRITERION_ASSERTION_INVALID",
            Some("P-01"),
            9,
            "`test.hypium` produces pass/fail, not a number",
        ),
        (
            criterion_with_assertion("{ matcher: regex, expected: '(unclosed' }"),
            "E_CRITERION_ASSERTION_INVALID",
            Some("P-01"),
            9,
            "bad regex",
        ),
        (
            criterion_with_assertion("{ matcher: regex, expected: '\\w{1000}\\w{1000}\\w{1000}' }"),
            "E_CRITERION_ASSERTION_INVALID",
            Some("P-01"),
            9,
            "size limit",
        ),
        (
            criterion_with_assertion("{ matcher: lte, expected: fast }"),
            "E_CRITERION_ASSERTION_INVALID",
            Some("P-01"),
            9,
            "takes a number",
        ),
        (
            criterion_with_assertion("{ matcher: oneOf, expected: [] }"),
            "E_CRITERION_ASSERTION_INVALID",
            Some("P-01"),
            9,
            "non-empty list",
        ),
        (
            criterion_with_assertion("{ matcher: lte, expected: 800, unit: msec }"),
            "E_CRITERION_ASSERTION_INVALID",
            Some("P-01"),
            9,
            "unknown unit `msec`",
        ),
        (
            criterion_with_assertion("{ matcher: contains, expected: ok, unit: ms }"),
            "E_CRITERION_ASSERTION_INVALID",
            Some("P-01"),
            9,
            "`unit` applies to numbers",
        ),
        (
            criterion_with_assertion(
                "{ matcher: lte, expected: 800, probe: { id: perf.coldstart } }",
            ),
            "E_CRITERION_ASSERTION_INVALID",
            Some("P-01"),
            9,
            "unknown probe `perf.coldstart`",
        ),
        (
            criterion_with_assertion(
                "{ matcher: lte, expected: 8, probe: { id: layout.gap, from: 'id:a' } }",
            ),
            "E_CRITERION_ASSERTION_INVALID",
            Some("P-01"),
            9,
            "needs `to`",
        ),
        (
            criterion_with_assertion("{ matcher: present, expected: x }"),
            "E_CRITERION_ASSERTION_INVALID",
            Some("P-01"),
            9,
            "takes no `expected`",
        ),
        (
            with_criterion(&format!(
                "{GOOD}{}",
                GOOD.replace("Cold start", "Warm start")
            )),
            "E_PACK_DUPLICATE_ID",
            Some("P-01"),
            9,
            "first at line 5",
        ),
        (
            with_criterion(&GOOD.replace("performance", "speed")),
            "E_PACK_UNKNOWN_DIMENSION",
            Some("P-01"),
            6,
            "speed",
        ),
        (
            with_criterion(&GOOD.replace("weight: must", "weight: could")),
            "E_PACK_UNKNOWN_WEIGHT",
            Some("P-01"),
            8,
            "could",
        ),
        (
            with_criterion(&GOOD.replace("id: P-01", "id: 'P 01; rm'")),
            "E_PACK_BAD_ID",
            Some("P 01; rm"),
            5,
            "not a plain identifier",
        ),
        (
            format!(
                "{}{GOOD}",
                HEADER.replace("com.example.notes", "'com.x; rm -rf /'")
            ),
            "E_PACK_BAD_BUNDLE",
            None,
            3,
            "reverse-domain",
        ),
        (
            format!(
                "{}{GOOD}",
                HEADER.replace("notes\n", "notes\n  ability: 'Entry Ability'\n")
            ),
            "E_PACK_BAD_IDENTIFIER",
            None,
            4,
            "ability",
        ),
        (
            format!("{}{GOOD}", HEADER.replace("version: 1", "version: 2")),
            "E_PACK_UNSUPPORTED_VERSION",
            None,
            1,
            "version 2",
        ),
    ];
    for (text, code, criterion, line, contains) in rows {
        let d = first_error("pack.yaml", &text);
        assert_eq!(d.code, code, "{text}\n{d}");
        assert_eq!(d.criterion_id.as_deref(), criterion, "{d}");
        assert_eq!(d.location.as_ref().map(|l| l.line), Some(line), "{d}");
        assert!(d.message.contains(contains), "{d}");
        assert!(d.fix.is_some(), "{d}");
    }
}

/// An assertion written as a block: each error at the line of the key at fault, not at the
/// `assertion:` that holds it (line 9).
#[test]
fn assertion_errors_point_at_the_key_at_fault() {
    let block = |keys: &str| with_criterion(&format!("{GOOD}    assertion:\n{keys}"));
    let rows: Vec<(String, u32, &str)> = vec![
        (
            block("      matcher: lte\n      expected: 800\n      unit: msec\n"),
            12,
            "unknown unit `msec`",
        ),
        (
            block("      expected: 800\n      unit: ms\n      matcher: below\n"),
            12,
            "unknown matcher `below`",
        ),
        (
            block("      matcher: lte\n      unit: ms\n      expected: fast\n"),
            12,
            "takes a number",
        ),
        (
            block("      matcher: range\n      unit: vp\n      min: 13\n      max: 11\n"),
            12,
            "min 13 greater than max 11",
        ),
        (
            block("      matcher: contains\n      expected: ok\n      unit: ms\n"),
            12,
            "`unit` applies to numbers",
        ),
        (
            block("      matcher: lte\n      expected: 800\n      probe: { id: perf.coldstart }\n"),
            12,
            "unknown probe",
        ),
        (
            block(
                "      matcher: lte\n      expected: 60\n      unit: fps\n      probe: { id: perf.cold-start }\n",
            ),
            12,
            "measures in ms",
        ),
    ];
    for (text, line, contains) in rows {
        let d = first_error("pack.yaml", &text);
        assert_eq!(d.code, "E_CRITERION_ASSERTION_INVALID", "{text}\n{d}");
        assert!(d.message.contains(contains), "{d}");
        assert_eq!(
            d.location.as_ref().map(|l| l.line),
            Some(line),
            "{text}\n{d}"
        );
    }
}

#[test]
fn every_criterion_error_is_reported_not_just_the_first() {
    let text = with_criterion(&format!(
        "{}{}",
        GOOD.replace("weight: must", "weight: could"),
        GOOD.replace("P-01", "P-02").replace("performance", "speed")
    ));
    let codes: Vec<String> = diagnostics_of("pack.yaml", &text)
        .into_iter()
        .map(|d| d.code)
        .collect();
    assert_eq!(
        codes,
        [
            "E_PACK_UNKNOWN_WEIGHT",
            "E_PACK_UNKNOWN_DIMENSION",
            "W_CRITERION_NO_ASSERTION"
        ]
    );
}

#[test]
fn a_must_statement_with_numbers_and_no_assertion_warns() {
    let found = diagnostics_of("pack.yaml", &with_criterion(GOOD));
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].code, "W_CRITERION_NO_ASSERTION");
    assert_eq!(found[0].severity, Severity::Warning);
    assert_eq!(position(&found[0]), Some((7, 16)));
    // Without numbers, or as a `should`, there is nothing two auditors could dispute.
    let wordy = GOOD.replace("Cold start ≤ 800ms", "Cold start feels quick");
    assert!(diagnostics_of("pack.yaml", &with_criterion(&wordy)).is_empty());
    let should = GOOD.replace("weight: must", "weight: should");
    assert!(diagnostics_of("pack.yaml", &with_criterion(&should)).is_empty());
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
