//! `lab.json`: the criterion × device matrix of a lab audit, built from each device's report or
//! from why it has none, and the lab's verdict.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::gate::{CheckOutcome, CheckResult, Verdict};
use crate::pack::Frozen;
use crate::words::words;

use super::AuditReport;

words! {
    /// The lab's verdict.
    pub enum LabVerdict {
        /// Every device passed.
        Pass = "pass",
        /// A device failed.
        Fail = "fail",
        /// None failed, but one could not be audited (or there was none), or its audit was
        /// not recorded in the history.
        Incomplete = "incomplete",
    }
}

words! {
    /// A device's verdict in the matrix.
    pub enum DeviceVerdict {
        /// Its audit passed.
        Pass = "pass",
        /// Its audit failed.
        Fail = "fail",
        /// It has no report (unreachable, vanished), or one that is no evidence (its lease was
        /// lost during its audit).
        Error = "error",
        /// It did not meet a precondition on its state, or its server lists it but it cannot
        /// be driven (offline, unauthorized): nothing was measured.
        NotMeasured = "not-measured",
    }
}

words! {
    /// One cell: a criterion's result on a device.
    pub enum Cell {
        /// The check passed.
        Pass = "pass",
        /// The check failed.
        Fail = "fail",
        /// Nobody could tell.
        Unverified = "unverified",
        /// The device has no report, or the report no check for the criterion.
        NoReport = "-",
    }
}

impl Cell {
    fn of(result: CheckResult) -> Cell {
        match result {
            CheckResult::Pass => Cell::Pass,
            CheckResult::Fail => Cell::Fail,
            CheckResult::Unverified => Cell::Unverified,
        }
    }
}

/// `lab.json`: the criterion × device matrix.
#[derive(schemars::JsonSchema, Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct LabReport {
    /// Schema version.
    pub format_version: u32,
    /// The lock every device was held against.
    pub pack_sha256: String,
    /// `pass` when every device passed (with `need`: when that many passed); `fail` when
    /// one failed; `incomplete` when none failed but one could not be audited (with `need`:
    /// when fewer than that many passed).
    pub verdict: LabVerdict,
    /// How many devices had to pass (`--need`), when the lab said (optional: absent, every
    /// device had to).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub need: Option<u32>,
    /// The devices, in the lab's order.
    pub devices: Vec<LabDevice>,
    /// One row per criterion, its results in the devices' order.
    pub rows: Vec<LabRow>,
    /// The hdc servers that did not answer, and why: their devices are in no column.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unreachable: Vec<UnreachableServer>,
}

/// An hdc server the lab could not list.
#[derive(schemars::JsonSchema, Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct UnreachableServer {
    /// `HOST:PORT`, or `local`.
    pub server: String,
    /// Why, in words.
    pub reason: String,
}

impl UnreachableServer {
    /// The servers a roster could not list, in words.
    pub(crate) fn all(unreachable: &[(String, crate::device::DeviceError)]) -> Vec<Self> {
        unreachable
            .iter()
            .map(|(server, e)| UnreachableServer {
                server: server.clone(),
                reason: crate::diagnostic::chain(e),
            })
            .collect()
    }
}

/// A device's column.
#[derive(schemars::JsonSchema, Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct LabDevice {
    /// Its connect key.
    pub serial: String,
    /// Its hdc server (`local` for the local one).
    pub server: String,
    /// Its model, as it reported it (`null` without a report).
    #[serde(default)]
    pub model: Option<String>,
    /// Its software version.
    #[serde(default)]
    pub software_version: Option<String>,
    /// Its verdict.
    pub verdict: DeviceVerdict,
    /// Why it has no report.
    pub error: Option<String>,
    /// Its report, relative to the lab's folder.
    pub report: Option<String>,
    /// What the history could not record of its audit, and why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unrecorded: Option<String>,
    /// How a foldable was folded as its audit began: one foldable audited in each state is a
    /// column each (absent for a phone that does not fold).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fold: Option<String>,
    /// Its audit's outcome as its own page says it, when that says more than the verdict:
    /// `pass with warnings (2 warning(s): W_MEASUREMENT_UNSTABLE)`, `unverified (3 criteria
    /// could not be measured)` (optional, no format change).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<String>,
}

/// A column's name: the connect key, and the fold state a foldable was audited in.
fn column_name(serial: &str, fold: Option<&str>) -> String {
    match fold {
        Some(fold) => format!("{serial} ({fold})"),
        None => serial.to_owned(),
    }
}

impl LabDevice {
    /// The column's name: its connect key, and the fold state it was audited in.
    pub fn name(&self) -> String {
        column_name(&self.serial, self.fold.as_deref())
    }

    /// Its outcome in words: what its audit's page says (a pass with warnings, an audit that
    /// could not measure), else its verdict.
    pub(crate) fn said(&self) -> &str {
        self.outcome.as_deref().unwrap_or(self.verdict.as_str())
    }

