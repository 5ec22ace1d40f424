//! Exact decimal numbers for assertion comparisons.
//!
//! Measured values and thresholds are written in decimal (`0.8s`, `11.5vp`, `4.9:1`). Comparing
//! them as `f64` would make `0.8 s` → `800.0000000000001 ms` a real possibility, so every number
//! an assertion touches is held as `mantissa × 10^exponent` and unit conversions only ever
//! multiply. Anything that does not fit is an error, never a rounded guess.

use std::cmp::Ordering;
use std::fmt;

/// Most significant digits a mantissa may hold (`i128` holds every 38-digit integer).
const MAX_DIGITS: usize = 38;

/// A decimal number `mantissa × 10^exponent`, kept normalized (no trailing zeros in the
/// mantissa; zero is `0 × 10^0`) so that equal values have equal representations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Decimal {
    mantissa: i128,
    exponent: i32,
}

/// Why a text could not become a [`Decimal`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum DecimalError {
    /// The text is not a plain decimal number.
    #[error("`{0}` is not a decimal number")]
    Syntax(String),
    /// The number has more significant digits or a larger exponent than dwpipe compares exactly.
    #[error(
        "`{0}` is too large or too precise to compare exactly (at most {MAX_DIGITS} significant digits)"
    )]
    OutOfRange(String),
}

impl Decimal {
    /// Zero.
    pub(crate) const ZERO: Decimal = Decimal {
        mantissa: 0,
        exponent: 0,
    };

    /// Builds `mantissa × 10^exponent`.
    pub(crate) fn new(mantissa: i128, exponent: i32) -> Decimal {
        Decimal { mantissa, exponent }.normalized()
    }

    fn normalized(mut self) -> Decimal {
        if self.mantissa == 0 {
            return Decimal::ZERO;
        }
        while self.mantissa % 10 == 0 {
            self.mantissa /= 10;
            self.exponent += 1;
        }
        self
    }

    /// The nearest `f64`, for statistics over readings (where verdicts are decided, numbers
    /// stay decimal).
    pub(crate) fn to_f64(self) -> f64 {
        self.to_string().parse().unwrap_or(f64::NAN)
    }

    /// Parses `[+-]digits[.digits][e[+-]digits]`, the form JSON and YAML numbers print in.
    pub(crate) fn parse(text: &str) -> Result<Decimal, DecimalError> {
        let syntax = || DecimalError::Syntax(text.to_owned());
        let range = || DecimalError::OutOfRange(text.to_owned());
        let (negative, rest) = match text.as_bytes().first() {
            Some(b'-') => (true, &text[1..]),
            Some(b'+') => (false, &text[1..]),
            _ => (false, text),
        };
        let (number, exp_part) = match rest.find(['e', 'E']) {
            Some(at) => (&rest[..at], Some(&rest[at + 1..])),
            None => (rest, None),
        };
        let (int_part, frac_part) = match number.split_once('.') {
            Some((i, f)) => (i, f),
            None => (number, ""),
        };
        let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if int_part.is_empty() && frac_part.is_empty()
            || !all_digits(int_part)
            || !all_digits(frac_part)
        {
            return Err(syntax());
        }
        let mut exponent: i64 = match exp_part {
            Some(e) => {
                let digits = e.strip_prefix(['+', '-']).unwrap_or(e);
                if digits.is_empty() || !all_digits(digits) || digits.len() > 6 {
                    return Err(if all_digits(digits) && !digits.is_empty() {
                        range()
                    } else {
                        syntax()
                    });
                }
                e.parse::<i64>().map_err(|_| syntax())?
            }
            None => 0,
        };
        let digits: String = format!("{int_part}{frac_part}");
        let digits = digits.trim_start_matches('0');
        // Trailing zeros carry no precision; folding them into the exponent keeps `1e300`-style
        // values comparable without a 300-digit mantissa.
        let significant = digits.trim_end_matches('0');
        exponent -= i64::try_from(frac_part.len()).map_err(|_| range())?;
        exponent += i64::try_from(digits.len() - significant.len()).map_err(|_| range())?;
        if significant.is_empty() {
            return Ok(Decimal::ZERO);
        }
        if significant.len() > MAX_DIGITS {
            return Err(range());
        }
        let mantissa: i128 = significant.parse().map_err(|_| range())?;
        let exponent = i32::try_from(exponent).map_err(|_| range())?;
        Ok(Decimal::new(
            if negative { -mantissa } else { mantissa },
            exponent,
        ))
    }

