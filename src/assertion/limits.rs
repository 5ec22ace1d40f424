//! What an expectation says about numbers, computed once for everyone who asks: the limits it
//! sets (at least, at most; an exact number both) and which way a measurement gets worse. The
//! comparison's direction, the review's baselines and the charts' threshold lines all read it
//! here.

use super::decimal::Decimal;
use super::matcher::{Expectation, Scalar};

/// The side of a numeric limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Side {
    /// The most allowed.
    AtMost,
    /// The least allowed.
    AtLeast,
}

/// The numeric limits an expectation sets: what it allows at least and at most (an exact
/// number sets both). Everything that asks which direction is worse, or where a threshold
/// lies, asks this.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Limits {
    /// The least allowed.
    pub(crate) at_least: Option<Decimal>,
    /// The most allowed.
    pub(crate) at_most: Option<Decimal>,
}

impl Limits {
    /// Each limit with its side, the lower first.
    pub(crate) fn sides(&self) -> Vec<(Side, Decimal)> {
        let lower = self.at_least.map(|v| (Side::AtLeast, v));
        let upper = self.at_most.map(|v| (Side::AtMost, v));
        lower.into_iter().chain(upper).collect()
    }
}

/// Which way a measurement gets worse under an expectation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Worse {
    /// A larger value (`lte`, a range with only a maximum).
    Larger,
    /// A smaller value (`gte`, a range with only a minimum).
    Smaller,
    /// Further from the middle of a range.
    AwayFrom(f64),
}

impl Expectation {
    /// The numeric limits it sets (none for text matchers and lists).
    pub(crate) fn limits(&self) -> Limits {
        match self {
            Expectation::Lte(b) => Limits {
                at_most: Some(*b),
                ..Limits::default()
            },
            Expectation::Gte(b) => Limits {
                at_least: Some(*b),
                ..Limits::default()
            },
            Expectation::Range { min, max } => Limits {
                at_least: *min,
                at_most: *max,
            },
            Expectation::Equals(Scalar::Number(n)) => Limits {
                at_least: Some(*n),
                at_most: Some(*n),
            },
            _ => Limits::default(),
        }
    }

    /// Which way is worse: larger under an upper limit alone, smaller under a lower one, away
    /// from the middle of a range; none for an exact value (compared by its verdicts).
    pub(crate) fn worse(&self) -> Option<Worse> {
        match self.limits() {
            Limits {
                at_least: None,
                at_most: Some(_),
            } => Some(Worse::Larger),
            Limits {
                at_least: Some(_),
                at_most: None,
            } => Some(Worse::Smaller),
            Limits {
                at_least: Some(lo),
                at_most: Some(hi),
            } if lo != hi => Some(Worse::AwayFrom((lo.to_f64() + hi.to_f64()) / 2.0)),
            _ => None,
        }
    }
}