    /// Whether its audit failed only by what it could not measure (`unverified`, as its page
    /// says): not counted among the devices that failed.
    pub(crate) fn unverified(&self) -> bool {
        self.verdict == DeviceVerdict::Fail
            && self
                .outcome
                .as_deref()
                .is_some_and(|o| o.starts_with("unverified"))
    }

    /// Its outcome's tone, as a CSS class: a pass with warnings or an unmeasured audit is
    /// never the plain green of a pass, nor the red of a product failure.
    pub(crate) fn class(&self) -> &'static str {
        match (&self.outcome, self.verdict) {
            (Some(_), _) => "amber",
            (None, DeviceVerdict::Pass) => "pass",
            (None, DeviceVerdict::Fail) => "fail",
            (None, DeviceVerdict::Error) => "error",
            (None, DeviceVerdict::NotMeasured) => "not-measured",
        }
    }
}

/// A criterion's row.
#[derive(schemars::JsonSchema, Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct LabRow {
    /// The criterion.
    pub criterion_id: String,
    /// Its dimension.
    pub dimension: String,
    /// must or should.
    pub weight: String,
    /// Its result on each device, in the devices' order.
    pub results: Vec<Cell>,
    /// What each device measured (`612ms`), or why it could not tell, in the devices' order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<Option<String>>,
}

impl LabRow {
    /// A cell as the matrix shows it: its result, with what was measured or why not.
    pub(crate) fn shown(&self, device: usize) -> String {
        let result = self.results.get(device).map_or("-", |r| r.as_str());
        match self.details.get(device).and_then(Option::as_deref) {
            // A pass/fail probe's actual is the result itself.
            Some(detail) if detail != result => format!("{result} ({detail})"),
            _ => result.to_owned(),
        }
    }
}

/// One device of the matrix as the lab audited it.
#[derive(Debug)]
pub(crate) struct Column<'a> {
    /// Its connect key.
    pub serial: &'a str,
    /// Its server, `local` or `HOST:PORT`.
    pub server: String,
    /// Its report and where it is (relative to the lab's folder), or why it has none.
    pub outcome: Result<(&'a AuditReport, String), String>,
    /// Listed by its server but not one dwpipe can drive (offline, unauthorized): not
    /// measured, never left out.
    pub absent: bool,
}

impl Column<'_> {
    fn device(&self) -> Option<&crate::device::DeviceInfo> {
        self.outcome.as_ref().ok()?.0.device.as_ref()
    }

    /// The fold state its audit found the device in before its runs.
    pub(crate) fn fold(&self) -> Option<String> {
        let (report, _) = self.outcome.as_ref().ok()?;
        report.device_state.as_ref()?.before.fold.clone()
    }

    /// The column's name: its connect key, and the fold state it was audited in.
    pub(crate) fn name(&self) -> String {
        column_name(self.serial, self.fold().as_deref())
    }
}

/// A row's head: the criterion it is about.
#[derive(Clone, Debug)]
pub(crate) struct RowHead {
    /// The criterion.
    pub id: String,
    /// Its dimension.
    pub dimension: String,
    /// must or should.
    pub weight: String,
}

impl RowHead {
    /// The heads of a lock's criteria, in its order.
    pub(crate) fn of(frozen: &Frozen) -> Vec<RowHead> {
        frozen
            .pack
            .criteria
            .iter()
            .map(|c| RowHead {
                id: c.id.clone(),
                dimension: c.dimension.as_str().to_owned(),
                weight: c.weight.as_str().to_owned(),
            })
            .collect()
    }
}

impl LabReport {
    /// The columns of the devices of `verdict` (with `unverified`, those whose audit only
    /// could not measure; without it, the others), each name one bounded line: what banners
    /// and the terminal name.
    pub(crate) fn named(&self, verdict: DeviceVerdict, unverified: bool) -> Vec<String> {
        self.devices
            .iter()
            .filter(|d| d.verdict == verdict && d.unverified() == unverified)
            .map(|d| crate::text::one_line(&d.name(), crate::text::CELL).into_owned())
            .collect()
    }

