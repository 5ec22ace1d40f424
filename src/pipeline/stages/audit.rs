//! The audit stage: on the device, or on every device of the lab, into `audit-round-<n>/`;
//! what failed goes back to the agent with the measured values (and the device, in a lab).

use crate::audit::{InstalledHap, Workspace};
use crate::brief::{Failure, failures_from_audit};
use crate::device::{AnyDevice, DeviceError};
use crate::diagnostic::chain;
use crate::hash::sha256_hex;
use crate::history::Recorder;
use crate::lab::{
    AuditDeviceError, AuditJob, LabPlan, audit_device, audit_lab, install_haps, interrupted,
    publish,
};
use crate::process::Cancel;
use crate::report::AuditReport;
use crate::target::Opened;

use super::super::ledger::{Input, Outcome, Stage};
use super::super::reason::TerminalReason;
use super::super::record::Staged;
use super::super::{Delivery, Event, Note};
use super::Failed;

/// What the audit found.
pub(in crate::pipeline) struct AuditDone {
    /// The files it wrote, relative to the run directory.
    pub(in crate::pipeline) reports: Vec<String>,
    /// Each criterion's result, in words (over a lab: who did what).
    pub(in crate::pipeline) criteria: Vec<(String, String)>,
    /// Its verdict for the loop.
    pub(in crate::pipeline) verdict: AuditVerdict,
    /// What each report measured on.
    pub(in crate::pipeline) sources: Vec<crate::device::Source>,
    /// The HAPs installed before the audit.
    pub(in crate::pipeline) installed: Vec<InstalledHap>,
    /// Why nothing was installed, when nothing was.
    pub(in crate::pipeline) not_installed: Option<String>,
}

/// How a round's audit ended.
pub(in crate::pipeline) enum AuditVerdict {
    /// Every device passed.
    Pass,
    /// Criteria failed: back to the agent.
    Failed(Failed),
    /// Nothing failed, but not every device was audited (already recorded as an environment
    /// error): why.
    Unaudited(String),
}

impl Delivery<'_> {
    /// Audits the round's change on the target.
    pub(in crate::pipeline) async fn audit(
        &self,
        round: u32,
        target: &Opened,
        after: &str,
        cancel: &Cancel,
    ) -> Staged<AuditDone> {
        let clock = self.begin(Stage::Audit, round);
        let sha = self.frozen.lock.sha256.as_str();
        let inputs = [(Input::Pack, sha), (Input::Workspace, after)];
        // A replay has no child to see a signal: it is looked for here.
        self.unless_cancelled(&clock, cancel, &inputs)?;
        let out = self.run_dir.audit_folder(round);
        // The build that was verified is what gets measured: its HAPs go on the device first.
        let haps = match self.verified_haps() {
            Ok(haps) => haps,
            Err(detail) => return Err(self.environment(&clock, &inputs, detail)),
        };
        let replay = matches!(target, Opened::One(AnyDevice::Replay(_)));
        let not_installed = if haps.is_empty() {
            Some(
                "no verification command declares a `hap`: the app on the device was not \
                 installed by this run"
                    .to_owned(),
            )
        } else if replay {
            Some("a replay: the capture's app was measured, nothing installed".to_owned())
        } else {
            None
        };
        let to_install = if not_installed.is_none() {
            haps
        } else {
            Vec::new()
        };
        let installed: Vec<InstalledHap> = to_install.iter().map(|(_, hap)| hap.clone()).collect();
        // Every audit of a delivery goes into the project's history.
        let history = Recorder {
            path: self.run_dir.history(),
            ..crate::history::build_facts(&self.config.workspace)
        };
        let workspace = Workspace {
            fingerprint: after.to_owned(),
            commit: history.commit.clone(),
        };
        // Each device's report (the serial only in a lab), and the devices left unaudited.
        let (reports, unaudited, written, criteria) = match target {
            Opened::One(device) => {
                if let Err(e) = install_haps(device, &to_install).await {
                    if matches!(e, DeviceError::Cancelled) {
                        return Err(self.interrupted(&clock, &inputs));
                    }
                    let detail = format!(
                        "{}: the verified build could not be installed: {}{}",
                        e.code(),
                        chain(&e),
                        install_fix(&e)
                    );
                    return Err(self.environment(&clock, &inputs, detail));
                }
                let progress = |event| (self.events)(Event::Audit(event));
                let lock = self.run_dir.lock();
                let job = AuditJob {
                    frozen: self.frozen,
                    lock: &lock,
                    playbooks: self.playbooks,
                    runs: None,
                    auditor: None,
                    strict: self.strict,
                    installed: &installed,
                    history: Some(&history),
                    workspace: Some(&workspace),
                };
                let (report, written) = match audit_device(device, &job, &out, &progress).await {
                    Ok(published) => published,
                    Err(AuditDeviceError::Audit(e)) if e.is_interrupted() => {
                        return Err(self.interrupted(&clock, &inputs));
                    }
                    Err(AuditDeviceError::Audit(e)) => {
                        let detail = format!("{}: the audit failed: {}", e.code(), chain(&e));
                        return Err(self.environment(&clock, &inputs, detail));
                    }
                    Err(AuditDeviceError::Publish(e)) => return Err(e.into()),
                    Err(AuditDeviceError::History(e)) => {
                        let detail = format!("{}: {}", e.code, e.message);
                        return Err(self.environment(&clock, &inputs, detail));
                    }
                };
                let criteria = report
                    .checks
                    .iter()
                    .map(|c| {
                        (
                            c.check.criterion_id.clone(),
                            c.check.result.as_str().to_owned(),
                        )
                    })
                    .collect();
                (vec![(None, report)], Vec::new(), written, criteria)
            }
            Opened::Lab(roster) => {
                let lock = self.run_dir.lock();
                let plan = LabPlan {
                    hdc: self.hdc,
                    frozen: self.frozen,
                    lock: &lock,
                    playbooks: self.playbooks,
                    runs: None,
                    haps: &to_install,
                    history: Some(&history),
                    workspace: Some(&workspace),
                };
                let progress = |event: crate::lab::LabEvent<'_>| (self.events)(Event::Lab(event));
                let seats = audit_lab(&plan, roster, &out, cancel, &progress).await;
                if interrupted(&seats) {
                    return Err(self.interrupted(&clock, &inputs));
                }
                let (matrix, written) = publish(self.frozen, &seats, &roster.unreachable, &out)?;
                let criteria = matrix
                    .rows
                    .iter()
                    .map(|row| (row.criterion_id.clone(), matrix.across(row)))
                    .collect();
                let mut reports = Vec::new();
                let mut unaudited = Vec::new();
                for seat in seats {
                    match seat.outcome {
                        Ok(report) => reports.push((Some(seat.member.serial), report)),
                        Err(error) => {
                            unaudited.push(format!("{}: {}", seat.member.serial, chain(&error)));
                        }
                    }
                }
                (reports, unaudited, written, criteria)
            }
        };
        let written = written.iter().map(|p| self.run_dir.relative(p)).collect();
        let failures = failures_across(self.frozen, &reports);
        let sources = reports
            .iter()
            .filter_map(|(_, report)| report.source.clone())
            .collect();
        let done = |verdict| AuditDone {
            reports: written,
            criteria,
            verdict,
            sources,
            installed,
            not_installed,
        };
        if failures.is_empty() {
            if !unaudited.is_empty() {
                let detail = format!("not every device was audited: {}", unaudited.join("; "));
                let note = Note::Detail(detail.clone());
                self.end(
                    &clock,
                    Outcome::EnvironmentError,
                    &inputs,
                    Some(detail.clone()),
                    note,
                    None,
                )?;
                return Ok(done(AuditVerdict::Unaudited(detail)));
            }
            self.end(&clock, Outcome::Pass, &inputs, None, Note::None, None)?;
            return Ok(done(AuditVerdict::Pass));
        }
        // The same criteria failing with the same numbers is "the same failure again".
        let measured: Vec<String> = failures
            .iter()
            .map(|f| format!("{}={}", f.id, f.actual))
            .collect();
        let fingerprint = sha256_hex(measured.join("\n").as_bytes());
        let mut inputs = inputs.to_vec();
        inputs.push((Input::Failure, &fingerprint));
        self.end(&clock, Outcome::Fail, &inputs, None, Note::None, None)?;
        Ok(done(AuditVerdict::Failed(Failed {
            fingerprint,
            failures,
            output: None,
            kind: TerminalReason::AuditFailed,
        })))
    }
}

