//! The first number inside a measured value, with the unit written after it.
//!
//! Audit checks keep their units so that reports stay readable: `"12vp"`, `"720ms"`,
//! `"4.9:1"`, `"-3.5 dB"`, `"1,200 ms"`. Numeric matchers take the first number in the text
//! (its sign, decimals and exponent included, comma-grouped thousands read as one number) and the unit
//! token right after it.

use super::decimal::{Decimal, DecimalError};
use super::unit::Unit;

/// A number read out of a text, with the unit that followed it, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Quantity {
    /// The number.
    pub(crate) value: Decimal,
    /// The unit written right after it.
    pub(crate) unit: Option<Unit>,
}

/// Finds the first number in `text` and the unit after it.
///
/// Returns `Ok(None)` when the text holds no number at all, and an error when the number is
/// too large to compare exactly.
pub(crate) fn first_quantity(text: &str) -> Result<Option<Quantity>, DecimalError> {
    let bytes = text.as_bytes();
    let Some(start) = bytes.iter().position(u8::is_ascii_digit) else {
        return Ok(None);
    };
    // A sign belongs to the number only where it cannot be a hyphen inside a word (`P-01`).
    let signed_start = match start.checked_sub(1).map(|i| bytes[i]) {
        Some(b'-' | b'+')
            if start < 2
                || !(bytes[start - 2].is_ascii_alphanumeric() || bytes[start - 2] == b'_') =>
        {
            start - 1
        }
        _ => start,
    };
    let int_end = integer_end(bytes, start);
    let mut end = int_end;
    if bytes.get(end) == Some(&b'.') && bytes.get(end + 1).is_some_and(u8::is_ascii_digit) {
        end += 1;
        while bytes.get(end).is_some_and(u8::is_ascii_digit) {
            end += 1;
        }
    }
    end = exponent_end(bytes, end);
    let literal: String = text[signed_start..end]
        .chars()
        .filter(|c| *c != ',')
        .collect();
    let value = Decimal::parse(&literal)?;
    Ok(Some(Quantity {
        value,
        unit: unit_after(&text[end..]),
    }))
}

/// End of the integer part starting at `start`: plain digits, or `1,234,567` groups.
fn integer_end(bytes: &[u8], start: usize) -> usize {
    let digits_from = |at: usize| {
        bytes[at..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count()
    };
    let lead = digits_from(start);
    let mut end = start + lead;
    if lead <= 3 {
        // Accept `,ddd` groups only when exactly three digits follow each comma.
        while bytes.get(end) == Some(&b',') && digits_from(end + 1) == 3 {
            end += 4;
        }
    }
    end
}

/// End of an optional `e±ddd` exponent, so that `1e999` is read as the huge number it is.
fn exponent_end(bytes: &[u8], end: usize) -> usize {
    if !matches!(bytes.get(end), Some(b'e' | b'E')) {
        return end;
    }
    let signed = usize::from(matches!(bytes.get(end + 1), Some(b'+' | b'-')));
    let digits = bytes[(end + 1 + signed).min(bytes.len())..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    if digits == 0 {
        end
    } else {
        end + 1 + signed + digits
    }
}

/// The unit token that follows a number: `ms`, ` vp`, `ms/s`, `%`, `:1`.
fn unit_after(rest: &str) -> Option<Unit> {
    let trimmed = rest.trim_start_matches([' ', '\t']);
    if let Some(after_colon) = trimmed.strip_prefix(':') {
        let after_colon = after_colon.trim_start_matches([' ', '\t']);
        let is_one = after_colon.starts_with('1')
            && !after_colon[1..].starts_with(|c: char| c.is_ascii_digit() || c == '.');
        return is_one.then(|| Unit::parse(":1"));
    }
    if let Some(after) = trimmed.strip_prefix('%') {
        return (!after.starts_with(char::is_alphanumeric)).then(|| Unit::parse("%"));
    }
    // Chinese writes the unit straight after the number and the next word straight after the
    // unit (`800毫秒以内`): these are read by their spelling, whatever follows.
    if let Some((_, symbol)) = [("帧/秒", "fps"), ("毫秒", "ms"), ("秒", "s")]
        .iter()
        .find(|(spelling, _)| trimmed.starts_with(spelling))
    {
        return Some(Unit::parse(symbol));
    }
    let word_len = |s: &str| {
        s.char_indices()
            .find(|(_, c)| !is_unit_char(*c))
            .map_or(s.len(), |(i, _)| i)
    };
    let mut len = word_len(trimmed);
    if len == 0 {
        return None;
    }
    // `ms/s`: a rate unit is one word, a slash and one more word.
    if let Some(denominator) = trimmed[len..].strip_prefix('/') {
        let more = word_len(denominator);
        if more > 0 {
            len += 1 + more;
        }
    }
    let token = &trimmed[..len];
    let boundary_ok = !trimmed[len..].starts_with(|c: char| c.is_alphanumeric() || c == '_');
    boundary_ok.then(|| Unit::parse(token))
}

fn is_unit_char(c: char) -> bool {
    // `°C` and `℃` for temperatures.
    c.is_alphabetic() || matches!(c, 'µ' | '°' | '℃')
}

#[cfg(test)]
mod tests;
