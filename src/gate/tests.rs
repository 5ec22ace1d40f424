//! One test per row of the gate table (docs/design.md §3), plus the bookkeeping rows.

use std::path::Path;

use super::*;
use crate::assertion::{Decimal, UnitContext};
use crate::pack::{Pack, parse_pack, validate};

/// A pack with one must criterion with an assertion (`P-01`, ≤ 800 ms), one must without
/// (`F-01`) and one should with an assertion (`X-01`, ≥ 48 vp).
fn pack() -> Pack {
    let yaml = "version: 1\napp: { bundle: com.example.notes }\ncriteria:\n\
        - { id: P-01, dimension: performance, statement: fast start, weight: must,\n\
            assertion: { matcher: lte, expected: 800, unit: ms } }\n\
        - { id: F-01, dimension: function, statement: notes save, weight: must }\n\
        - { id: X-01, dimension: accessibility, statement: big targets, weight: should,\n\
            assertion: { matcher: gte, expected: 48, unit: vp } }\n";
    let (doc, _) = parse_pack(Path::new("pack.yaml"), yaml.as_bytes()).unwrap();
    let (pack, diagnostics) = validate(doc, Path::new("pack.yaml"));
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    pack.unwrap()
}

fn check(id: &str, result: CheckResult, actual: Option<&str>) -> CheckInput {
    CheckInput {
        criterion_id: id.to_owned(),
        result,
        evidence: "recorded".to_owned(),
        actual: actual.map(str::to_owned),
    }
}

/// Checks for the two criteria not under test, both clean passes.
fn others_passing(except: &str) -> Vec<CheckInput> {
    [
        check("P-01", CheckResult::Pass, Some("720ms")),
        check("F-01", CheckResult::Pass, None),
        check("X-01", CheckResult::Pass, Some("48vp")),
    ]
    .into_iter()
    .filter(|c| c.criterion_id != except)
    .collect()
}

fn gate_with(subject: CheckInput, measurements: &[Measurement]) -> GateOutcome {
    let mut checks = others_passing(&subject.criterion_id);
    checks.push(subject);
    recompute(&pack(), &checks, measurements, UnitContext::default())
}

fn codes(outcome: &GateOutcome) -> Vec<&str> {
    outcome
        .diagnostics
        .iter()
        .map(|d| d.code.as_str())
        .collect()
}

fn verdict_of<'a>(outcome: &'a GateOutcome, id: &str) -> &'a CheckOutcome {
    outcome
        .checks
        .iter()
        .find(|c| c.criterion_id == id)
        .unwrap()
}

#[test]
fn all_clean_passes_pass() {
    let outcome = recompute(&pack(), &others_passing(""), &[], UnitContext::default());
    assert_eq!(outcome.verdict, Verdict::Pass);
    assert!(outcome.diagnostics.is_empty());
    let verdicts: Vec<AssertionVerdict> =
        outcome.checks.iter().map(|c| c.assertion_verdict).collect();
    assert_eq!(
        verdicts,
        [
            AssertionVerdict::Pass,
            AssertionVerdict::None,
            AssertionVerdict::Pass
        ]
    );
}

#[test]
fn row_pass_without_actual_is_an_error() {
    let outcome = gate_with(check("P-01", CheckResult::Pass, None), &[]);
    assert_eq!(codes(&outcome), ["E_AUDIT_PASS_WITHOUT_ACTUAL"]);
    assert_eq!(outcome.verdict, Verdict::Fail);
    assert_eq!(
        verdict_of(&outcome, "P-01").assertion_verdict,
        AssertionVerdict::None
    );
}

#[test]
fn row_pass_that_recomputes_to_fail_is_refused() {
    let outcome = gate_with(check("P-01", CheckResult::Pass, Some("1.2s")), &[]);
    assert_eq!(codes(&outcome), ["E_AUDIT_SELF_CONTRADICTION"]);
    assert_eq!(outcome.verdict, Verdict::Fail);
    let p01 = verdict_of(&outcome, "P-01");
    assert_eq!(p01.assertion_verdict, AssertionVerdict::Fail);
    assert_eq!(p01.reason.as_deref(), Some("1.2 s > 800 ms"));
}

#[test]
fn row_fail_that_recomputes_to_pass_warns_and_the_human_verdict_stands() {
    let outcome = gate_with(check("P-01", CheckResult::Fail, Some("700ms")), &[]);
    assert_eq!(codes(&outcome), ["W_AUDIT_FAIL_BUT_ASSERTION_PASS"]);
    // A must criterion that the auditor failed still fails the delivery.
    assert_eq!(outcome.verdict, Verdict::Fail);
    assert_eq!(
        verdict_of(&outcome, "P-01").assertion_verdict,
        AssertionVerdict::Pass
    );
}

#[test]
fn row_unverified_warns_and_the_must_gate_errors() {
    let outcome = gate_with(check("P-01", CheckResult::Unverified, None), &[]);
    assert_eq!(codes(&outcome), ["W_AUDIT_UNVERIFIED", "E_MUST_UNVERIFIED"]);
    assert_eq!(outcome.verdict, Verdict::Fail);
    // A should criterion left unverified is only a warning.
    let outcome = gate_with(check("X-01", CheckResult::Unverified, None), &[]);
    assert_eq!(codes(&outcome), ["W_AUDIT_UNVERIFIED"]);
    assert_eq!(outcome.verdict, Verdict::Pass);
}

