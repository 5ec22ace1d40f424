//! Tests of `crate::template`.

use super::*;

#[test]
fn every_embedded_template_parses() {
    assert_eq!(REGISTRY.get_templates().len(), TEMPLATES.len());
}

#[test]
fn strict_mode_refuses_missing_fields() {
    let error = render("audit.md", &serde_json::json!({})).unwrap_err();
    assert!(error.to_string().contains("audit.md"), "{error}");
}
