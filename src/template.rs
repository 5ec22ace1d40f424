//! The files embedded from `templates/`: Handlebars templates, rendered in strict mode (a
//! missing field is an error instead of an empty string; the output is Markdown, not HTML, so
//! escaping writes only control characters as escapes), and the files `dwpipe init` writes.

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

/// The example pack `dwpipe init` writes: `examples/notes/pack.yaml`, then [`INIT_STABILITY`].
pub(crate) const INIT_PACK: &str = include_str!("../examples/notes/pack.yaml");
/// The criterion `dwpipe init` adds to the example pack's: no crash or freeze while audited
/// (the bundled example's recorded captures were made without it).
pub(crate) const INIT_STABILITY: &str = include_str!("../templates/init/stability.yaml");
/// `dwpipe init --preset appanalyzer`: Huawei's AppAnalyzer and DevEco Testing bands.
pub(crate) const INIT_APPANALYZER: &str = include_str!("../templates/init/appanalyzer.yaml");

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

    use crate::text::{CELL, LINE, markdown_cell};

    // A Markdown table cell or a sentence in a list: one line (a newline would end the row,
    // a control character is written as its escape), text that stays text (`<`, `&`, `|`
    // escaped), at most a few hundred characters.
    handlebars_helper!(cell: |text: str| markdown_cell(text, LINE));
    // A name a device or a server gave: as a cell, at most a column's width.
    handlebars_helper!(short: |text: str| markdown_cell(text, CELL));
}

static REGISTRY: LazyLock<Handlebars<'static>> = LazyLock::new(|| {
    let mut registry = Handlebars::new();
    registry.set_strict_mode(true);
    // Markdown, not HTML: nothing is escaped but the control characters a device or a file
    // may have put in a value (a report is read in terminals too).
    registry.register_escape_fn(|text| crate::text::without_controls(text).into_owned());
    registry.register_helper("cell", Box::new(helpers::cell));
    registry.register_helper("short", Box::new(helpers::short));
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
mod tests;
