//! Machine-checkable assertions: exact decimals, units, the first-number rule and the eight
//! matchers. Everything here is pure; the gate and the audit call [`Assertion::evaluate`].

mod decimal;
mod matcher;
mod quantity;
mod unit;

#[cfg(test)]
mod matcher_tests;

pub use decimal::{Decimal, DecimalError};
pub use matcher::{
    Assertion, AssertionError, Evaluation, Expectation, MATCHER_NAMES, Scalar, UnitContext,
};
pub(crate) use quantity::first_quantity;
pub use unit::UnitError;
pub(crate) use unit::{Unit, common_scale, known_spellings};
