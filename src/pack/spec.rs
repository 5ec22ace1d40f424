//! `spec.md`: the frozen pack for people, rendered from the validated pack and written beside
//! the lock.

use serde::Serialize;

use crate::diagnostic::Diagnostic;

use std::path::{Path, PathBuf};

use crate::output::{PublishError, write_atomic};
use crate::template::render;

use super::lock::{Frozen, LOCK_FILE};
use super::model::Dimension;

/// What `templates/spec.md.hbs` renders.
#[derive(Debug, Serialize)]
pub(super) struct SpecView {
    bundle: String,
    ability: Option<String>,
    module: Option<String>,
    sha256: String,
    criteria_count: usize,
    dimensions: Vec<DimensionView>,
    flows: Vec<FlowView>,
    warnings: Vec<Diagnostic>,
}

/// A flow, a line per step.
#[derive(Debug, Serialize)]
pub(crate) struct FlowView {
    name: String,
    steps: Vec<String>,
}

impl FlowView {
    /// Every flow of `pack`, by name.
    pub(crate) fn all(pack: &super::Pack) -> Vec<FlowView> {
        pack.flows
            .values()
            .map(|f| FlowView {
                name: f.name.clone(),
                steps: f.lines(),
            })
            .collect()
    }
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
    pub(super) fn new(frozen: &Frozen) -> SpecView {
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
                            .map(|p| format!("`{}`: {}", p.kind.id, p.method())),
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
            flows: FlowView::all(pack),
            warnings: frozen.lock.diagnostics.clone(),
        }
    }
}

/// The spec's file name beside its lock.
pub const SPEC_FILE: &str = "spec.md";

impl Frozen {
    /// Writes `pack.lock.json` and `spec.md` into `dir`; returns their paths. The lock goes
    /// last: a lock on disk always has its spec beside it.
    pub(crate) fn write(&self, dir: &Path) -> Result<(PathBuf, PathBuf), PublishError> {
        let lock_path = dir.join(LOCK_FILE);
        let spec_path = dir.join(SPEC_FILE);
        let spec = render("spec.md", &SpecView::new(self))?;
        let lock_json = self.lock.to_json();
        write_atomic(&spec_path, spec.as_bytes())?;
        write_atomic(&lock_path, lock_json.as_bytes())?;
        Ok((lock_path, spec_path))
    }
}
