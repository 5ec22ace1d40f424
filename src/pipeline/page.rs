//! What a delivery publishes of itself: its ledger as the page's steps (each linked to what
//! it wrote, relative to the run folder), and its record with the host's path to a capture
//! replaced by the capture's name.

use super::Delivery;
use super::ledger::{Entry, Stage};
use super::run_dir::RunDir;
use crate::schema::DeliverReport;

impl Delivery<'_> {
    /// The run's ledger as its page shows it: every stage of every round, in order, each
    /// verification and audit linked to what it wrote (what cannot be read back is left
    /// out; the ledger itself is the record).
    pub(super) fn steps(&self, reports: &[String]) -> Vec<crate::report::html::Step> {
        let text = std::fs::read_to_string(super::ledger::ledger_path(self.run_dir.path()))
            .unwrap_or_default();
        let capture = self.capture();
        text.lines()
            .filter_map(|line| serde_json::from_str::<Entry>(line).ok())
            .map(|entry| crate::report::html::Step {
                stage: entry.stage.as_str(),
                round: entry.round,
                outcome: entry.outcome.word(),
                seconds: entry.duration_ms as f64 / 1000.0,
                link: entry
                    .round
                    .and_then(|r| self.written_by(entry.stage, r, reports)),
                reason: entry
                    .reason
                    .map(|r| crate::text::unhosted(&r, capture.as_deref())),
            })
            .collect()
    }

    /// What a round's stage wrote, relative to the run folder: a verification's report, an
    /// audit's page (its lab's), else its folder when it stopped short of a page.
    fn written_by(&self, stage: Stage, round: u32, reports: &[String]) -> Option<String> {
        match stage {
            // The receipt, wherever the review kept it (the reviews folder beside the runs).
            Stage::Review => reports
                .iter()
                .find(|r| r.starts_with("../") && r.contains("/reviews/"))
                .cloned(),
            Stage::Verify => {
                let name = RunDir::verify_name(round);
                self.run_dir.path().join(&name).is_file().then_some(name)
            }
            Stage::Audit => {
                let folder = format!("audit-round-{}", round + 1);
                let page = reports.iter().find(|r| {
                    r.starts_with(&folder)
                        && (r.ends_with("/report.html") || r.ends_with("/lab.html"))
                });
                match page {
                    Some(page) => Some(page.clone()),
                    None => self
                        .run_dir
                        .path()
                        .join(&folder)
                        .is_dir()
                        .then(|| format!("{folder}/")),
                }
            }
            _ => None,
        }
    }

    /// The capture a replayed delivery measures, as the host names it (never published).
    fn capture(&self) -> Option<std::path::PathBuf> {
        match self.target {
            crate::target::Target::Replay { capture, .. } => Some(capture.clone()),
            _ => None,
        }
    }

    /// The record as it is published: the host's path to the capture replaced by the
    /// capture's name wherever a message quoted it.
    pub(super) fn published(&self, report: &mut DeliverReport) {
        let capture = self.capture();
        if let Some(detail) = &report.detail {
            report.detail = Some(crate::text::unhosted(detail, capture.as_deref()));
        }
    }
}
