//! Table tests: every row of the matcher table, the unit cases, numbers against strings.

use regex::Regex;

use super::super::limits::Limits;
use super::super::*;

fn d(text: &str) -> Decimal {
    Decimal::parse(text).unwrap()
}

fn assertion(expectation: Expectation, unit: Option<&str>) -> Assertion {
    Assertion {
        expectation,
        unit: unit.map(|u| Unit::parse_known(u).unwrap()),
    }
}

fn num(text: &str) -> Scalar {
    Scalar::Number(d(text))
}

fn text(t: &str) -> Scalar {
    Scalar::Text(t.to_owned())
}

/// (assertion, actual, expected outcome)
fn judge(a: &Assertion, actual: &str) -> Result<bool, &'static str> {
    a.evaluate(actual, UnitContext::default())
        .map(|e| e.passed)
        .map_err(|e| e.code())
}

#[test]
fn every_matcher_row() {
    let lte_800ms = assertion(Expectation::Lte(d("800")), Some("ms"));
    let gte_48vp = assertion(Expectation::Gte(d("48")), Some("vp"));
    let range_12 = assertion(
        Expectation::Range {
            min: Some(d("11.5")),
            max: Some(d("12.5")),
        },
        Some("vp"),
    );
    let range_min_only = assertion(
        Expectation::Range {
            min: Some(d("4.5")),
            max: None,
        },
        Some("ratio"),
    );
    let range_max_only = assertion(
        Expectation::Range {
            min: None,
            max: Some(d("5")),
        },
        Some("ms/s"),
    );
    let equals_num = assertion(Expectation::Equals(num("0")), None);
    let equals_text = assertion(Expectation::Equals(text("pass")), None);
    let contains = assertion(Expectation::Contains("saved".to_owned()), None);
    let regex = assertion(Expectation::Regex(Regex::new(r"\d+ notes").unwrap()), None);
    let anchored = assertion(Expectation::Regex(Regex::new(r"^ok$").unwrap()), None);
    let one_of = assertion(
        Expectation::OneOf(vec![text("light"), text("dark"), num("2")]),
        None,
    );
    let present = assertion(Expectation::Present, None);

    let rows: Vec<(&Assertion, &str, Result<bool, &str>)> = vec![
        // lte / gte, inclusive, with units
        (&lte_800ms, "720ms", Ok(true)),
        (&lte_800ms, "720毫秒", Ok(true)),
        (&lte_800ms, "冷启动耗时0.9秒以内", Ok(false)),
        (&lte_800ms, "800 ms", Ok(true)),
        (&lte_800ms, "800.001ms", Ok(false)),
        (&lte_800ms, "0.8s", Ok(true)),
        (&lte_800ms, "1.2s", Ok(false)),
        (&lte_800ms, "799999us", Ok(true)),
        (&lte_800ms, "1,200 ms", Ok(false)),
        (&lte_800ms, "700", Ok(true)),
        (&lte_800ms, "60 fps", Err("E_ASSERTION_UNIT_MISMATCH")),
        (
            &lte_800ms,
            "3 runs, 700ms",
            Err("E_ASSERTION_UNIT_MISMATCH"),
        ),
        (&lte_800ms, "fast", Err("E_ASSERTION_ACTUAL_NOT_NUMERIC")),
        (&lte_800ms, "NaN ms", Err("E_ASSERTION_ACTUAL_NOT_NUMERIC")),
        (&gte_48vp, "48vp", Ok(true)),
        (&gte_48vp, "36vp", Ok(false)),
        (&gte_48vp, "36px", Err("E_ASSERTION_UNIT_MISMATCH")),
        // range: inclusive, one or both bounds
        (&range_12, "12vp", Ok(true)),
        (&range_12, "11.5vp", Ok(true)),
        (&range_12, "12.5 vp", Ok(true)),
        (&range_12, "10vp", Ok(false)),
        (&range_12, "12.51vp", Ok(false)),
        (&range_min_only, "4.9:1", Ok(true)),
        (&range_min_only, "4.49:1", Ok(false)),
        (&range_max_only, "-3.5 ms/s", Ok(true)),
        (&range_max_only, "5.1ms/s", Ok(false)),
        // equals: numbers when both are numbers, exact strings otherwise
        (&equals_num, "0", Ok(true)),
        (&equals_num, "0 unlabeled", Ok(true)),
        (&equals_num, "0.0", Ok(true)),
        (&equals_num, "1", Ok(false)),
        (&equals_num, "none", Ok(false)),
        (&equals_text, "pass", Ok(true)),
        (&equals_text, "PASS", Ok(false)),
        (&equals_text, "pass ", Ok(false)),
        // contains: case-insensitive substring
        (&contains, "Note SAVED to disk", Ok(true)),
        (&contains, "not stored", Ok(false)),
        // regex: unanchored unless the author anchors it
        (&regex, "found 12 notes today", Ok(true)),
        (&regex, "found notes", Ok(false)),
        (&anchored, "ok", Ok(true)),
        (&anchored, "ok!", Ok(false)),
        // oneOf: equals against each
        (&one_of, "dark", Ok(true)),
        (&one_of, "2", Ok(true)),
        (&one_of, "Dark", Ok(false)),
        // present: non-empty
        (&present, "x", Ok(true)),
        (&present, "", Ok(false)),
        (&present, "  \t", Ok(false)),
    ];
    for (assertion, actual, expected) in rows {
        assert_eq!(
            judge(assertion, actual),
            expected,
            "{:?} against {actual:?}",
            assertion.expectation
        );
    }
}

