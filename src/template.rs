//! The files embedded from `templates/`: Handlebars templates, rendered in strict mode (a
//! missing field is an error instead of an empty string; escaping is off because the output is
//! Markdown, not HTML), and the files `dwpipe init` writes.

use std::sync::LazyLock;

use handlebars::Handlebars;
use serde::Serialize;

/// A template failed to render (a bug in dwpipe, never a user error).
#[derive(Debug, thiserror::Error)]
#[error("cannot render template `{template}`")]
pub struct RenderError {
    template: &'static str,
    #[source]
    source: Box<handlebars::RenderError>,
}

/// The commented config `dwpipe init` writes.
pub(crate) const INIT_CONFIG: &str = include_str!("../templates/init/dwpipe.yaml");

/// The example pack `dwpipe init` writes, the same file as `examples/notes/pack.yaml`.
pub(crate) const INIT_PACK: &str = include_str!("../examples/notes/pack.yaml");

const TEMPLATES: &[(&str, &str)] = &[
    ("spec.md", include_str!("../templates/spec.md.hbs")),
    ("audit.md", include_str!("../templates/audit.md.hbs")),
    ("review.md", include_str!("../templates/review.md.hbs")),
    ("lab.md", include_str!("../templates/lab.md.hbs")),
    (
        "goal-brief.md",
        include_str!("../templates/goal-brief.md.hbs"),
    ),
    (
        "repair-brief.md",
        include_str!("../templates/repair-brief.md.hbs"),
    ),
];

/// Helpers the templates call.
mod helpers {
    use handlebars::handlebars_helper;

    // A Markdown table cell: a `|` would end the cell and a newline the row.
    handlebars_helper!(cell: |text: str| text.replace('|', "\\|").replace(['\r', '\n'], " "));
}

static REGISTRY: LazyLock<Handlebars<'static>> = LazyLock::new(|| {
    let mut registry = Handlebars::new();
    registry.set_strict_mode(true);
    registry.register_escape_fn(handlebars::no_escape);
    registry.register_helper("cell", Box::new(helpers::cell));
    for (name, text) in TEMPLATES {
        registry
            .register_template_string(name, *text)
            .unwrap_or_else(|e| panic!("embedded template {name} does not parse: {e}"));
    }
    registry
});

/// Renders an embedded template.
pub fn render(template: &'static str, data: &impl Serialize) -> Result<String, RenderError> {
    let mut text = REGISTRY
        .render(template, data)
        .map_err(|source| RenderError {
            template,
            source: Box::new(source),
        })?;
    if !text.ends_with('\n') {
        text.push('\n');
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
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
}
