//! Verdict recomputation: a pure function of (pack, checks, measurements).
//!
//! | situation | outcome |
//! |---|---|
//! | assertion, check says `pass`, no `actual` | error `E_AUDIT_PASS_WITHOUT_ACTUAL` |
//! | assertion, check says `pass`, recomputes to `fail` | error `E_AUDIT_SELF_CONTRADICTION` |
//! | assertion, check says `fail`, recomputes to `pass` | warning `W_AUDIT_FAIL_BUT_ASSERTION_PASS` |
//! | check says `unverified` | warning `W_AUDIT_UNVERIFIED`; for a `must`, error `E_MUST_UNVERIFIED` |
//! | no assertion | the human verdict stands |
//! | a measurement disagrees with the auditor's `actual` beyond its resolution | error `E_AUDIT_ACTUAL_MISMATCH` |
//!
//! Plus the bookkeeping an auditor can get wrong: a check for an unknown criterion, two checks
//! for one criterion, a criterion with no check.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::words::words;

use crate::assertion::{Decimal, UnitContext, common_scale, first_quantity};
use crate::diagnostic::{Diagnostic, has_errors};
use crate::pack::{Criterion, CriterionAssertion, Dimension, Pack, Weight};

words! {
    /// What a check claims.
    pub enum CheckResult {
        /// The criterion holds.
        Pass = "pass",
        /// The criterion does not hold.
        Fail = "fail",
        /// Nobody could tell.
        Unverified = "unverified",
    }
}

words! {
    /// The assertion's own verdict on the actual.
    pub enum AssertionVerdict {
        /// The actual satisfies the assertion.
        Pass = "pass",
        /// It does not, or it could not be evaluated.
        Fail = "fail",
        /// No assertion, or no actual to evaluate.
        None = "none",
    }
}

words! {
    /// The overall verdict.
    pub enum Verdict {
        /// No error and no failed must criterion.
        Pass = "pass",
        /// Anything else.
        Fail = "fail",
    }
}

/// One check handed to the gate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckInput {
    /// The criterion it is about.
    pub criterion_id: String,
    /// What the checker claims.
    pub result: CheckResult,
    /// The checker's evidence, in words or file names.
    pub evidence: String,
    /// The measured value, with its unit (`"720ms"`).
    pub actual: Option<String>,
}

/// A value dwpipe measured itself, against which an auditor's `actual` is held.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Measurement {
    /// The criterion measured.
    pub(crate) criterion_id: String,
    /// The measured value with its unit.
    pub(crate) actual: String,
    /// How far an auditor's number may differ and still be the same reading.
    pub(crate) resolution: Decimal,
}

/// The gate's verdict on one criterion.
#[derive(schemars::JsonSchema, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckOutcome {
    /// The criterion.
    pub criterion_id: String,
    /// Its dimension.
    pub dimension: Dimension,
    /// must or should.
    pub weight: Weight,
    /// The criterion in words, as the pack states it (absent in audits before format 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub statement: Option<String>,
    /// What the check claimed (`unverified` when there was no check).
    pub result: CheckResult,
    /// The actual the verdict was recomputed from.
    pub actual: Option<String>,
    /// The assertion, in symbols (`≤ 800 ms`), when there is one.
    pub expected: Option<String>,
    /// The recomputed verdict.
    pub assertion_verdict: AssertionVerdict,
    /// Why the assertion passed or failed.
    pub reason: Option<String>,
    /// The checker's evidence.
    pub evidence: String,
}

/// Everything the gate decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GateOutcome {
    /// Pass only with no error and no failed must criterion.
    pub(crate) verdict: Verdict,
    /// Every finding, in pack order.
    pub diagnostics: Vec<Diagnostic>,
    /// One outcome per criterion of the pack, in pack order.
    pub(crate) checks: Vec<CheckOutcome>,
}