    /// The matrix of these columns; `unreachable`: the servers that did not answer.
    pub(crate) fn new(
        frozen: &Frozen,
        columns: &[Column<'_>],
        unreachable: Vec<UnreachableServer>,
        need: Option<u32>,
    ) -> LabReport {
        LabReport::of(
            (&frozen.lock.sha256, &RowHead::of(frozen)),
            columns,
            unreachable,
            need,
        )
    }

    /// The matrix of these columns against the pack with this hash and these criteria.
    pub(crate) fn of(
        (pack_sha256, criteria): (&str, &[RowHead]),
        columns: &[Column<'_>],
        unreachable: Vec<UnreachableServer>,
        need: Option<u32>,
    ) -> LabReport {
        let devices: Vec<LabDevice> = columns
            .iter()
            .map(|column| LabDevice {
                serial: column.serial.to_owned(),
                server: column.server.clone(),
                model: column.device().and_then(|d| d.model.clone()),
                software_version: column.device().and_then(|d| d.software_version.clone()),
                verdict: match &column.outcome {
                    Ok((report, _)) if report.not_audited() => DeviceVerdict::NotMeasured,
                    Ok((report, _)) if report.lease_lost().is_some() => DeviceVerdict::Error,
                    Ok((report, _)) if report.verdict == Verdict::Pass => DeviceVerdict::Pass,
                    Ok(_) => DeviceVerdict::Fail,
                    Err(_) if column.absent => DeviceVerdict::NotMeasured,
                    Err(_) => DeviceVerdict::Error,
                },
                error: match &column.outcome {
                    Err(e) => Some(e.clone()),
                    Ok((report, _)) => report
                        .lease_lost()
                        .map(|why| format!("its lease was lost {why}")),
                },
                report: column.outcome.as_ref().ok().map(|(_, path)| path.clone()),
                unrecorded: column
                    .outcome
                    .as_ref()
                    .ok()
                    .and_then(|(report, _)| report.unrecorded.clone()),
                fold: column.fold(),
                outcome: column
                    .outcome
                    .as_ref()
                    .ok()
                    .and_then(|(report, _)| report.outcome()),
            })
            .collect();
        let rows = criteria
            .iter()
            .map(|criterion| {
                // Each device's check of the criterion, found once for its result and detail.
                let checks: Vec<Option<&CheckOutcome>> = columns
                    .iter()
                    .map(|column| {
                        let (report, _) = column.outcome.as_ref().ok()?;
                        report
                            .checks
                            .iter()
                            .find(|c| c.check.criterion_id == criterion.id)
                            .map(|c| &c.check)
                    })
                    .collect();
                LabRow {
                    criterion_id: criterion.id.clone(),
                    dimension: criterion.dimension.clone(),
                    weight: criterion.weight.clone(),
                    results: checks
                        .iter()
                        .map(|c| c.map_or(Cell::NoReport, |c| Cell::of(c.result)))
                        .collect(),
                    details: checks
                        .iter()
                        .map(|c| {
                            let c = (*c)?;
                            match c.result {
                                // Why it could not tell: the reason, else the check's evidence.
                                CheckResult::Unverified => c
                                    .reason
                                    .clone()
                                    .or_else(|| Some(c.evidence.clone()).filter(|e| !e.is_empty())),
                                _ => c.actual.clone(),
                            }
                        })
                        .collect(),
                }
            })
            .collect();
        LabReport {
            format_version: crate::format::LAB,
            pack_sha256: pack_sha256.to_owned(),
            verdict: verdict_of(&devices, &unreachable, need),
            need,
            devices,
            rows,
            unreachable,
        }
    }

    /// A criterion's results across the lab in a few words: `pass` when every device passed,
    /// else who did what (`fail on LAB02; unverified on LAB05`).
    pub(crate) fn across(&self, row: &LabRow) -> String {
        if row.results.iter().all(|r| *r == Cell::Pass) {
            return Cell::Pass.as_str().to_owned();
        }
        let mut by_result: Vec<(&str, Vec<String>)> = Vec::new();
        for (device, result) in self.devices.iter().zip(&row.results) {
            let result = match result {
                Cell::Pass => continue,
                Cell::NoReport => "no report",
                other => other.as_str(),
            };
            match by_result.iter_mut().find(|(r, _)| *r == result) {
                Some((_, serials)) => serials.push(device.name()),
                None => by_result.push((result, vec![device.name()])),
            }
        }
        by_result
            .iter()
            .map(|(result, serials)| format!("{result} on {}", serials.join(", ")))
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// The lab's verdict from its devices', and the servers that did not answer (whose devices
/// were not shown to pass): with `need`, a pass takes that many devices passed (whatever
/// became of the others, none failing); without, every device.
fn verdict_of(
    devices: &[LabDevice],
    unreachable: &[UnreachableServer],
    need: Option<u32>,
) -> LabVerdict {
    let verdicts: BTreeSet<DeviceVerdict> = devices.iter().map(|d| d.verdict).collect();
    let unrecorded = devices.iter().any(|d| d.unrecorded.is_some());
    if verdicts.contains(&DeviceVerdict::Fail) {
        LabVerdict::Fail
    } else if let Some(need) = need {
        let passed = devices
            .iter()
            .filter(|d| d.verdict == DeviceVerdict::Pass)
            .count();
        // At least one device passed, whatever the number says: a lab passes on a pass.
        if passed >= need.max(1) as usize && !unrecorded {
            LabVerdict::Pass
        } else {
            LabVerdict::Incomplete
        }
    } else if verdicts.contains(&DeviceVerdict::Error)
        || verdicts.contains(&DeviceVerdict::NotMeasured)
        || devices.is_empty()
        || !unreachable.is_empty()
        || unrecorded
    {
        LabVerdict::Incomplete
    } else {
        LabVerdict::Pass
    }
}

#[cfg(test)]
mod tests;
