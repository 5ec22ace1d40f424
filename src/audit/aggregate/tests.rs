//! Tests of `crate::audit::aggregate`.

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
