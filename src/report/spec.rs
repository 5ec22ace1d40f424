//! `spec.md`: the frozen pack for people, rendered from the validated pack.

use serde::Serialize;

use crate::diagnostic::Diagnostic;
use crate::pack::{Dimension, Frozen};

/// What `templates/spec.md.hbs` renders.
#[derive(Debug, Serialize)]
pub struct SpecView {
    bundle: String,
    ability: Option<String>,
    module: Option<String>,
    sha256: String,
    criteria_count: usize,
    dimensions: Vec<DimensionView>,
    warnings: Vec<Diagnostic>,
}

#[derive(Debug, Serialize)]
struct DimensionView {
    name: &'static str,
    criteria: Vec<CriterionView>,
}

#[derive(Debug, Serialize)]
struct CriterionView {
    id: String,
    weight: &'static str,
    statement: String,
    verify: Option<String>,
    rule_id: Option<String>,
    assertion: Option<String>,
    source: Option<String>,
    probe: Option<String>,
}

impl SpecView {
    /// The view of a frozen pack.
    pub fn new(frozen: &Frozen) -> SpecView {
        let pack = &frozen.pack;
        let dimensions = Dimension::ALL
            .iter()
            .map(|&dimension| DimensionView {
                name: dimension.as_str(),
                criteria: pack
                    .criteria
                    .iter()
                    .filter(|c| c.dimension == dimension)
                    .map(|c| CriterionView {
                        id: c.id.clone(),
                        weight: c.weight.as_str(),
                        statement: c.statement.clone(),
                        verify: c.verify.clone(),
                        rule_id: c.rule_id.clone(),
                        assertion: c
                            .assertion
                            .as_ref()
                            .map(|a| format!("`{}` {}", a.matcher, a.assertion)),
                        source: c.assertion.as_ref().and_then(|a| a.source.clone()),
                        probe: c
                            .assertion
                            .as_ref()
                            .and_then(|a| a.probe.as_ref())
                            .map(|p| format!("`{}`: {}", p.kind.id, p.kind.method)),
                    })
                    .collect(),
            })
            .collect();
        SpecView {
            bundle: pack.doc.app.bundle.value.clone(),
            ability: pack.doc.app.ability.as_ref().map(|a| a.value.clone()),
            module: pack.doc.app.module.as_ref().map(|m| m.value.clone()),
            sha256: frozen.lock.sha256.clone(),
            criteria_count: pack.criteria.len(),
            dimensions,
            warnings: frozen.lock.diagnostics.clone(),
        }
    }
}
