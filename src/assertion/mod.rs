//! Machine-checkable assertions: exact decimals, units, the first-number rule and the eight
//! matchers. Everything here is pure; the gate and the audit call `Assertion::evaluate`.

mod decimal;
mod limits;
mod matcher;
mod quantity;
mod unit;

pub use decimal::Decimal;
pub(crate) use limits::{Side, Worse};
pub use matcher::{Assertion, UnitContext};
pub(crate) use matcher::{Expectation, Matcher, Scalar};
pub(crate) use quantity::first_quantity;
pub(crate) use unit::{Unit, common_scale, known_spellings};
