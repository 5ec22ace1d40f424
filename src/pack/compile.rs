//! One assertion, compiled: the matcher named as a word of [`Matcher`], its expectation
//! built from what that matcher takes (`expected:`, or `min`/`max` for a range), its unit
//! checked against what it compares and what its probe produces, and its probe tied to the
//! flow it names. A refusal says what is wrong, the fix, and the key at fault.

use std::collections::BTreeMap;

use regex::RegexBuilder;
use serde_json::Number;
use serde_saphyr::Spanned;

use crate::assertion::{Assertion, Decimal, Expectation, Matcher, Scalar, Unit, known_spellings};
use crate::pack::{CATALOG, check_probe};

use super::flow::{Flow, InputKind, MeasuredStep, StepRef};
use super::measured::MeasuredBy;
use super::model::CriterionAssertion;
use super::probe::FramesVia;
use super::schema::{AssertionDoc, ExpectedDoc, ProbeDoc, ScalarDoc};

/// Compiled size limit for an author's regex: far above any sane pattern, far below what
/// would let a pack make the audit slow.
pub(crate) const REGEX_SIZE_LIMIT: usize = 256 * 1024;

/// An assertion that does not compile: what is wrong, the one-line fix, and where the key at
/// fault was written (when one is).
pub(super) struct Invalid {
    pub(super) message: String,
    pub(super) fix: String,
    pub(super) key: Option<serde_saphyr::Location>,
}

pub(super) fn invalid(message: impl Into<String>, fix: impl Into<String>) -> Invalid {
    Invalid {
        message: message.into(),
        fix: fix.into(),
        key: None,
    }
}

impl Invalid {
    /// Located at `key` (the first written of them), unless already located.
    pub(super) fn on<T>(mut self, keys: &[Option<&Spanned<T>>]) -> Invalid {
        if self.key.is_none() {
            self.key = keys.iter().flatten().next().map(|k| k.referenced);
        }
        self
    }
}

/// Compiles an assertion as written into one the gate can evaluate.
pub(super) fn compile(doc: &AssertionDoc) -> Result<CriterionAssertion, Invalid> {
    let at_matcher = [Some(&doc.matcher)];
    let matcher = Matcher::parse(&doc.matcher.value).ok_or_else(|| {
        invalid(
            format!("unknown matcher `{}`", doc.matcher.value),
            format!("use one of {}", Matcher::WORDS.join(", ")),
        )
        .on(&at_matcher)
    })?;
    if matcher != Matcher::Range && (doc.min.is_some() || doc.max.is_some()) {
        return Err(invalid(
            format!("`min`/`max` belong to `range`, not `{matcher}`"),
            "use `matcher: range`, or `expected:` for this matcher",
        )
        .on(&[doc.min.as_ref(), doc.max.as_ref()]));
    }
    let expectation = expectation(matcher, doc)?;
    let unit = unit(matcher, &expectation, doc)?;
    let probe = doc
        .probe
        .as_ref()
        .map(|probe| check_probe(&probe.value))
        .transpose()
        .map_err(|e| {
            let ids: Vec<&str> = CATALOG.iter().map(|k| k.id).collect();
            invalid(
                e.to_string(),
                format!("see the probe catalog: {}", ids.join(", ")),
            )
            .on(&[doc.probe.as_ref()])
        })?;
    let assertion = Assertion { expectation, unit };
    // The probe's unit is known now: an assertion it cannot satisfy is refused at freeze,
    // not left for the review.
    if let Some(message) = probe.as_ref().and_then(|p| p.mismatch(&assertion)) {
        return Err(invalid(
            message,
            "use the unit the probe produces (see the probe catalog)",
        )
        .on(&[doc.unit.as_ref()])
        .on(&[doc.probe.as_ref()]));
    }
    Ok(CriterionAssertion {
        assertion,
        matcher,
        source: doc.source.clone(),
        probe,
    })
}

