//! The audit stage: the round's plan — the pack, the target, the verified build to install,
//! the project's history — run through the session engine into `audit-round-<n>/`; what
//! failed goes back to the agent with the measured values (and the device, in a lab).

use crate::audit::Required;
use crate::audit::{InstalledHap, Workspace};
use crate::device::{AnyDevice, DeviceError};
use crate::diagnostic::chain;
use crate::hash::sha256_hex;
use crate::input::resolve_hap;
use crate::process::Cancel;
use crate::schema::TerminalReason;
use crate::session::{
    self, AuditPlan, BuildUnderTest, PackSource, Reporter, Request, SessionError,
};
use crate::target::Opened;

use super::super::halt::{Halt, Staged};
use super::super::ledger::{Input, Outcome as Decided, Stage};
use super::super::{Delivery, Event, Note};
use super::{Failed, Quoted};

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
    /// Nothing failed, but not every device was audited, or the history did not record an
    /// audit (already recorded as an environment error): why.
    Unproven(String),
}

/// The delivery's reporter: the session's events become the stage's.
struct Forward<'d, 'e>(&'d (dyn Fn(Event<'_>) + 'e));

impl Reporter for Forward<'_, '_> {
    fn event(&self, event: session::Event<'_>) {
        (self.0)(Event::Session(event));
    }
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
        let (plan, not_installed) = match self.round_plan(round, target, after) {
            Ok(planned) => planned,
            Err(detail) => return Err(self.environment(&clock, &inputs, detail)),
        };
        let installed = plan.build.installed();
        let run = session::run(&plan, target, cancel, &Forward(self.events)).await;
        // The device is let go as soon as it is measured: a repair round's agent may take
        // long, and another job may use the phone meanwhile.
        target.release_leases();
        let outcome = match run {
            Ok(outcome) => outcome,
            Err(SessionError::Interrupted(_)) => return Err(self.interrupted(&clock, &inputs)),
            Err(SessionError::Publish(e)) => return Err(Halt::Failed(e.into())),
            Err(SessionError::Install(e)) => {
                let detail = format!(
                    "{}: the verified build could not be installed: {}{}",
                    e.code(),
                    chain(&e),
                    install_fix(&e)
                );
                return Err(self.environment(&clock, &inputs, detail));
            }
            Err(e) => {
                let detail = format!("{}: the audit failed: {}", e.code(), chain(&e));
                return Err(self.environment(&clock, &inputs, detail));
            }
        };
        let done = |verdict| AuditDone {
            reports: outcome
                .written()
                .iter()
                .map(|p| self.run_dir.relative(p))
                .collect(),
            criteria: outcome.criteria(),
            verdict,
            sources: outcome.sources(),
            installed: installed.clone(),
            not_installed: not_installed.clone(),
        };
        // A device that was not ready measured nothing: no repair of the app can change
        // that, so the run ends on the environment, saying which precondition failed.
        let not_ready = outcome.not_ready();
        if !not_ready.is_empty() {
            let detail = format!("the device was not audited: {}", not_ready.join("; "));
            self.end(
                &clock,
                Decided::EnvironmentError,
                &inputs,
                Some(detail.clone()),
                Note::Detail(detail.clone()),
                None,
            )?;
            return Ok(done(AuditVerdict::Unproven(detail)));
        }
        let failures = outcome.failures(self.frozen);
        if failures.is_empty() {
            let mut unproven = Vec::new();
            let unaudited = outcome.unaudited();
            if !unaudited.is_empty() {
                unproven.push(format!(
                    "not every device was audited: {}",
                    unaudited.join("; ")
                ));
            }
            let unrecorded = outcome.unrecorded();
            if !unrecorded.is_empty() {
                unproven.push(format!(
                    "the history did not record the audit: {}",
                    unrecorded.join("; ")
                ));
            }
            if !unproven.is_empty() {
                let detail = unproven.join("; ");
                let note = Note::Detail(detail.clone());
                self.end(
                    &clock,
                    Decided::EnvironmentError,
                    &inputs,
                    Some(detail.clone()),
                    note,
                    None,
                )?;
                return Ok(done(AuditVerdict::Unproven(detail)));
            }
            self.end(&clock, Decided::Pass, &inputs, None, Note::None, None)?;
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
        self.end(&clock, Decided::Fail, &inputs, None, Note::None, None)?;
        // The crash itself, as the platform recorded it: what the agent has to fix first.
        let output = outcome.crashes().map(|text| Quoted {
            source: crate::brief::CRASHES_SOURCE.to_owned(),
            text,
        });
        Ok(done(AuditVerdict::Failed(Failed {
            fingerprint,
            failures,
            output,
            kind: TerminalReason::AuditFailed,
        })))
    }

    /// The round's plan: the run's lock, the target as opened, the verified HAPs to install
    /// (none on a replay, or when no verification command declares one: why, then), the
    /// project's history and the workspace measured. Why it cannot be made, in words.
    fn round_plan(
        &self,
        round: u32,
        target: &Opened,
        after: &str,
    ) -> Result<(AuditPlan<'_>, Option<String>), String> {
        // The build that was verified is what gets measured: its HAPs go on the device first.
        let haps = self.verified_haps()?;
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
        // Every audit of a delivery goes into the project's history.
        let history = crate::history::build_facts(&self.config.workspace, self.history.clone());
        let workspace = Workspace {
            fingerprint: after.to_owned(),
            commit: history.commit.clone(),
        };
        let request = Request {
            pack: PackSource::Loaded {
                frozen: self.frozen,
                lock: self.run_dir.lock(),
                playbooks: self.playbooks,
            },
            // The target was opened by preflight: the plan only names its shape.
            target: self.target.clone(),
            record: None,
            out: Some(self.run_dir.audit_folder(round)),
            runs: None,
            ab: None,
            history: Some(history),
            strict: self.strict,
            auditor: None,
            build: BuildUnderTest {
                haps: if not_installed.is_none() {
                    haps
                } else {
                    Vec::new()
                },
                workspace: Some(workspace),
            },
            require: self
                .config
                .device
                .require
                .iter()
                .map(|c| Required {
                    condition: c.clone(),
                    by: "dwpipe.yaml".to_owned(),
                })
                .collect(),
            // Each audit is about the HAPs the round installed: none are named besides.
            sign_key: self.config.sign_key.clone(),
            subjects: Vec::new(),
        };
        let plan = AuditPlan::new(request).map_err(|e| chain(&e))?;
        Ok((plan, not_installed))
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
                // Declared inside the workspace, it must still be there once resolved.
                let resolved = resolve_hap(&workspace.join(hap), Some(workspace)).map_err(|e| {
                    format!(
                        "E_DELIVER_NO_HAP: the declared HAP `{}` cannot be installed: {}",
                        hap.display(),
                        chain(&e)
                    )
                })?;
                Ok((
                    resolved.resolved,
                    InstalledHap {
                        path: crate::text::doc_path(hap),
                        sha256: resolved.sha256,
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
