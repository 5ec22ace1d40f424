//! The pack's semantic errors: each names its code, its criterion and the line at fault, and
//! says how to fix it; every criterion's error is reported, not only the first.

use super::*;

/// Each pack's first error: its code, criterion, line, a word of its message, and a fix.
fn first_errors_are(rows: Vec<(String, &str, Option<&str>, u32, &str)>) {
    for (text, code, criterion, line, contains) in rows {
        let d = first_error("pack.yaml", &text);
        assert_eq!(d.code, code, "{text}\n{d}");
        assert_eq!(d.criterion_id.as_deref(), criterion, "{d}");
        assert_eq!(d.location.as_ref().map(|l| l.line), Some(line), "{d}");
        assert!(d.message.contains(contains), "{d}");
        assert!(d.fix.is_some(), "{d}");
    }
}

#[test]
fn assertion_errors_name_the_criterion_and_its_line() {
    first_errors_are(vec![
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
    ]);
}

#[test]
fn semantic_errors_name_the_criterion_and_its_line() {
    first_errors_are(vec![
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
    ]);
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
