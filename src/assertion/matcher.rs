//! The eight matchers and how a measured `actual` is judged against them.
//!
//! | matcher | meaning |
//! |---|---|
//! | `equals` | numeric comparison when both sides are numbers, exact string otherwise |
//! | `contains` | substring, case-insensitive |
//! | `regex` | pattern, unanchored (the author adds `^$`) |
//! | `range` | within `[min, max]`, inclusive; at least one bound |
//! | `gte` / `lte` | numeric greater/less or equal |
//! | `oneOf` | equals one of a list |
//! | `present` | non-empty (whitespace alone is empty) |

use std::cmp::Ordering;
use std::fmt;

use regex::Regex;

use super::decimal::{Decimal, DecimalError};
use super::quantity::{Quantity, first_quantity};
use super::unit::{Unit, UnitError, common_scale};
use crate::words::words;

words! {
    /// A matcher, as a pack names it.
    pub(crate) enum Matcher {
        /// Numeric comparison when both sides are numbers, exact string otherwise.
        Equals = "equals",
        /// Substring, case-insensitive.
        Contains = "contains",
        /// Pattern, unanchored.
        Regex = "regex",
        /// Within `[min, max]`, inclusive.
        Range = "range",
        /// Numerically greater or equal.
        Gte = "gte",
        /// Numerically less or equal.
        Lte = "lte",
        /// Equals one of a list.
        OneOf = "oneOf",
        /// Non-empty.
        Present = "present",
    }
}

/// One expected value of `equals` or `oneOf`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Scalar {
    /// A number: compared numerically when `actual` holds a number.
    Number(Decimal),
    /// Text: compared exactly.
    Text(String),
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scalar::Number(n) => write!(f, "{n}"),
            Scalar::Text(t) => write!(f, "{t:?}"),
        }
    }
}

/// What a matcher expects, already validated and compiled.
#[derive(Clone, Debug)]
pub(crate) enum Expectation {
    /// `equals`.
    Equals(Scalar),
    /// `contains` (stored lowercased).
    Contains(String),
    /// `regex`.
    Regex(Regex),
    /// `range`, at least one bound, `min <= max`.
    Range {
        /// Inclusive lower bound.
        min: Option<Decimal>,
        /// Inclusive upper bound.
        max: Option<Decimal>,
    },
    /// `gte`.
    Gte(Decimal),
    /// `lte`.
    Lte(Decimal),
    /// `oneOf`, never empty.
    OneOf(Vec<Scalar>),
    /// `present`.
    Present,
}

/// A validated assertion: the matcher's expectation and the unit its numbers are written in.
#[derive(Clone, Debug)]
pub struct Assertion {
    /// What the matcher expects.
    pub(crate) expectation: Expectation,
    /// The unit the expected numbers are written in, if the author declared one.
    pub(crate) unit: Option<Unit>,
}

/// Facts about the measurement that unit conversion may need.
#[derive(Clone, Copy, Debug, Default)]
pub struct UnitContext {
    /// The device's virtual pixel ratio (px per vp), when one was recorded.
    pub(crate) density: Option<Decimal>,
}

/// The recomputed outcome of one assertion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Evaluation {
    /// Whether `actual` satisfies the assertion.
    pub(crate) passed: bool,
    /// Why, in a few words (`720 ms ≤ 800 ms`).
    pub(crate) reason: String,
}

/// Why an assertion could not be evaluated against an `actual`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum AssertionError {
    /// A numeric matcher got an `actual` without any number in it.
    #[error("actual {actual:?} holds no number for a numeric matcher")]
    NotNumeric {
        /// The offending actual.
        actual: String,
    },
    /// The units of `actual` and the assertion do not agree or convert (what disagrees is the
    /// message itself: an evaluation's reason, not an error chain).
    #[error("unit mismatch: {0}")]
    UnitMismatch(UnitError),
    /// A number too large to compare exactly.
    #[error("{0}")]
    OutOfRange(DecimalError),
}

impl From<UnitError> for AssertionError {
    fn from(error: UnitError) -> AssertionError {
        AssertionError::UnitMismatch(error)
    }
}