#[test]
fn row_no_assertion_keeps_the_human_verdict() {
    let outcome = gate_with(check("F-01", CheckResult::Pass, None), &[]);
    assert!(outcome.diagnostics.is_empty());
    assert_eq!(outcome.verdict, Verdict::Pass);
    let outcome = gate_with(
        check("F-01", CheckResult::Fail, Some("crashes on save")),
        &[],
    );
    assert!(outcome.diagnostics.is_empty());
    assert_eq!(outcome.verdict, Verdict::Fail, "a failed must fails");
    assert_eq!(
        verdict_of(&outcome, "F-01").assertion_verdict,
        AssertionVerdict::None
    );
}

#[test]
fn row_actual_that_disagrees_with_the_measurement_is_an_error() {
    let measured = Measurement {
        criterion_id: "P-01".to_owned(),
        actual: "742ms".to_owned(),
        resolution: Decimal::parse("1").unwrap(),
    };
    let outcome = gate_with(
        check("P-01", CheckResult::Pass, Some("600ms")),
        std::slice::from_ref(&measured),
    );
    assert_eq!(codes(&outcome), ["E_AUDIT_ACTUAL_MISMATCH"]);
    assert_eq!(outcome.verdict, Verdict::Fail);
    assert_eq!(
        verdict_of(&outcome, "P-01").actual.as_deref(),
        Some("742ms")
    );
    // Within the resolution, and in another unit, it is the same reading.
    for same in ["742ms", "741.2 ms", "0.7425s"] {
        let outcome = gate_with(
            check("P-01", CheckResult::Pass, Some(same)),
            std::slice::from_ref(&measured),
        );
        assert!(
            outcome.diagnostics.is_empty(),
            "{same}: {:?}",
            codes(&outcome)
        );
    }
    let outcome = gate_with(
        check("P-01", CheckResult::Pass, Some("742 fps")),
        &[measured],
    );
    assert_eq!(codes(&outcome), ["E_AUDIT_ACTUAL_MISMATCH"]);
}

#[test]
fn an_actual_the_assertion_cannot_read_is_an_error_with_its_code() {
    let outcome = gate_with(check("P-01", CheckResult::Pass, Some("60 fps")), &[]);
    assert_eq!(codes(&outcome), ["E_ASSERTION_UNIT_MISMATCH"]);
    let outcome = gate_with(check("P-01", CheckResult::Pass, Some("quick")), &[]);
    assert_eq!(codes(&outcome), ["E_ASSERTION_ACTUAL_NOT_NUMERIC"]);
    let huge = format!("{}ms", "9".repeat(100));
    let outcome = gate_with(check("P-01", CheckResult::Fail, Some(&huge)), &[]);
    assert_eq!(codes(&outcome), ["E_ASSERTION_NUMBER_OUT_OF_RANGE"]);
    assert_eq!(outcome.verdict, Verdict::Fail);
}

#[test]
fn px_actuals_need_the_density() {
    let px = check("X-01", CheckResult::Pass, Some("144px"));
    let with_density = UnitContext {
        density: Some(Decimal::parse("3").unwrap()),
    };
    let mut checks = others_passing("X-01");
    checks.push(px.clone());
    assert!(
        recompute(&pack(), &checks, &[], with_density)
            .diagnostics
            .is_empty()
    );
    let outcome = gate_with(px, &[]);
    assert_eq!(codes(&outcome), ["E_ASSERTION_UNIT_MISMATCH"]);
}

#[test]
fn bookkeeping_unknown_duplicate_and_missing_checks() {
    let mut checks = others_passing("");
    checks.push(check("Z-99", CheckResult::Pass, Some("1")));
    checks.push(check("P-01", CheckResult::Pass, Some("1.5s")));
    let outcome = recompute(&pack(), &checks, &[], UnitContext::default());
    assert_eq!(
        codes(&outcome),
        ["E_AUDIT_UNKNOWN_CRITERION", "E_AUDIT_DUPLICATE_CHECK"]
    );
    assert_eq!(
        verdict_of(&outcome, "P-01").actual.as_deref(),
        Some("720ms"),
        "the first check counts"
    );
    assert_eq!(
        outcome.checks.len(),
        3,
        "one outcome per criterion, none for Z-99"
    );

    let outcome = recompute(
        &pack(),
        &others_passing("F-01"),
        &[],
        UnitContext::default(),
    );
    assert_eq!(codes(&outcome), ["E_AUDIT_CHECK_MISSING"]);
    assert_eq!(verdict_of(&outcome, "F-01").result, CheckResult::Unverified);
    let outcome = recompute(
        &pack(),
        &others_passing("X-01"),
        &[],
        UnitContext::default(),
    );
    assert_eq!(codes(&outcome), ["W_AUDIT_CHECK_MISSING"]);
    assert_eq!(outcome.verdict, Verdict::Pass);
}

#[test]
fn a_failed_should_criterion_does_not_fail_the_verdict() {
    let outcome = gate_with(check("X-01", CheckResult::Fail, Some("36vp")), &[]);
    assert!(outcome.diagnostics.is_empty());
    assert_eq!(outcome.verdict, Verdict::Pass);
    assert_eq!(
        verdict_of(&outcome, "X-01").assertion_verdict,
        AssertionVerdict::Fail
    );
}
