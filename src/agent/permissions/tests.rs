//! Tests of `crate::agent::permissions`.

use super::*;

fn permission(text: &str) -> Value {
    let (plain, _) = strip(text);
    serde_json::from_str::<Value>(&plain).unwrap()["permission"].clone()
}

#[test]
fn a_new_file_and_a_merged_one() {
    let (fresh, dropped) = merge(None).unwrap();
    assert!(!dropped);
    assert_eq!(
        permission(&fresh),
        serde_json::json!({"edit": "allow", "doom_loop": "allow", "external_directory": "deny"})
    );
    let existing = "{\n  // the model\n  \"model\": \"deveco/glm-5\", /* keep */\n  \"permission\": { \"edit\": \"deny\", \"doom_loop\": \"ask\", \"bash\": \"allow\", },\n}\n";
    let (merged, dropped) = merge(Some(existing)).unwrap();
    assert!(dropped, "the user's comments could not be kept");
    let doc: Value = serde_json::from_str(&strip(&merged).0).unwrap();
    assert_eq!(doc["model"], "deveco/glm-5");
    assert_eq!(
        doc["permission"],
        serde_json::json!({"edit": "deny", "doom_loop": "allow", "bash": "allow", "external_directory": "deny"}),
        "an explicit choice stays; `ask` would hang"
    );
    assert!(merge(Some("[1]")).is_err());
    assert!(merge(Some("{\"permission\": 3}")).is_err());
    assert!(merge(Some("{ not json")).is_err());
    assert_eq!(
        strip("{\"url\": \"http://x//y\"}").0,
        "{\"url\": \"http://x//y\"}"
    );
    assert_eq!(
        strip("{\"a\": \"x,]\\\"y\", /* c */ }").0,
        "{\"a\": \"x,]\\\"y\"  }",
        "a comma inside a string stays; the one before the bracket goes"
    );
}