/// What `matcher` expects, from the keys it takes.
fn expectation(matcher: Matcher, doc: &AssertionDoc) -> Result<Expectation, Invalid> {
    let expected = doc.expected.as_ref().map(|e| &e.value);
    let at_expected = [doc.expected.as_ref()];
    let takes = |what: &str| {
        invalid(
            format!("`{matcher}` takes {what}"),
            format!("write the assertion as `matcher: {matcher}` with {what}"),
        )
        .on(&at_expected)
        .on(&[Some(&doc.matcher)])
    };
    let number = |n: &Number| decimal(n).map_err(|e| e.on(&at_expected));
    Ok(match matcher {
        Matcher::Equals => match expected {
            Some(ExpectedDoc::Number(n)) => Expectation::Equals(Scalar::Number(number(n)?)),
            Some(ExpectedDoc::Text(t)) => Expectation::Equals(Scalar::Text(t.clone())),
            _ => return Err(takes("one number or string in `expected`")),
        },
        Matcher::Contains => match expected {
            Some(ExpectedDoc::Text(t)) if !t.is_empty() => Expectation::Contains(t.to_lowercase()),
            _ => return Err(takes("a non-empty string in `expected`")),
        },
        Matcher::Regex => match expected {
            Some(ExpectedDoc::Text(pattern)) => Expectation::Regex(
                RegexBuilder::new(pattern)
                    .size_limit(REGEX_SIZE_LIMIT)
                    .build()
                    .map_err(|e| {
                        invalid(
                            format!("bad regex: {}", first_line(&e.to_string())),
                            "fix the pattern (Rust regex syntax, unanchored: add ^$ yourself)",
                        )
                        .on(&at_expected)
                    })?,
            ),
            _ => return Err(takes("a pattern string in `expected`")),
        },
        Matcher::Range => range(doc)?,
        Matcher::Gte | Matcher::Lte => match expected {
            Some(ExpectedDoc::Number(n)) if matcher == Matcher::Gte => Expectation::Gte(number(n)?),
            Some(ExpectedDoc::Number(n)) => Expectation::Lte(number(n)?),
            _ => return Err(takes("a number in `expected`")),
        },
        Matcher::OneOf => match expected {
            Some(ExpectedDoc::List(items)) if !items.is_empty() => Expectation::OneOf(
                items
                    .iter()
                    .map(|item| match item {
                        ScalarDoc::Number(n) => decimal(n).map(Scalar::Number),
                        ScalarDoc::Text(t) => Ok(Scalar::Text(t.clone())),
                    })
                    .collect::<Result<_, _>>()
                    .map_err(|e| e.on(&at_expected))?,
            ),
            _ => return Err(takes("a non-empty list in `expected`")),
        },
        Matcher::Present => {
            if expected.is_some() {
                return Err(
                    invalid("`present` takes no `expected`", "remove `expected:`").on(&at_expected),
                );
            }
            Expectation::Present
        }
    })
}

/// A range: `min` and/or `max`, never `expected`, `min` not above `max`.
fn range(doc: &AssertionDoc) -> Result<Expectation, Invalid> {
    if doc.expected.is_some() {
        return Err(invalid(
            "`range` takes `min` and/or `max`, not `expected`",
            "replace `expected:` by `min:` and/or `max:`",
        )
        .on(&[doc.expected.as_ref()]));
    }
    let bound = |b: Option<&Spanned<Number>>| {
        b.map(|m| decimal(&m.value).map_err(|e| e.on(&[Some(m)])))
            .transpose()
    };
    match (bound(doc.min.as_ref())?, bound(doc.max.as_ref())?) {
        (None, None) => Err(
            invalid("`range` has no bounds", "give `min`, `max` or both").on(&[Some(&doc.matcher)]),
        ),
        (Some(lo), Some(hi)) if lo > hi => Err(invalid(
            format!("`range` has min {lo} greater than max {hi}"),
            "swap `min` and `max`",
        )
        .on(&[doc.min.as_ref(), doc.max.as_ref()])),
        (min, max) => Ok(Expectation::Range { min, max }),
    }
}

/// The unit the expected numbers are written in: only for a matcher that compares numbers,
/// and only a unit dwpipe knows.
fn unit(
    matcher: Matcher,
    expectation: &Expectation,
    doc: &AssertionDoc,
) -> Result<Option<Unit>, Invalid> {
    let Some(unit) = &doc.unit else {
        return Ok(None);
    };
    let numeric = matches!(
        expectation,
        Expectation::Range { .. }
            | Expectation::Gte(_)
            | Expectation::Lte(_)
            | Expectation::Equals(Scalar::Number(_))
            | Expectation::OneOf(_)
    );
    if !numeric {
        return Err(invalid(
            format!("`unit` applies to numbers; `{matcher}` here compares text"),
            "remove `unit:`",
        )
        .on(&[Some(unit)]));
    }
    Unit::parse_known(&unit.value).map(Some).ok_or_else(|| {
        invalid(
            format!("unknown unit `{}`", unit.value),
            format!("use one of {}", known_spellings()),
        )
        .on(&[Some(unit)])
    })
}