impl From<DecimalError> for AssertionError {
    fn from(error: DecimalError) -> AssertionError {
        AssertionError::OutOfRange(error)
    }
}

impl AssertionError {
    /// The stable diagnostic code.
    pub(crate) fn code(&self) -> &'static str {
        match self {
            AssertionError::NotNumeric { .. } => "E_ASSERTION_ACTUAL_NOT_NUMERIC",
            AssertionError::UnitMismatch(_) => "E_ASSERTION_UNIT_MISMATCH",
            AssertionError::OutOfRange(_) => "E_ASSERTION_NUMBER_OUT_OF_RANGE",
        }
    }
}

impl Assertion {
    /// The most this assertion allows (`lte`, a range's `max`, an exact number), in `unit` (its own unit when
    /// it declares none), for a chart's threshold line; `None` when it sets no upper bound or
    /// its unit does not convert to `unit`.
    pub(crate) fn upper_bound_in(&self, unit: &str) -> Option<f64> {
        self.bound_in(self.expectation.limits().at_most?, unit)
    }

    /// The least this assertion allows (`gte`, a range's `min`, an exact number), in `unit`,
    /// as [`Self::upper_bound_in`].
    pub(crate) fn lower_bound_in(&self, unit: &str) -> Option<f64> {
        self.bound_in(self.expectation.limits().at_least?, unit)
    }

    fn bound_in(&self, bound: Decimal, unit: &str) -> Option<f64> {
        let wanted = Unit::parse(unit);
        let (scaled, factor) = common_scale(bound, self.unit.as_ref(), Some(&wanted), None).ok()?;
        Some(scaled.to_f64() / factor.to_f64())
    }

    /// Judges `actual` against this assertion.
    pub(crate) fn evaluate(
        &self,
        actual: &str,
        context: UnitContext,
    ) -> Result<Evaluation, AssertionError> {
        let outcome = |passed: bool, reason: String| Ok(Evaluation { passed, reason });
        match &self.expectation {
            Expectation::Present => {
                let passed = !actual.trim().is_empty();
                outcome(passed, if passed { "present" } else { "empty" }.to_owned())
            }
            Expectation::Contains(needle) => {
                let passed = actual.to_lowercase().contains(needle.as_str());
                let verb = if passed {
                    "contains"
                } else {
                    "does not contain"
                };
                outcome(passed, format!("{actual:?} {verb} {needle:?}"))
            }
            Expectation::Regex(re) => {
                let passed = re.is_match(actual);
                let verb = if passed { "matches" } else { "does not match" };
                outcome(passed, format!("{actual:?} {verb} /{}/", re.as_str()))
            }
            Expectation::Equals(expected) => {
                let passed = self.scalar_equals(expected, actual, context)?;
                let verb = if passed { "equals" } else { "differs from" };
                outcome(passed, format!("{actual:?} {verb} {expected}"))
            }
            Expectation::OneOf(options) => {
                let mut passed = false;
                for option in options {
                    if self.scalar_equals(option, actual, context)? {
                        passed = true;
                        break;
                    }
                }
                let list: Vec<String> = options.iter().map(ToString::to_string).collect();
                let verb = if passed { "is one of" } else { "is none of" };
                outcome(passed, format!("{actual:?} {verb} [{}]", list.join(", ")))
            }
            Expectation::Gte(bound) => self.compare(actual, context, *bound, "≥", Ordering::is_ge),
            Expectation::Lte(bound) => self.compare(actual, context, *bound, "≤", Ordering::is_le),
            Expectation::Range { min, max } => {
                let quantity = self.quantity(actual)?;
                let (value, factor) = self.scale(&quantity, context)?;
                let scaled = |b: Decimal| b.checked_mul(factor).ok_or_else(overflow(b));
                let above_min = match min {
                    Some(m) => value >= scaled(*m)?,
                    None => true,
                };
                let below_max = match max {
                    Some(m) => value <= scaled(*m)?,
                    None => true,
                };
                let passed = above_min && below_max;
                let verb = if passed { "within" } else { "outside" };
                outcome(
                    passed,
                    format!(
                        "{} {verb} [{}, {}]{}",
                        show_quantity(&quantity),
                        show_bound(*min),
                        show_bound(*max),
                        self.unit_suffix()
                    ),
                )
            }
        }
    }