    /// The exact product, or `None` when it does not fit.
    pub(crate) fn checked_mul(self, other: Decimal) -> Option<Decimal> {
        Some(Decimal::new(
            self.mantissa.checked_mul(other.mantissa)?,
            self.exponent.checked_add(other.exponent)?,
        ))
    }

    /// The exact difference, or `None` when it does not fit.
    pub(crate) fn checked_sub(self, other: Decimal) -> Option<Decimal> {
        let exponent = self.exponent.min(other.exponent);
        let scale = |d: Decimal| -> Option<i128> {
            let shift = u32::try_from(d.exponent - exponent).ok()?;
            d.mantissa.checked_mul(10i128.checked_pow(shift)?)
        };
        Some(Decimal::new(
            scale(self)?.checked_sub(scale(other)?)?,
            exponent,
        ))
    }

    /// The absolute value.
    pub(crate) fn abs(self) -> Decimal {
        Decimal {
            mantissa: self.mantissa.abs(),
            exponent: self.exponent,
        }
    }

    fn digit_count(self) -> i64 {
        i64::from(self.mantissa.unsigned_abs().checked_ilog10().unwrap_or(0)) + 1
    }

    fn cmp_magnitude(self, other: Decimal) -> Ordering {
        // Position of the most significant digit decides first; only equal positions need
        // aligning, and then both mantissas fit because they have the same digit count.
        let order = |d: Decimal| d.digit_count() + i64::from(d.exponent);
        match order(self).cmp(&order(other)) {
            Ordering::Equal => {}
            unequal => return unequal,
        }
        let (a, b) = (self.mantissa.unsigned_abs(), other.mantissa.unsigned_abs());
        let (shift_a, shift_b) = if self.exponent > other.exponent {
            (self.exponent - other.exponent, 0)
        } else {
            (0, other.exponent - self.exponent)
        };
        let pow = |s: i32| 10u128.pow(u32::try_from(s).unwrap_or(0));
        (a * pow(shift_a)).cmp(&(b * pow(shift_b)))
    }
}

impl Ord for Decimal {
    fn cmp(&self, other: &Decimal) -> Ordering {
        match (self.mantissa.signum(), other.mantissa.signum()) {
            (a, b) if a != b => a.cmp(&b),
            (0, _) => Ordering::Equal,
            (1, _) => self.cmp_magnitude(*other),
            _ => other.cmp_magnitude(*self),
        }
    }
}

impl PartialOrd for Decimal {
    fn partial_cmp(&self, other: &Decimal) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.mantissa < 0 { "-" } else { "" };
        let digits = self.mantissa.unsigned_abs().to_string();
        if self.exponent >= 0 {
            if self.exponent > 12 {
                return write!(f, "{sign}{digits}e{}", self.exponent);
            }
            let zeros = "0".repeat(usize::try_from(self.exponent).unwrap_or(0));
            return write!(f, "{sign}{digits}{zeros}");
        }
        let frac_len = usize::try_from(-i64::from(self.exponent)).unwrap_or(usize::MAX);
        if frac_len > 24 {
            return write!(f, "{sign}{digits}e{}", self.exponent);
        }
        if digits.len() > frac_len {
            let (int, frac) = digits.split_at(digits.len() - frac_len);
            write!(f, "{sign}{int}.{frac}")
        } else {
            write!(f, "{sign}0.{}{digits}", "0".repeat(frac_len - digits.len()))
        }
    }
}

#[cfg(test)]
mod tests;
