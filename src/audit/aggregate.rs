//! Several runs → one value by the probe's [`Aggregate`]; the spread between runs, for the
//! instability warning; and the `actual` text a check carries.

use crate::pack::Aggregate;

use super::extract::Value;

/// Aggregates run values. Numbers by `how`; words must agree (else `fail`, the honest
/// summary of runs that disagree on pass/fail).
pub fn aggregate(values: &[Value], how: Aggregate) -> Option<Value> {
    let numbers: Vec<f64> = values.iter().filter_map(Value::as_number).collect();
    if numbers.len() != values.len() {
        let first = values.first()?.clone();
        return Some(if values.iter().all(|v| *v == first) {
            first
        } else {
            Value::Text("fail".to_owned())
        });
    }
    let mut sorted = numbers;
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    if n == 0 {
        return None;
    }
    let value = match how {
        Aggregate::Min => sorted[0],
        Aggregate::Max => sorted[n - 1],
        Aggregate::Mean => sorted.iter().sum::<f64>() / n as f64,
        Aggregate::P90 => sorted[((0.9 * n as f64).ceil() as usize).clamp(1, n) - 1],
        Aggregate::Median if n % 2 == 1 => sorted[n / 2],
        Aggregate::Median => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    };
    Some(Value::Number((value * 1000.0).round() / 1000.0))
}

/// `(max − min) / |aggregate|`, or `None` for words or a zero aggregate.
pub(crate) fn spread(values: &[Value], aggregate: &Value) -> Option<f64> {
    let Value::Number(center) = aggregate else {
        return None;
    };
    let numbers: Vec<f64> = values.iter().filter_map(Value::as_number).collect();
    let (min, max) = numbers
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(*v), hi.max(*v)));
    (numbers.len() > 1 && *center != 0.0).then(|| (max - min) / center.abs())
}

/// The `actual` text of a reading: the number with its unit (`742ms`, `12vp`, `4.9:1`).
pub fn actual(value: &Value, unit: Option<&str>) -> String {
    match value {
        Value::Text(text) => text.clone(),
        Value::Number(n) => {
            let number = format!("{n:.3}");
            let number = number.trim_end_matches('0').trim_end_matches('.');
            match unit {
                Some("ratio") => format!("{number}:1"),
                Some(unit) => format!("{number}{unit}"),
                None => number.to_owned(),
            }
        }
    }
}

#[cfg(test)]
mod tests;
