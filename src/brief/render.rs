//! The Goal brief and a repair brief, rendered from their views (handlebars templates).

use super::Failure;
use crate::config::Config;
use crate::pack::{FlowView, Frozen};
use crate::template::{RenderError, render};
use serde::Serialize;

/// How much failing output a repair brief quotes (its tail).
pub(super) const OUTPUT_TAIL_CHARS: usize = 6000;

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct GoalView {
    bundle: String,
    ability: Option<String>,
    module: Option<String>,
    workspace: String,
    sha256: String,
    review_note: Option<String>,
    criteria: Vec<CriterionView>,
    flows: Vec<FlowView>,
    commands: Vec<CommandView>,
}

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct CriterionView {
    id: String,
    dimension: &'static str,
    weight: &'static str,
    statement: String,
    assertion: Option<String>,
    probe: Option<&'static str>,
    measured_by: Option<String>,
    verify: String,
}

#[derive(Serialize)]
pub(super) struct CommandView {
    name: String,
    argv: String,
    timeout: String,
}

#[derive(Serialize)]
pub(super) struct RepairView {
    round: u32,
    bundle: String,
    workspace: String,
    sha256: String,
    failures: Vec<Failure>,
    output: Option<String>,
    source: String,
    incomplete: Option<String>,
}

pub(super) fn common(frozen: &Frozen, config: Option<&Config>) -> (String, String) {
    let workspace = config.map_or_else(|| ".".to_owned(), |c| crate::text::doc_path(&c.workspace));
    (frozen.pack.doc.app.bundle.value.clone(), workspace)
}

/// The Goal brief. `review_note` says when the pack's review did not complete.
pub(crate) fn goal(
    frozen: &Frozen,
    config: Option<&Config>,
    review_note: Option<String>,
) -> Result<String, RenderError> {
    let (bundle, workspace) = common(frozen, config);
    let app = &frozen.pack.doc.app;
    let view = GoalView {
        bundle,
        ability: app.ability.as_ref().map(|a| a.value.clone()),
        module: app.module.as_ref().map(|m| m.value.clone()),
        workspace,
        sha256: frozen.lock.sha256.clone(),
        review_note,
        criteria: frozen
            .pack
            .criteria
            .iter()
            .map(|c| {
                let measured = c.assertion.as_ref().and_then(|a| a.probe.as_ref());
                CriterionView {
                    id: c.id.clone(),
                    dimension: c.dimension.as_str(),
                    weight: c.weight.as_str(),
                    statement: c.statement.clone(),
                    assertion: c
                        .assertion
                        .as_ref()
                        .map(|a| format!("`{}` {}", a.matcher, a.assertion)),
                    probe: measured.map(|m| m.kind.id),
                    measured_by: measured.map(crate::pack::MeasuredBy::method),
                    verify: c
                        .verify
                        .clone()
                        .unwrap_or_else(|| "an auditor's check with evidence".to_owned()),
                }
            })
            .collect(),
        flows: FlowView::all(&frozen.pack),
        commands: config
            .map(|c| {
                c.verify
                    .iter()
                    .map(|v| CommandView {
                        name: v.name.clone(),
                        argv: shown_argv(&v.argv),
                        timeout: format!("{}s", v.timeout.as_secs()),
                    })
                    .collect()
            })
            .unwrap_or_default(),
    };
    render("goal-brief.md", &view)
}

/// A repair brief for round `round`: the failures and, quoted as untrusted, the output.
pub(crate) fn repair(
    frozen: &Frozen,
    config: Option<&Config>,
    round: u32,
    failures: Vec<Failure>,
    output: Option<(&str, &str)>,
    incomplete: Option<&str>,
) -> Result<String, RenderError> {
    let (bundle, workspace) = common(frozen, config);
    let (source, output) = match output {
        Some((source, text)) => (
            source.to_owned(),
            Some(fence_safe(&tail(text, OUTPUT_TAIL_CHARS))),
        ),
        None => (String::new(), None),
    };
    render(
        "repair-brief.md",
        &RepairView {
            round,
            bundle,
            workspace,
            sha256: frozen.lock.sha256.clone(),
            failures,
            output,
            source,
            incomplete: incomplete.map(str::to_owned),
        },
    )
}

/// An argv as a person would type it (arguments with spaces in single quotes); for reading only.
pub(super) fn shown_argv(argv: &[String]) -> String {
    argv.iter()
        .map(|a| {
            if a.contains(char::is_whitespace) {
                format!("'{a}'")
            } else {
                a.clone()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

pub(super) fn tail(text: &str, chars: usize) -> String {
    let count = text.chars().count();
    if count <= chars {
        return text.to_owned();
    }
    let kept: String = text.chars().skip(count - chars).collect();
    format!("[… {} earlier characters cut …]\n{kept}", count - chars)
}

/// Untrusted output must not be able to close its own block.
pub(super) fn fence_safe(text: &str) -> String {
    text.replace("</untrusted-tool-output", "<\\/untrusted-tool-output")
        .replace("<untrusted-tool-output", "<\\untrusted-tool-output")
}
