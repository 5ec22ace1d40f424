//! `ab-lab.json`: a lab's A/B sessions as a criterion × device matrix, each device compared
//! with itself — the candidate against the pack, against the baseline, and every criterion's
//! regression verdict with its delta.

use serde::{Deserialize, Serialize};

use crate::gate::Verdict;

use super::{AbRecord, Comparison, LabVerdict, Regression, Restored, UnreachableServer};

/// One criterion on one device.
#[derive(schemars::JsonSchema, Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct AbCell {
    /// The criterion.
    pub criterion_id: String,
    /// Its regression verdict.
    pub verdict: Regression,
    /// Candidate median minus baseline median, in the unit.
    pub delta: Option<f64>,
    /// The delta as a percentage of the baseline median.
    pub delta_pct: Option<f64>,
    /// The unit.
    pub unit: Option<String>,
    /// The criterion's statement (optional, no format change).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub statement: Option<String>,
    /// The device time both arms' runs of it took, in seconds (optional, no format change).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_seconds: Option<f64>,
}

/// One device's column.
#[derive(schemars::JsonSchema, Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct AbColumn {
    /// Its connect key.
    pub serial: String,
    /// Its session's folder, relative to the matrix.
    pub folder: String,
    /// The candidate against the pack (absent when the session stopped).
    pub absolute: Option<Verdict>,
    /// The candidate against the baseline (absent when the session stopped).
    pub regression: Option<Regression>,
    /// Every criterion compared.
    pub criteria: Vec<AbCell>,
    /// What the device was left with.
    pub left_installed: Option<Restored>,
    /// Why the session stopped.
    pub error: Option<String>,
    /// What of the session the history could not record, and why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unrecorded: Option<String>,
}

impl AbColumn {
    /// A device's finished session: its record and comparison.
    pub(crate) fn of(
        serial: &str,
        folder: &str,
        record: &AbRecord,
        comparison: &Comparison,
    ) -> AbColumn {
        AbColumn {
            serial: serial.to_owned(),
            folder: folder.to_owned(),
            absolute: Some(record.absolute),
            regression: Some(record.regression),
            criteria: comparison
                .criteria
                .iter()
                .map(|c| AbCell {
                    criterion_id: c.criterion_id.clone(),
                    verdict: c.verdict,
                    delta: c.delta,
                    delta_pct: c.delta_pct,
                    unit: c.unit.clone(),
                    statement: c.statement.clone(),
                    device_seconds: c.device_seconds,
                })
                .collect(),
            left_installed: Some(record.left_installed.clone()),
            error: None,
            unrecorded: record.unrecorded.clone(),
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
            unrecorded: None,
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
#[derive(schemars::JsonSchema, Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct AbLabReport {
    /// 1.
    pub format_version: u32,
    /// The dwpipe that ran the sessions.
    pub dwpipe_version: String,
    /// `pass` when every device's candidate passed and did not regress, `fail` when one did
    /// not, `incomplete` when none failed but a session stopped.
    pub verdict: LabVerdict,
    /// The devices, in the roster's order.
    pub devices: Vec<AbColumn>,
    /// The hdc servers that did not answer, and why: their devices are in no column.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unreachable: Vec<UnreachableServer>,
    /// The two builds compared, baseline first (optional, no format change).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub builds: Vec<BuiltArm>,
}

/// A build of the session: its HAP's name, its SHA-256 and its version.
#[derive(schemars::JsonSchema, Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct BuiltArm {
    /// `baseline` or `candidate`.
    pub arm: super::Arm,
    /// Its HAP's file name.
    pub hap: String,
    /// Its SHA-256.
    pub sha256: String,
    /// Its version, as the HAP names it.
    pub version: super::BuildVersion,
}

impl AbLabReport {
    /// The matrix of the devices' columns, and the servers that did not answer (whose devices
    /// were not shown to pass).
    pub(crate) fn new(
        devices: Vec<AbColumn>,
        unreachable: Vec<UnreachableServer>,
        builds: Vec<BuiltArm>,
    ) -> AbLabReport {
        let outcomes: Vec<Option<bool>> = devices.iter().map(AbColumn::passed).collect();
        let verdict = if outcomes.contains(&Some(false)) {
            LabVerdict::Fail
        } else if outcomes.is_empty()
            || outcomes.contains(&None)
            || !unreachable.is_empty()
            || devices.iter().any(|d| d.unrecorded.is_some())
        {
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
            builds,
        }
    }
}