/// Recomputes the verdicts of `checks` against `pack`, holding actuals against `measurements`.
pub fn recompute(
    pack: &Pack,
    checks: &[CheckInput],
    measurements: &[Measurement],
    context: UnitContext,
) -> GateOutcome {
    let mut diagnostics = Vec::new();
    let known: HashMap<&str, &Criterion> =
        pack.criteria.iter().map(|c| (c.id.as_str(), c)).collect();
    let mut by_criterion: HashMap<&str, &CheckInput> = HashMap::new();
    for check in checks {
        let id = check.criterion_id.as_str();
        if !known.contains_key(id) {
            diagnostics.push(
                Diagnostic::error(
                    "E_AUDIT_UNKNOWN_CRITERION",
                    format!("the audit checks `{id}`, which is not in the pack"),
                )
                .criterion(id)
                .fix("audit against the lock the delivery was frozen with"),
            );
        } else if by_criterion.contains_key(id) {
            diagnostics.push(
                Diagnostic::error(
                    "E_AUDIT_DUPLICATE_CHECK",
                    format!("the audit checks `{id}` more than once"),
                )
                .criterion(id)
                .fix("give exactly one check per criterion"),
            );
        } else {
            by_criterion.insert(id, check);
        }
    }
    let measured: HashMap<&str, &Measurement> = measurements
        .iter()
        .map(|m| (m.criterion_id.as_str(), m))
        .collect();
    let outcomes = pack
        .criteria
        .iter()
        .map(|criterion| {
            judge(
                criterion,
                by_criterion.get(criterion.id.as_str()).copied(),
                measured.get(criterion.id.as_str()).copied(),
                context,
                &mut diagnostics,
            )
        })
        .collect::<Vec<_>>();
    let must_failed = outcomes.iter().any(|o| {
        o.weight == Weight::Must
            && (o.result == CheckResult::Fail || o.assertion_verdict == AssertionVerdict::Fail)
    });
    let verdict = if must_failed || has_errors(&diagnostics) {
        Verdict::Fail
    } else {
        Verdict::Pass
    };
    GateOutcome {
        verdict,
        diagnostics,
        checks: outcomes,
    }
}

fn judge(
    criterion: &Criterion,
    check: Option<&CheckInput>,
    measurement: Option<&Measurement>,
    context: UnitContext,
    diagnostics: &mut Vec<Diagnostic>,
) -> CheckOutcome {
    let id = criterion.id.as_str();
    let must = criterion.weight == Weight::Must;
    let mut outcome = CheckOutcome {
        criterion_id: id.to_owned(),
        dimension: criterion.dimension,
        weight: criterion.weight,
        statement: Some(criterion.statement.clone()),
        result: CheckResult::Unverified,
        actual: None,
        expected: criterion
            .assertion
            .as_ref()
            .map(|a| a.assertion.to_string()),
        assertion_verdict: AssertionVerdict::None,
        reason: None,
        evidence: String::new(),
    };
    let Some(check) = check else {
        diagnostics.push(
            if must {
                Diagnostic::error(
                    "E_AUDIT_CHECK_MISSING",
                    "the audit has no check for this must criterion",
                )
            } else {
                Diagnostic::warning(
                    "W_AUDIT_CHECK_MISSING",
                    "the audit has no check for this criterion",
                )
            }
            .criterion(id)
            .fix("add a check with result, evidence and actual"),
        );
        return outcome;
    };
    outcome.result = check.result;
    outcome.evidence.clone_from(&check.evidence);
    outcome.actual = check.actual.clone().filter(|a| !a.is_empty());
    if let Some(measurement) = measurement {
        if let Some(theirs) = &outcome.actual
            && !same_reading(theirs, measurement, context)
        {
            diagnostics.push(
                Diagnostic::error(
                    "E_AUDIT_ACTUAL_MISMATCH",
                    format!(
                        "the audit says {theirs:?} but dwpipe measured {:?} (resolution {})",
                        measurement.actual, measurement.resolution
                    ),
                )
                .criterion(id)
                .fix("re-measure; dwpipe's recorded evidence is what the verdict uses"),
            );
        }
        // dwpipe's own recorded measurement is what the assertion is judged on.
        outcome.actual = Some(measurement.actual.clone());
    }
    if check.result == CheckResult::Unverified {
        diagnostics.push(
            Diagnostic::warning("W_AUDIT_UNVERIFIED", "the criterion was not verified")
                .criterion(id)
                .fix("measure it, or say why it cannot be measured"),
        );
        if must {
            diagnostics.push(
                Diagnostic::error("E_MUST_UNVERIFIED", "a must criterion is unverified")
                    .criterion(id)
                    .fix("a delivery passes only when every must criterion is verified"),
            );
        }
    }
    let Some(assertion) = &criterion.assertion else {
        return outcome;
    };
    let Some(actual) = outcome.actual.clone() else {
        if check.result == CheckResult::Pass {
            diagnostics.push(
                Diagnostic::error(
                    "E_AUDIT_PASS_WITHOUT_ACTUAL",
                    "the check says pass but gives no actual: an assertion cannot pass unrun",
                )
                .criterion(id)
                .fix(format!(
                    "report the measured value as `actual` (expected {})",
                    assertion.assertion
                )),
            );
        }
        return outcome;
    };
    evaluate(
        &mut outcome,
        check.result,
        (assertion, &actual),
        context,
        diagnostics,
    );
    outcome
}