    fn quantity(&self, actual: &str) -> Result<Quantity, AssertionError> {
        first_quantity(actual)?.ok_or_else(|| AssertionError::NotNumeric {
            actual: actual.to_owned(),
        })
    }

    fn scale(
        &self,
        quantity: &Quantity,
        context: UnitContext,
    ) -> Result<(Decimal, Decimal), AssertionError> {
        Ok(common_scale(
            quantity.value,
            quantity.unit.as_ref(),
            self.unit.as_ref(),
            context.density,
        )?)
    }

    fn compare(
        &self,
        actual: &str,
        context: UnitContext,
        bound: Decimal,
        symbol: &str,
        holds: fn(Ordering) -> bool,
    ) -> Result<Evaluation, AssertionError> {
        let quantity = self.quantity(actual)?;
        let (value, factor) = self.scale(&quantity, context)?;
        let threshold = bound.checked_mul(factor).ok_or_else(overflow(bound))?;
        let passed = holds(value.cmp(&threshold));
        let shown_symbol = if passed {
            symbol.to_owned()
        } else {
            negate(symbol)
        };
        Ok(Evaluation {
            passed,
            reason: format!(
                "{} {shown_symbol} {bound}{}",
                show_quantity(&quantity),
                self.unit_suffix()
            ),
        })
    }

    fn scalar_equals(
        &self,
        expected: &Scalar,
        actual: &str,
        context: UnitContext,
    ) -> Result<bool, AssertionError> {
        match expected {
            Scalar::Text(text) => Ok(text == actual),
            Scalar::Number(number) => match first_quantity(actual)? {
                Some(quantity) => {
                    let (value, factor) = self.scale(&quantity, context)?;
                    let threshold = number.checked_mul(factor).ok_or_else(overflow(*number))?;
                    Ok(value == threshold)
                }
                // Not both numbers: exact string comparison.
                None => Ok(number.to_string() == actual),
            },
        }
    }

    fn unit_suffix(&self) -> String {
        unit_suffix(self.unit.as_ref())
    }
}

fn negate(symbol: &str) -> String {
    match symbol {
        "≥" => "<",
        "≤" => ">",
        other => other,
    }
    .to_owned()
}

fn overflow(value: Decimal) -> impl FnOnce() -> AssertionError {
    move || AssertionError::OutOfRange(DecimalError::OutOfRange(value.to_string()))
}

fn show_bound(bound: Option<Decimal>) -> String {
    bound.map_or_else(|| "…".to_owned(), |b| b.to_string())
}

fn show_quantity(quantity: &Quantity) -> String {
    format!("{}{}", quantity.value, unit_suffix(quantity.unit.as_ref()))
}

/// ` ms`, ` vp`, but `:1` for ratios, which read as `4.5:1`.
fn unit_suffix(unit: Option<&Unit>) -> String {
    match unit.map(ToString::to_string) {
        Some(ratio) if ratio.starts_with(':') => ratio,
        Some(unit) => format!(" {unit}"),
        None => String::new(),
    }
}

/// The assertion in a few symbols, for specs and reports: `≤ 800 ms`, `in [11.5, 12.5] vp`.
impl fmt::Display for Assertion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let unit = self.unit_suffix();
        match &self.expectation {
            Expectation::Equals(s) => write!(f, "= {s}{unit}"),
            Expectation::Contains(t) => write!(f, "contains {t:?} (any case)"),
            Expectation::Regex(re) => write!(f, "matches /{}/", re.as_str()),
            Expectation::Range { min, max } => {
                write!(f, "in [{}, {}]{unit}", show_bound(*min), show_bound(*max))
            }
            Expectation::Gte(b) => write!(f, "≥ {b}{unit}"),
            Expectation::Lte(b) => write!(f, "≤ {b}{unit}"),
            Expectation::OneOf(items) => {
                let list: Vec<String> = items.iter().map(ToString::to_string).collect();
                write!(f, "one of [{}]{unit}", list.join(", "))
            }
            Expectation::Present => f.write_str("present (non-empty)"),
        }
    }
}

#[cfg(test)]
mod tests;