#[test]
fn px_converts_to_vp_only_with_a_density() {
    let gte_48vp = assertion(Expectation::Gte(d("48")), Some("vp"));
    let with_density = UnitContext {
        density: Some(d("3.25")),
    };
    // 156 px / 3.25 = 48 vp exactly; 155 px is just under.
    assert!(gte_48vp.evaluate("156px", with_density).unwrap().passed);
    assert!(!gte_48vp.evaluate("155px", with_density).unwrap().passed);
    assert_eq!(
        gte_48vp
            .evaluate("156px", UnitContext::default())
            .unwrap_err()
            .code(),
        "E_ASSERTION_UNIT_MISMATCH"
    );
}

#[test]
fn reasons_say_what_was_compared() {
    let lte = assertion(Expectation::Lte(d("800")), Some("ms"));
    let failed = lte.evaluate("1.2s", UnitContext::default()).unwrap();
    assert_eq!(failed.reason, "1.2 s > 800 ms");
    let passed = lte.evaluate("720ms", UnitContext::default()).unwrap();
    assert_eq!(passed.reason, "720 ms ≤ 800 ms");
}

#[test]
fn huge_actuals_are_errors_not_guesses() {
    let lte = assertion(Expectation::Lte(d("800")), Some("ms"));
    let huge = format!("{}ms", "9".repeat(80));
    assert_eq!(judge(&lte, &huge), Err("E_ASSERTION_NUMBER_OUT_OF_RANGE"));
    assert_eq!(
        judge(&lte, "1e9999999ms"),
        Err("E_ASSERTION_NUMBER_OUT_OF_RANGE")
    );
    assert_eq!(
        judge(&lte, "1e999ms"),
        Ok(false),
        "exact even far beyond f64"
    );
}

#[test]
fn every_expectation_says_once_where_its_limits_are_and_which_way_is_worse() {
    let limits = |at_least: Option<&str>, at_most: Option<&str>| Limits {
        at_least: at_least.map(d),
        at_most: at_most.map(d),
    };
    let rows = [
        (
            Expectation::Lte(d("800")),
            limits(None, Some("800")),
            Some(Worse::Larger),
        ),
        (
            Expectation::Gte(d("48")),
            limits(Some("48"), None),
            Some(Worse::Smaller),
        ),
        (
            Expectation::Range {
                min: Some(d("11.5")),
                max: Some(d("12.5")),
            },
            limits(Some("11.5"), Some("12.5")),
            Some(Worse::AwayFrom(12.0)),
        ),
        (
            Expectation::Range {
                min: None,
                max: Some(d("5")),
            },
            limits(None, Some("5")),
            Some(Worse::Larger),
        ),
        (
            Expectation::Range {
                min: Some(d("60")),
                max: None,
            },
            limits(Some("60"), None),
            Some(Worse::Smaller),
        ),
        // An exact number bounds both sides and has no worse direction: compared by verdict.
        (
            Expectation::Equals(num("12")),
            limits(Some("12"), Some("12")),
            None,
        ),
        (Expectation::Equals(text("12")), Limits::default(), None),
        (Expectation::Contains("ok".into()), Limits::default(), None),
        (
            Expectation::OneOf(vec![num("1"), num("2")]),
            Limits::default(),
            None,
        ),
        (Expectation::Present, Limits::default(), None),
    ];
    for (expectation, expected, worse) in rows {
        assert_eq!(expectation.limits(), expected, "{expectation:?}");
        assert_eq!(expectation.worse(), worse, "{expectation:?}");
    }
    let sides = limits(Some("1"), Some("2")).sides();
    assert_eq!(sides, [(Side::AtLeast, d("1")), (Side::AtMost, d("2"))]);
    // A chart's threshold line is the upper limit, in the chart's unit.
    let cold = assertion(Expectation::Lte(d("0.8")), Some("s"));
    assert_eq!(cold.upper_bound_in("ms"), Some(800.0));
    assert_eq!(
        assertion(Expectation::Gte(d("48")), Some("vp")).upper_bound_in("vp"),
        None
    );
}

#[test]
fn matchers_are_the_words_a_pack_writes() {
    assert_eq!(
        Matcher::WORDS,
        [
            "equals", "contains", "regex", "range", "gte", "lte", "oneOf", "present"
        ]
    );
    assert_eq!(Matcher::parse("oneOf"), Some(Matcher::OneOf));
    assert_eq!(Matcher::parse("one_of"), None);
}
