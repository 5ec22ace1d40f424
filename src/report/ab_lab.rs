//! `ab-lab.json` and `ab-lab.md`: a lab's A/B sessions as a criterion × device matrix, each
//! device compared with itself — the candidate against the pack, against the baseline, and
//! every criterion's regression verdict with its delta.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::ab::{AbSession, Restored};
use crate::compare::Regression;
use crate::gate::Verdict;
use crate::output::{WriteError, write_atomic};

use super::{LabVerdict, UnreachableServer};

/// One criterion on one device.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct AbCell {
    /// The criterion.
    pub(crate) criterion_id: String,
    /// Its regression verdict.
    pub(crate) verdict: Regression,
    /// Candidate median minus baseline median, in the unit.
    pub(crate) delta: Option<f64>,
    /// The delta as a percentage of the baseline median.
    pub(crate) delta_pct: Option<f64>,
    /// The unit.
    pub(crate) unit: Option<String>,
}

/// One device's column.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct AbColumn {
    /// Its connect key.
    pub(crate) serial: String,
    /// Its session's folder, relative to the matrix.
    pub(crate) folder: String,
    /// The candidate against the pack (absent when the session stopped).
    pub(crate) absolute: Option<Verdict>,
    /// The candidate against the baseline (absent when the session stopped).
    pub(crate) regression: Option<Regression>,
    /// Every criterion compared.
    pub(crate) criteria: Vec<AbCell>,
    /// What the device was left with.
    pub(crate) left_installed: Option<Restored>,
    /// Why the session stopped.
    pub(crate) error: Option<String>,
}

impl AbColumn {
    /// A device's finished session.
    pub(crate) fn of(serial: &str, folder: &str, session: &AbSession) -> AbColumn {
        AbColumn {
            serial: serial.to_owned(),
            folder: folder.to_owned(),
            absolute: Some(session.record.absolute),
            regression: Some(session.record.regression),
            criteria: session
                .comparison
                .criteria
                .iter()
                .map(|c| AbCell {
                    criterion_id: c.criterion_id.clone(),
                    verdict: c.verdict,
                    delta: c.delta,
                    delta_pct: c.delta_pct,
                    unit: c.unit.clone(),
                })
                .collect(),
            left_installed: Some(session.record.left_installed.clone()),
            error: None,
        }
    }

    /// A device whose session stopped, and why.
    pub(crate) fn stopped(serial: &str, folder: &str, error: String) -> AbColumn {
        AbColumn {
            serial: serial.to_owned(),
            folder: folder.to_owned(),
            absolute: None,
            regression: None,
            criteria: Vec::new(),
            left_installed: None,
            error: Some(error),
        }
    }

    fn passed(&self) -> Option<bool> {
        Some(
            self.absolute? == Verdict::Pass
                && matches!(self.regression?, Regression::Same | Regression::Improved),
        )
    }
}

/// `ab-lab.json`.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct AbLabReport {
    /// 1.
    pub(crate) format_version: u32,
    /// The dwpipe that ran the sessions.
    pub(crate) dwpipe_version: String,
    /// `pass` when every device's candidate passed and did not regress, `fail` when one did
    /// not, `incomplete` when none failed but a session stopped.
    pub(crate) verdict: LabVerdict,
    /// The devices, in the roster's order.
    pub(crate) devices: Vec<AbColumn>,
    /// The hdc servers that did not answer, and why: their devices are in no column.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) unreachable: Vec<UnreachableServer>,
}

impl AbLabReport {
    /// The matrix of the devices' columns, and the servers that did not answer (whose devices
    /// were not shown to pass).
    pub(crate) fn new(devices: Vec<AbColumn>, unreachable: Vec<UnreachableServer>) -> AbLabReport {
        let outcomes: Vec<Option<bool>> = devices.iter().map(AbColumn::passed).collect();
        let verdict = if outcomes.contains(&Some(false)) {
            LabVerdict::Fail
        } else if outcomes.is_empty() || outcomes.contains(&None) || !unreachable.is_empty() {
            LabVerdict::Incomplete
        } else {
            LabVerdict::Pass
        };
        AbLabReport {
            format_version: crate::format::AB_LAB,
            dwpipe_version: env!("CARGO_PKG_VERSION").to_owned(),
            verdict,
            devices,
            unreachable,
        }
    }

