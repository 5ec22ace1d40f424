//! Tests of `crate::recheck::diff`.

use super::*;
use serde_json::json;

#[test]
fn differences_are_named_by_path_and_lists_match_by_key() {
    let left = json!({"verdict": "fail", "checks": [
        {"criterionId": "A", "result": "fail"},
        {"criterionId": "B", "result": "pass", "runs": [1, 2]}
    ]});
    let right = json!({"verdict": "pass", "checks": [
        {"criterionId": "B", "result": "pass", "runs": [1, 3]}
    ], "extra": true});
    let paths: Vec<(String, Option<Value>, Option<Value>)> = differences(&left, &right)
        .into_iter()
        .map(|d| (d.path, d.left, d.right))
        .collect();
    assert_eq!(
        paths,
        vec![
            (
                "checks[A]".to_owned(),
                Some(json!({"criterionId": "A", "result": "fail"})),
                None
            ),
            (
                "checks[B].runs[1]".to_owned(),
                Some(json!(2)),
                Some(json!(3))
            ),
            (
                "verdict".to_owned(),
                Some(json!("fail")),
                Some(json!("pass"))
            ),
            ("extra".to_owned(), None, Some(json!(true))),
        ]
    );
    assert!(differences(&left, &left).is_empty());
}