/// The assertion evaluated on `actual` into `outcome` (its verdict and reason); what the
/// check said against it is said in `diagnostics`.
fn evaluate(
    outcome: &mut CheckOutcome,
    said: CheckResult,
    (assertion, actual): (&CriterionAssertion, &str),
    context: UnitContext,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let id = outcome.criterion_id.clone();
    match assertion.assertion.evaluate(actual, context) {
        Ok(evaluation) => {
            outcome.assertion_verdict = if evaluation.passed {
                AssertionVerdict::Pass
            } else {
                AssertionVerdict::Fail
            };
            match (said, evaluation.passed) {
                (CheckResult::Pass, false) => diagnostics.push(
                    Diagnostic::error(
                        "E_AUDIT_SELF_CONTRADICTION",
                        format!(
                            "the check says pass but its own actual fails: {}",
                            evaluation.reason
                        ),
                    )
                    .criterion(&id)
                    .fix("the audit is refused; correct the result or the measurement"),
                ),
                (CheckResult::Fail, true) => diagnostics.push(
                    Diagnostic::warning(
                        "W_AUDIT_FAIL_BUT_ASSERTION_PASS",
                        format!(
                            "the check says fail but the assertion passes: {}",
                            evaluation.reason
                        ),
                    )
                    .criterion(&id)
                    .fix("something the assertion cannot see may have failed it; ask for review"),
                ),
                _ => {}
            }
            outcome.reason = Some(evaluation.reason);
        }
        Err(error) => {
            outcome.assertion_verdict = AssertionVerdict::Fail;
            outcome.reason = Some(error.to_string());
            diagnostics.push(
                Diagnostic::error(error.code(), format!("cannot evaluate {actual:?}: {error}"))
                    .criterion(&id)
                    .fix(format!("report `actual` as a number in a unit that converts to the assertion's ({})", assertion.assertion)),
            );
        }
    }
}

/// Whether an auditor's actual is the same reading as dwpipe's measurement.
fn same_reading(theirs: &str, measurement: &Measurement, context: UnitContext) -> bool {
    let (Ok(Some(ours)), Ok(Some(their))) =
        (first_quantity(&measurement.actual), first_quantity(theirs))
    else {
        return theirs == measurement.actual;
    };
    let Ok((their_scaled, factor)) = common_scale(
        their.value,
        their.unit.as_ref(),
        ours.unit.as_ref(),
        context.density,
    ) else {
        return false;
    };
    let (Some(ours_scaled), Some(tolerance)) = (
        ours.value.checked_mul(factor),
        measurement.resolution.checked_mul(factor),
    ) else {
        return false;
    };
    their_scaled
        .checked_sub(ours_scaled)
        .is_some_and(|diff| diff.abs() <= tolerance)
}