    /// The matrix as text rows: the header, the two verdicts, then every criterion.
    pub(crate) fn rows(&self) -> Vec<Vec<String>> {
        let mut rows = vec![
            std::iter::once("criterion".to_owned())
                .chain(self.devices.iter().map(|d| d.serial.clone()))
                .collect(),
            std::iter::once("against the pack".to_owned())
                .chain(self.devices.iter().map(|d| {
                    d.absolute
                        .map_or_else(|| "stopped".to_owned(), |v| v.as_str().to_owned())
                }))
                .collect(),
            std::iter::once("against the baseline".to_owned())
                .chain(self.devices.iter().map(|d| {
                    d.regression
                        .map_or_else(|| "stopped".to_owned(), |v| v.as_str().to_owned())
                }))
                .collect::<Vec<String>>(),
        ];
        let mut ids: Vec<&str> = Vec::new();
        for cell in self.devices.iter().flat_map(|d| &d.criteria) {
            if !ids.contains(&cell.criterion_id.as_str()) {
                ids.push(&cell.criterion_id);
            }
        }
        for id in ids {
            let mut row = vec![id.to_owned()];
            for device in &self.devices {
                row.push(
                    device
                        .criteria
                        .iter()
                        .find(|c| c.criterion_id == id)
                        .map_or_else(|| "—".to_owned(), cell_text),
                );
            }
            rows.push(row);
        }
        rows
    }

    /// Writes `ab-lab.json` and `ab-lab.md` into `out`; returns their paths.
    pub(crate) fn publish(&self, out: &Path) -> Result<Vec<PathBuf>, WriteError> {
        let json = serde_json::to_vec_pretty(self).expect("the matrix always serializes");
        let mut paths = Vec::new();
        for (name, bytes) in [
            ("ab-lab.json", json),
            ("ab-lab.md", self.markdown().into_bytes()),
        ] {
            let path = out.join(name);
            write_atomic(&path, &bytes)?;
            paths.push(path);
        }
        Ok(paths)
    }

    fn markdown(&self) -> String {
        let rows = self.rows();
        let mut md = format!("# Same-device A/B: {}\n\n", self.verdict.as_str());
        for (i, row) in rows.iter().enumerate() {
            let _ = writeln!(md, "| {} |", row.join(" | "));
            if i == 0 {
                let _ = writeln!(md, "|{}", "---|".repeat(row.len()));
            }
        }
        md.push('\n');
        for device in &self.devices {
            match &device.error {
                Some(error) => {
                    let _ = writeln!(md, "- `{}` stopped: {error}", device.serial);
                }
                None => {
                    let _ = writeln!(
                        md,
                        "- `{}`: [comparison]({}/compare.md), [session]({}/ab.json)",
                        device.serial, device.folder, device.folder
                    );
                }
            }
        }
        for down in &self.unreachable {
            let _ = writeln!(
                md,
                "- hdc server `{}` did not answer (its devices were not compared): {}",
                down.server, down.reason
            );
        }
        md
    }
}

/// `regressed +69ms (+9.8%)`.
fn cell_text(cell: &AbCell) -> String {
    let unit = cell.unit.as_deref().unwrap_or("");
    match (cell.delta, cell.delta_pct) {
        (Some(delta), Some(pct)) => format!("{} {delta:+.1}{unit} ({pct:+.1}%)", cell.verdict),
        (Some(delta), None) => format!("{} {delta:+.1}{unit}", cell.verdict),
        _ => cell.verdict.as_str().to_owned(),
    }
}