impl Delivery<'_> {
    /// Every HAP the verification commands declare, with its SHA-256.
    fn verified_haps(&self) -> Result<Vec<(std::path::PathBuf, InstalledHap)>, String> {
        let workspace = &self.config.workspace;
        self.config
            .verify
            .iter()
            .flat_map(|c| &c.haps)
            .map(|hap| {
                let path = workspace.join(hap);
                let sha256 = crate::input::hash_file(&path, "a HAP").map_err(|e| {
                    format!(
                        "E_DELIVER_NO_HAP: the declared HAP `{}` is not there: {}",
                        hap.display(),
                        chain(&e)
                    )
                })?;
                Ok((
                    path,
                    InstalledHap {
                        path: hap.display().to_string(),
                        sha256,
                    },
                ))
            })
            .collect()
    }
}

/// What to do about an install the bundle manager refused.
fn install_fix(error: &DeviceError) -> &'static str {
    let DeviceError::App { message, .. } = error else {
        return "";
    };
    let message = message.to_lowercase();
    if message.contains("sign") {
        " (the device has the app signed by another certificate: `hdc uninstall <bundle>` first, \
         or sign with the same profile)"
    } else if message.contains("version") {
        " (the device has a newer version of the app: `hdc uninstall <bundle>` first, or raise \
         versionCode)"
    } else {
        ""
    }
}

/// The failures of every report that did not pass; in a lab, each measured value names its
/// device, and a criterion failing on several devices is one failure with all their values.
fn failures_across(
    frozen: &crate::pack::Frozen,
    reports: &[(Option<String>, AuditReport)],
) -> Vec<Failure> {
    let mut failures: Vec<Failure> = Vec::new();
    for (serial, report) in reports
        .iter()
        .filter(|(_, r)| r.verdict != crate::gate::Verdict::Pass)
    {
        for mut failure in failures_from_audit(frozen, report) {
            if let Some(serial) = serial {
                failure.actual = format!("{serial}: {}", failure.actual);
            }
            match failures.iter_mut().find(|f| f.id == failure.id) {
                Some(known) => known.actual = format!("{}; {}", known.actual, failure.actual),
                None => failures.push(failure),
            }
        }
    }
    failures
}
