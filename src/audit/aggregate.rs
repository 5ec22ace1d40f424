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
mod tests {
    use super::*;

    fn numbers(values: &[f64]) -> Vec<Value> {
        values.iter().map(|v| Value::Number(*v)).collect()
    }

    #[test]
    fn aggregates_and_spreads() {
        let runs = numbers(&[760.0, 700.0, 720.0]);
        let rows = [
            (Aggregate::Median, 720.0),
            (Aggregate::Min, 700.0),
            (Aggregate::Max, 760.0),
            (Aggregate::Mean, 726.667),
            (Aggregate::P90, 760.0),
        ];
        for (how, expected) in rows {
            assert_eq!(
                aggregate(&runs, how),
                Some(Value::Number(expected)),
                "{how}"
            );
        }
        assert_eq!(
            aggregate(&numbers(&[1.0, 2.0, 3.0, 4.0]), Aggregate::Median),
            Some(Value::Number(2.5))
        );
        assert_eq!(
            spread(&runs, &Value::Number(720.0)).map(|s| (s * 1000.0).round()),
            Some(83.0)
        );
        assert_eq!(aggregate(&[], Aggregate::Median), None);
        let words = vec![Value::Text("pass".into()), Value::Text("fail".into())];
        assert_eq!(
            aggregate(&words, Aggregate::Median),
            Some(Value::Text("fail".into()))
        );
        assert_eq!(actual(&Value::Number(742.0), Some("ms")), "742ms");
        assert_eq!(actual(&Value::Number(4.9), Some("ratio")), "4.9:1");
        assert_eq!(actual(&Value::Number(12.308), Some("vp")), "12.308vp");
        assert_eq!(actual(&Value::Number(0.0), None), "0");
    }
}
