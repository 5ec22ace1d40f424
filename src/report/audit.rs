//! `audit-<n>.md`: an audit report for people, rendered through the embedded template from the
//! report itself and each measurement's runs, those that say the same thing named once.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::audit::DeviceState;
use crate::audit::{DeviceTime, folded};
use crate::schema::AuditReport;
use crate::template::{RenderError, render};

/// What `audit-<n>.md` is rendered from: the report, and each measurement's runs with those
/// that say the same thing named once.
#[derive(Serialize)]
struct MarkdownView<'a> {
    #[serde(flatten)]
    report: &'a AuditReport,
    /// By criterion: which runs read what.
    readings: BTreeMap<&'a str, Vec<Reading<'a>>>,
    /// The verdict in one line, as the page's banner says it.
    headline: String,
    /// How long the device was held, in words.
    device_time: Option<String>,
    /// The capture replayed, when the readings came from one.
    replayed: Option<String>,
    /// The device's state before its runs and after them, in words.
    state_before: Option<String>,
    state_after: Option<String>,
}

/// Runs (`runs 1–3`) and what they were read from.
#[derive(Serialize)]
struct Reading<'a> {
    runs: String,
    detail: &'a str,
}

impl<'a> MarkdownView<'a> {
    fn of(report: &'a AuditReport) -> Self {
        let readings = report
            .checks
            .iter()
            .flat_map(|c| &c.measurements)
            .map(|m| {
                let runs = folded(&m.runs)
                    .into_iter()
                    .map(|(runs, detail)| Reading { runs, detail })
                    .collect();
                (m.criterion_id.as_str(), runs)
            })
            .collect();
        MarkdownView {
            report,
            readings,
            headline: crate::report::headline::audit(report).text,
            device_time: report.device_time.as_ref().map(DeviceTime::summary),
            replayed: report
                .source
                .as_ref()
                .filter(|s| s.is_replay())
                .map(ToString::to_string),
            state_before: report.device_state.as_ref().map(|s| s.before.summary()),
            state_after: report
                .device_state
                .as_ref()
                .and_then(|s| s.after.as_ref())
                .map(DeviceState::summary),
        }
    }
}

/// The Markdown text of an audit report (`audit-<n>.md`).
pub fn markdown(report: &AuditReport) -> Result<String, RenderError> {
    render("audit.md", &MarkdownView::of(report))
}
