//! One row per built-in rule: a pack that trips it, and the code it must produce.

use std::path::Path;

use super::*;
use crate::diagnostic::has_errors;
use crate::pack::{Pack, parse_pack, validate};

/// A pack with one must criterion per dimension; `criterion` replaces the performance one.
fn pack(criterion: &str) -> Pack {
    let yaml = format!(
        "version: 1\napp: {{ bundle: com.example.notes }}\ncriteria:\n\
         - {{ id: F-01, dimension: function, statement: notes save, weight: must, verify: by hand }}\n\
         - {{ id: A-01, dimension: aesthetic, statement: looks right, weight: must, verify: by eye }}\n\
         - {{ id: X-01, dimension: accessibility, statement: readable, weight: must, verify: by ear }}\n\
         {criterion}\n"
    );
    let (doc, _) = parse_pack(Path::new("pack.yaml"), yaml.as_bytes()).unwrap();
    let (pack, diagnostics) = validate(doc, Path::new("pack.yaml"));
    assert!(!has_errors(&diagnostics), "{diagnostics:?}");
    pack.unwrap()
}

fn codes(criterion: &str) -> Vec<String> {
    builtin(&pack(criterion))
        .into_iter()
        .map(|d| d.code)
        .collect()
}

#[test]
fn each_rule_fires_on_its_hole_and_not_elsewhere() {
    let clean = "- { id: P-01, dimension: performance, statement: Cold start ≤ 800ms, weight: must, assertion: { matcher: lte, expected: 800, unit: ms, probe: { id: perf.cold-start } } }";
    assert!(codes(clean).is_empty(), "{:?}", codes(clean));
    for agreeing in [
        "- { id: P-01, dimension: performance, statement: 冷启动不超过800毫秒, weight: must, assertion: { matcher: lte, expected: 800, unit: ms, probe: { id: perf.cold-start } } }",
        "- { id: P-01, dimension: performance, statement: 冷启动在0.8秒以内, weight: must, assertion: { matcher: lte, expected: 800, unit: ms, probe: { id: perf.cold-start } } }",
        "- { id: P-01, dimension: performance, statement: 冷启动不大于800毫秒, weight: must, assertion: { matcher: lte, expected: 800, unit: ms, probe: { id: perf.cold-start } } }",
    ] {
        assert!(
            codes(agreeing).is_empty(),
            "{agreeing}: {:?}",
            codes(agreeing)
        );
    }
    let rows = [
        (
            "- { id: P-01, dimension: performance, statement: Cold start ≤ 800ms, weight: must, assertion: { matcher: lte, expected: 1000, unit: ms, probe: { id: perf.cold-start } } }",
            "E_REVIEW_STATEMENT_CONTRADICTS",
        ),
        (
            "- { id: P-01, dimension: performance, statement: Cold start ≤ 0.8s, weight: must, assertion: { matcher: gte, expected: 800, unit: ms, probe: { id: perf.cold-start } } }",
            "E_REVIEW_STATEMENT_CONTRADICTS",
        ),
        (
            "- { id: P-01, dimension: performance, statement: Items are 14vp apart, weight: must, assertion: { matcher: range, min: 11.5, max: 12.5, unit: vp, probe: { id: layout.gap, from: 'id:a', to: 'id:b' } } }",
            "E_REVIEW_STATEMENT_CONTRADICTS",
        ),
        (
            "- { id: P-01, dimension: performance, statement: Cold start is quick, weight: must, assertion: { matcher: lte, expected: 1500, unit: ms, probe: { id: perf.cold-start } } }",
            "W_REVIEW_LOOSER_THAN_BASELINE",
        ),
        (
            "- { id: P-01, dimension: performance, statement: Scrolling is smooth, weight: must, assertion: { matcher: lte, expected: 8, unit: ms/s, probe: { id: perf.frames, metric: jank } } }",
            "W_REVIEW_LOOSER_THAN_BASELINE",
        ),
        (
            "- { id: P-01, dimension: performance, statement: Buttons are big, weight: must, assertion: { matcher: gte, expected: 36, unit: vp, probe: { id: a11y.touch-target } } }",
            "W_REVIEW_LOOSER_THAN_BASELINE",
        ),
        (
            "- { id: P-01, dimension: performance, statement: Text is readable, weight: must, assertion: { matcher: gte, expected: 3, unit: ratio, probe: { id: a11y.contrast, target: 'id:t' } } }",
            "W_REVIEW_LOOSER_THAN_BASELINE",
        ),
        (
            "- { id: P-01, dimension: performance, statement: Memory is low, weight: must, assertion: { matcher: lte, expected: 2, unit: GB, probe: { id: perf.memory } } }",
            "W_REVIEW_LOOSER_THAN_BASELINE",
        ),
        (
            "- { id: P-01, dimension: performance, statement: Saves fast, weight: must, verify: the app logs it, assertion: { matcher: lte, expected: 200, unit: ms, source: in-app timer } }",
            "W_REVIEW_SELF_REPORTED_SOURCE",
        ),
        (
            "- { id: P-01, dimension: performance, statement: Saves fast, weight: must, assertion: { matcher: lte, expected: 200, unit: ms } }",
            "W_REVIEW_UNMEASURABLE",
        ),
        (
            "- { id: P-01, dimension: performance, statement: 冷启动不超过800毫秒, weight: must, assertion: { matcher: lte, expected: 1000, unit: ms, probe: { id: perf.cold-start } } }",
            "E_REVIEW_STATEMENT_CONTRADICTS",
        ),
        (
            "- { id: P-01, dimension: performance, statement: 冷启动在0.9秒以内, weight: must, assertion: { matcher: lte, expected: 800, unit: ms, probe: { id: perf.cold-start } } }",
            "E_REVIEW_STATEMENT_CONTRADICTS",
        ),
        (
            "- { id: P-01, dimension: performance, statement: 滑动帧率至少60帧/秒, weight: must, assertion: { matcher: gte, expected: 50, unit: fps, probe: { id: perf.frames, metric: fps } } }",
            "E_REVIEW_STATEMENT_CONTRADICTS",
        ),
        (
            "- { id: P-01, dimension: performance, statement: It feels fast, weight: must }",
            "E_REVIEW_MUST_UNVERIFIABLE",
        ),
        (
            "- { id: P-01, dimension: performance, statement: It feels fast, weight: should, verify: by hand }",
            "W_REVIEW_DIMENSION_WITHOUT_MUST",
        ),
    ];
    for (criterion, code) in rows {
        let found = codes(criterion);
        assert!(
            found.iter().any(|c| c == code),
            "{code} not in {found:?} for {criterion}"
        );
    }
    // The same threshold written in another unit is no contradiction.
    let same = "- { id: P-01, dimension: performance, statement: Cold start ≤ 0.8s, weight: must, assertion: { matcher: lte, expected: 800, unit: ms, probe: { id: perf.cold-start } } }";
    assert!(codes(same).is_empty(), "{:?}", codes(same));
}

