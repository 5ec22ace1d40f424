//! Two JSON documents compared field by field, each difference named by its path
//! (`checks[P-01].result`). Lists of checks, measurements and runs are matched by their
//! criterion or run, so a deleted check is one difference, not a shift of every later one.

use serde_json::Value;

/// One field that differs: where, and what each side holds (`None`: absent).
#[derive(Debug, PartialEq)]
pub(crate) struct FieldDifference {
    /// The field's path.
    pub(crate) path: String,
    /// What the first document holds.
    pub(crate) left: Option<Value>,
    /// What the second holds.
    pub(crate) right: Option<Value>,
}

/// Every field where `left` and `right` differ, in document order.
pub(crate) fn differences(left: &Value, right: &Value) -> Vec<FieldDifference> {
    let mut found = Vec::new();
    walk("", Some(left), Some(right), &mut found);
    found
}

/// The keys list elements are matched by, in order of preference.
const KEYS: [&str; 3] = ["criterionId", "criterion-id", "run"];

fn walk<'a>(
    path: &str,
    left: Option<&'a Value>,
    right: Option<&'a Value>,
    found: &mut Vec<FieldDifference>,
) {
    match (left, right) {
        (Some(Value::Object(a)), Some(Value::Object(b))) => {
            let mut keys: Vec<&String> = a.keys().collect();
            keys.extend(b.keys().filter(|k| !a.contains_key(*k)));
            for key in keys {
                let at = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                walk(&at, a.get(key), b.get(key), found);
            }
        }
        (Some(Value::Array(a)), Some(Value::Array(b))) => match key_of(a, b) {
            Some(key) => {
                let id = |v: &Value| v.get(key).map(label);
                let mut ids: Vec<String> = a.iter().filter_map(id).collect();
                ids.extend(
                    b.iter()
                        .filter_map(id)
                        .filter(|i| !a.iter().any(|v| id(v).as_ref() == Some(i))),
                );
                for i in ids {
                    let find = |list: &'a [Value]| list.iter().find(|v| id(v).as_ref() == Some(&i));
                    walk(&format!("{path}[{i}]"), find(a), find(b), found);
                }
            }
            None => {
                for i in 0..a.len().max(b.len()) {
                    walk(&format!("{path}[{i}]"), a.get(i), b.get(i), found);
                }
            }
        },
        (left, right) if left == right => {}
        (left, right) => found.push(FieldDifference {
            path: path.to_owned(),
            left: left.cloned(),
            right: right.cloned(),
        }),
    }
}

/// The key both lists' elements carry, each value once per list, if there is one.
fn key_of(a: &[Value], b: &[Value]) -> Option<&'static str> {
    KEYS.into_iter().find(|key| {
        [a, b].iter().all(|list| {
            let ids: Vec<String> = list.iter().filter_map(|v| v.get(*key).map(label)).collect();
            ids.len() == list.len() && {
                let mut unique = ids.clone();
                unique.sort();
                unique.dedup();
                unique.len() == ids.len()
            }
        }) && !(a.is_empty() && b.is_empty())
    })
}

fn label(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests;
