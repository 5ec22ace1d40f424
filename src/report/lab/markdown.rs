//! The lab matrix as Markdown.

use crate::schema::{LabReport, UnreachableServer};
use crate::template::{RenderError, render};
use serde::Serialize;

/// What `lab.md` renders: the matrix, each cell as `LabRow::shown` words it.
#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct MarkdownView<'a> {
    #[serde(flatten)]
    report: &'a LabReport,
    shown: Vec<ShownRow<'a>>,
    /// Always there (the report leaves an empty list out).
    servers_down: &'a [UnreachableServer],
}

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct ShownRow<'a> {
    criterion_id: &'a str,
    dimension: &'a str,
    weight: &'a str,
    cells: Vec<String>,
}

impl<'a> MarkdownView<'a> {
    fn of(report: &'a LabReport) -> MarkdownView<'a> {
        let shown = report
            .rows
            .iter()
            .map(|row| ShownRow {
                criterion_id: &row.criterion_id,
                dimension: &row.dimension,
                weight: &row.weight,
                cells: (0..report.devices.len()).map(|i| row.shown(i)).collect(),
            })
            .collect();
        MarkdownView {
            report,
            shown,
            servers_down: &report.unreachable,
        }
    }
}

/// The Markdown text of a lab's matrix (`lab.md`).
pub(crate) fn markdown(report: &LabReport) -> Result<String, RenderError> {
    render("lab.md", &MarkdownView::of(report))
}