#[test]
fn a_tap_is_held_to_huaweis_click_baselines_by_metric() {
    let with_flow = |probe: &str, expected: u32| {
        let yaml = format!(
            "version: 1\napp: {{ bundle: com.example.notes }}\n\
             flows: {{ open: [ {{ launch: cold }}, {{ click: 'id:n', name: tap }} ] }}\ncriteria:\n\
             - {{ id: P-01, dimension: performance, statement: opening is quick, weight: must, assertion: {{ matcher: lte, expected: {expected}, unit: ms, probe: {probe} }} }}\n"
        );
        let (doc, _) = parse_pack(Path::new("pack.yaml"), yaml.as_bytes()).unwrap();
        let (pack, diagnostics) = validate(doc, Path::new("pack.yaml"));
        assert!(!has_errors(&diagnostics), "{diagnostics:?}");
        builtin(&pack.unwrap())
            .into_iter()
            .filter(|d| d.code == "W_REVIEW_LOOSER_THAN_BASELINE")
            .map(|d| d.message)
            .collect::<Vec<_>>()
    };
    let response = "{ id: perf.response, flow: open, step: tap }";
    let complete = "{ id: perf.response, flow: open, step: tap, metric: complete }";
    assert!(with_flow(response, 100).is_empty());
    assert!(
        with_flow(complete, 900).is_empty(),
        "900 ms is a pass line for completion"
    );
    assert!(with_flow(response, 150)[0].contains("baseline of 100 ms"));
    assert!(with_flow(complete, 1600)[0].contains("baseline of 900 ms"));
}
