//! Units of measure and exact conversion between compatible ones.
//!
//! A measured `1.2s` must never be compared with a threshold of `800ms` as if both were plain
//! numbers. Each known unit belongs to a family with a base unit and an exact factor; `px` and
//! `vp` meet only through a recorded density (virtual pixel ratio), and any other pairing is a
//! mismatch the caller must report.

use std::fmt;

use super::decimal::Decimal;

/// What a unit measures; units convert only within one family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Family {
    Time,
    Memory,
    Percent,
    FrameRate,
    JankRate,
    /// `vp` and `px`: convertible through the density.
    Length,
    FontPixel,
    Ratio,
    /// `°C`.
    Temperature,
    /// `MHz`, `GHz`.
    Frequency,
    /// `mW`, `W`.
    Power,
}

/// A unit as written after a number or in an assertion's `unit`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Unit {
    /// One of the units dwpipe knows and converts.
    Known(KnownUnit),
    /// A unit dwpipe does not convert (`dB`, `runs`); equal only to itself.
    Other(String),
}

/// A unit from the table of known units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct KnownUnit {
    symbol: &'static str,
    family: Family,
    /// Exact factor to the family's base unit (ns, KB, px); `None` for `vp`, whose factor is
    /// the density.
    factor: Option<(i128, i32)>,
}

/// Spellings accepted for each known unit: the first column is how dwpipe prints it.
const KNOWN: &[(&[&str], KnownUnit)] = &[
    (&["ns"], unit("ns", Family::Time, Some((1, 0)))),
    (&["us", "µs", "μs"], unit("us", Family::Time, Some((1, 3)))),
    (&["ms", "毫秒"], unit("ms", Family::Time, Some((1, 6)))),
    (&["s", "秒"], unit("s", Family::Time, Some((1, 9)))),
    // hidumper's "kB" are kibibytes; MB and GB follow the same binary steps.
    // Bytes, as an app's own counters state them (1/1024 KB, exactly).
    (&["B"], unit("B", Family::Memory, Some((9_765_625, -10)))),
    (
        &["KB", "kB", "KiB"],
        unit("KB", Family::Memory, Some((1, 0))),
    ),
    (&["MB", "MiB"], unit("MB", Family::Memory, Some((1024, 0)))),
    (
        &["GB", "GiB"],
        unit("GB", Family::Memory, Some((1_048_576, 0))),
    ),
    (&["%"], unit("%", Family::Percent, Some((1, 0)))),
    (
        &["fps", "帧/秒"],
        unit("fps", Family::FrameRate, Some((1, 0))),
    ),
    (&["ms/s"], unit("ms/s", Family::JankRate, Some((1, 0)))),
    (&["px"], unit("px", Family::Length, Some((1, 0)))),
    (&["vp"], unit("vp", Family::Length, None)),
    (&["fp"], unit("fp", Family::FontPixel, Some((1, 0)))),
    (
        &["ratio", ":1", "x:1"],
        unit("ratio", Family::Ratio, Some((1, 0))),
    ),
    (&["°C", "℃"], unit("°C", Family::Temperature, Some((1, 0)))),
    (&["MHz"], unit("MHz", Family::Frequency, Some((1, 0)))),
    (&["GHz"], unit("GHz", Family::Frequency, Some((1000, 0)))),
    (&["mW"], unit("mW", Family::Power, Some((1, 0)))),
    (&["W"], unit("W", Family::Power, Some((1000, 0)))),
];

const fn unit(symbol: &'static str, family: Family, factor: Option<(i128, i32)>) -> KnownUnit {
    KnownUnit {
        symbol,
        family,
        factor,
    }
}

/// Every spelling an assertion's `unit` may use, for error messages.
pub(crate) fn known_spellings() -> String {
    KNOWN
        .iter()
        .map(|(names, _)| names.join("|"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl Unit {
    /// Reads a unit symbol; unknown symbols become [`Unit::Other`].
    pub(crate) fn parse(symbol: &str) -> Unit {
        match KNOWN.iter().find(|(names, _)| names.contains(&symbol)) {
            Some((_, known)) => Unit::Known(*known),
            None => Unit::Other(symbol.to_owned()),
        }
    }

    /// The symbol dwpipe prints a known unit with (`None` for another).
    pub(crate) fn symbol(&self) -> Option<&'static str> {
        match self {
            Unit::Known(known) => Some(known.symbol),
            Unit::Other(_) => None,
        }
    }

    /// Reads a unit an author declared in an assertion, which must be a known one.
    pub(crate) fn parse_known(symbol: &str) -> Option<Unit> {
        match Unit::parse(symbol) {
            Unit::Other(_) => None,
            known => Some(known),
        }
    }
}

impl fmt::Display for Unit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unit::Known(known) if known.family == Family::Ratio => f.write_str(":1"),
            Unit::Known(known) => f.write_str(known.symbol),
            Unit::Other(other) => f.write_str(other),
        }
    }
}

/// Why two quantities cannot be compared.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum UnitError {
    /// The units measure different things.
    #[error("`{actual}` cannot be compared with `{expected}`")]
    Incompatible {
        /// The unit of the measured value.
        actual: String,
        /// The unit the assertion declares.
        expected: String,
    },
    /// `px` against `vp` with no recorded density.
    #[error(
        "`{actual}` converts to `{expected}` only with a recorded density (virtual pixel ratio)"
    )]
    NeedsDensity {
        /// The unit of the measured value.
        actual: String,
        /// The unit the assertion declares.
        expected: String,
    },
    /// The converted value does not fit an exact decimal.
    #[error("converting `{value}` from `{unit}` overflows")]
    Overflow {
        /// The value being converted.
        value: String,
        /// Its unit.
        unit: String,
    },
}

/// Brings a measured value and a threshold to one scale so they can be compared exactly.
///
/// Returns `(actual, expected_factor)`: the actual value in the common unit, and the factor
/// every expected number (written in `expected_unit`) must be multiplied by. When either side
/// has no unit the numbers are compared as they are.
pub(crate) fn common_scale(
    actual: Decimal,
    actual_unit: Option<&Unit>,
    expected_unit: Option<&Unit>,
    density: Option<Decimal>,
) -> Result<(Decimal, Decimal), UnitError> {
    let (Some(a), Some(e)) = (actual_unit, expected_unit) else {
        return Ok((actual, Decimal::new(1, 0)));
    };
    let incompatible = || UnitError::Incompatible {
        actual: a.to_string(),
        expected: e.to_string(),
    };
    match (a, e) {
        (Unit::Other(x), Unit::Other(y)) if x == y => Ok((actual, Decimal::new(1, 0))),
        (Unit::Known(ka), Unit::Known(ke)) if ka.family == ke.family => {
            let factor = |k: &KnownUnit| -> Result<Decimal, UnitError> {
                match (k.factor, density) {
                    (Some((m, exp)), _) => Ok(Decimal::new(m, exp)),
                    (None, Some(density)) => Ok(density),
                    (None, None) if ka == ke => Ok(Decimal::new(1, 0)),
                    (None, None) => Err(UnitError::NeedsDensity {
                        actual: a.to_string(),
                        expected: e.to_string(),
                    }),
                }
            };
            let scaled = actual
                .checked_mul(factor(ka)?)
                .ok_or_else(|| UnitError::Overflow {
                    value: actual.to_string(),
                    unit: a.to_string(),
                })?;
            Ok((scaled, factor(ke)?))
        }
        _ => Err(incompatible()),
    }
}

#[cfg(test)]
mod tests;