/// Ties a probe to the flow it names: the flow must exist, `perf.response` names one of its
/// input steps, and `perf.frames` via hidumper needs a flow to measure.
pub(super) fn bind_flow(
    probe: &mut MeasuredBy,
    doc: Option<&ProbeDoc>,
    flows: &BTreeMap<String, Flow>,
) -> Result<(), Invalid> {
    let id = probe.kind.id;
    if probe.args.via == FramesVia::Hidumper && probe.args.flow.is_none() {
        return Err(invalid(
            format!("`{id}` via hidumper reads the frames of a flow, and names none"),
            "add `flow: <name>` (its swipes are what is measured), or drop `via: hidumper`",
        ));
    }
    let steps_given = doc.is_some_and(|d| d.step.is_some() || d.steps.is_some());
    let Some(name) = probe.args.flow.clone() else {
        if steps_given {
            return Err(invalid(
                format!("`{id}` names a step of no flow"),
                "add `flow: <name>`, or drop `step:`/`steps:` to measure the launch",
            ));
        }
        return Ok(());
    };
    let Some(flow) = flows.get(&name) else {
        let known: Vec<&str> = flows.keys().map(String::as_str).collect();
        return Err(invalid(
            format!("`{id}` names flow `{name}`, which the pack does not declare"),
            if known.is_empty() {
                "declare it under `flows:` at the top of the pack".to_owned()
            } else {
                format!("use one of the pack's flows: {}", known.join(", "))
            },
        ));
    };
    if let Some(reference) = doc.and_then(|d| d.step.as_ref()) {
        let index = flow.step(reference).ok_or_else(|| {
            invalid(
                format!("flow `{name}` has no step `{reference}`"),
                format!(
                    "name a step by its `name:` or by its number, 1 to {}",
                    flow.steps.len()
                ),
            )
        })?;
        let step = &flow.steps[index];
        let Some(input) = step.action.input() else {
            return Err(invalid(
                format!(
                    "step {} of flow `{name}` is `{}`, which sends no input to measure",
                    index + 1,
                    step.action.key()
                ),
                "name a click, double-click, long-click, input, swipe, fling or press step",
            ));
        };
        probe.args.step = Some(MeasuredStep { index, input });
    }
    if probe.args.point.is_some() {
        probe.args.range = points_range(doc, flow)?;
    }
    if id == "perf.frames"
        && !flow
            .steps
            .iter()
            .any(|s| s.action.input() == Some(InputKind::Swipe))
    {
        return Err(invalid(
            format!("`{id}` on flow `{name}` measures its swipes and flings, and it has none"),
            "add a `swipe:` or `fling:` step to the flow, or measure the launch screen's scroll without `flow:`",
        ));
    }
    Ok(())
}

/// The steps of `flow` a trace point probe is traced between: `steps: [first, last]`, or the
/// whole flow when it names neither `step:` nor `steps:` (one step: that step's own trace).
fn points_range(doc: Option<&ProbeDoc>, flow: &Flow) -> Result<Option<(usize, usize)>, Invalid> {
    let Some(doc) = doc else { return Ok(None) };
    let name = &flow.name;
    match (&doc.step, &doc.steps) {
        (Some(_), Some(_)) => Err(invalid(
            "`step:` and `steps:` both given",
            "name one step (its own trace), or `steps: [first, last]` (one trace over them)",
        )),
        (Some(_), None) => Ok(None),
        (None, None) => Ok(Some((0, flow.steps.len().saturating_sub(1)))),
        (None, Some(steps)) => {
            let [first, last] = steps.as_slice() else {
                return Err(invalid(
                    format!("`steps:` names {} step(s)", steps.len()),
                    "name two: the first and the last step the trace covers",
                ));
            };
            let index = |reference: &StepRef| {
                flow.step(reference).ok_or_else(|| {
                    invalid(
                        format!("flow `{name}` has no step `{reference}`"),
                        format!(
                            "name a step by its `name:` or by its number, 1 to {}",
                            flow.steps.len()
                        ),
                    )
                })
            };
            let (a, b) = (index(first)?, index(last)?);
            if a > b {
                return Err(invalid(
                    format!("`steps: [{first}, {last}]` ends before it begins"),
                    "name the earlier step first",
                ));
            }
            Ok(Some((a, b)))
        }
    }
}

fn decimal(number: &Number) -> Result<Decimal, Invalid> {
    Decimal::parse(&number.to_string()).map_err(|e| {
        invalid(
            format!("expected number: {e}"),
            "use a finite number of at most 38 significant digits",
        )
    })
}

fn first_line(text: &str) -> &str {
    text.lines().find(|l| !l.trim().is_empty()).unwrap_or(text)
}
