//! The delivery loop: review once, then brief → agent → verify → audit, and on a failed
//! round a repair brief through the guard, until a terminal reason; or, resumed, from the
//! stage the ledger says. Stages record; the loop folds what they return into the summary and
//! decides what comes next. The ledger ends with the delivery's own line, and `deliver.json`
//! with its summary.

use std::time::Duration;

use crate::agent::Ending;
use crate::brief::{goal, repair};
use crate::input::{MAX_REPORT_BYTES, read_bounded, read_text};
use crate::process::Cancel;
use crate::review::ReviewVerdict;
use crate::schema::VerifyReport;
use crate::target::Opened;
use crate::verify::{StatCache, fingerprint};

use super::guard::{Next, RepairGuard};
use super::halt::{Halt, Staged};
use super::ledger::{Entry, Input, Outcome, Stage};
use super::resume::{Resume, StartAt, decide};
use super::run_dir::RunDir;
use super::stages::{AuditVerdict, Failed};
use super::{Delivery, DeliveryError, ResumeRefused};
use crate::report::publish;
use crate::schema::DeliverReport;
use crate::schema::TerminalReason;

/// What the Goal brief says when the pack's review did not complete.
const REVIEW_INCOMPLETE: &str =
    "Its pre-review did not complete: treat the criteria as written, and say where they seem wrong";

impl Delivery<'_> {
    /// Runs the delivery to a terminal reason (or resumes it), ends the ledger with it and
    /// writes `deliver.json`.
    pub(crate) async fn run(
        &self,
        target: &Opened,
        cancel: &Cancel,
    ) -> Result<DeliverReport, DeliveryError> {
        let mut report = DeliverReport::new(self.run_dir.path(), &self.frozen.lock.sha256);
        let resume = if self.resume {
            self.resume_point(cancel).await?
        } else {
            None
        };
        let delivered = self.deliver(target, cancel, &mut report, resume).await;
        self.conclude(report, delivered)
    }

    /// Ends a run with what its stages came to: the ledger's last line and `deliver.json`.
    pub(super) fn conclude(
        &self,
        mut report: DeliverReport,
        ended: Staged<()>,
    ) -> Result<DeliverReport, DeliveryError> {
        let (reason, detail) = match ended {
            Ok(()) => (TerminalReason::Verified, None),
            Err(Halt::Stop { reason, detail }) => (reason, detail),
            // The run's own files failed (a full disk, a folder gone): it still ends with its
            // record where one can be written, and stays resumable.
            Err(Halt::Failed(error)) => (
                TerminalReason::EnvironmentError,
                Some(crate::diagnostic::chain(&error)),
            ),
        };
        report.terminal_reason = reason;
        report.detail = detail;
        let mut entry = Entry::new(Stage::Deliver, Outcome::Ended(reason), Duration::ZERO);
        entry
            .inputs
            .insert(Input::Pack, self.frozen.lock.sha256.clone());
        entry.reason.clone_from(&report.detail);
        let mut unwritten = Vec::new();
        if let Err(e) = self.run_dir.ledger().append(&entry) {
            unwritten.push(crate::diagnostic::chain(&e));
        }
        self.published(&mut report);
        let steps = self.steps(&report.reports);
        if let Err(e) = publish::deliver(&report, &steps, self.run_dir.path()) {
            unwritten.push(crate::diagnostic::chain(&e));
        }
        if unwritten.is_empty() {
            Ok(report)
        } else {
            Err(DeliveryError::Unrecorded {
                run: self.run_dir.id(),
                reason,
                detail: report.detail.clone(),
                unwritten,
            })
        }
    }

    /// Reads the run's ledger and decides where to pick up; records that it did.
    async fn resume_point(&self, cancel: &Cancel) -> Result<Option<Resume>, DeliveryError> {
        let refused = |e: ResumeRefused| DeliveryError::Resume(e);
        let ledger = self.run_dir.resumed_from();
        let mut cache = StatCache::load(&self.run_dir.stat_cache());
        let current = fingerprint(&self.config.workspace, &mut cache, cancel)
            .await
            .map_err(DeliveryError::Fingerprint)?;
        // A report that cannot be read back proves nothing: that round is verified again.
        let verified = |round: u32| -> Option<VerifyReport> {
            let path = self.run_dir.path().join(RunDir::verify_name(round));
            let bytes = read_bounded(&path, MAX_REPORT_BYTES, "a verification report").ok()?;
            serde_json::from_slice(&bytes).ok()
        };
        let resume = decide(ledger, &current, &verified).map_err(|e| refused(e.into()))?;
        let from = match &resume {
            None => "the start".to_owned(),
            Some(r) => format!(
                "{} of round {}",
                match r.start {
                    StartAt::Agent => "the agent",
                    StartAt::Verify(_) => "verification",
                    StartAt::Audit(_) => "the audit",
                },
                r.round
            ),
        };
        let mut entry = Entry::new(Stage::Deliver, Outcome::Resumed, Duration::ZERO);
        entry.inputs.insert(Input::Workspace, current);
        entry.reason = Some(format!("from {from}"));
        self.run_dir.ledger().append(&entry)?;
        Ok(resume)
    }

    async fn deliver(
        &self,
        target: &Opened,
        cancel: &Cancel,
        summary: &mut DeliverReport,
        resume: Option<Resume>,
    ) -> Staged<()> {
        let reviewed = self.review(cancel).await?;
        summary.reports.push(reviewed.receipt);
        if !reviewed.verdict.allows_dispatch() {
            let detail = format!("the pre-review says {}: change the pack", reviewed.verdict);
            return Err(Halt::Stop {
                reason: TerminalReason::ReviewBlocked,
                detail: Some(detail),
            });
        }
        let review_note =
            (reviewed.verdict == ReviewVerdict::Incomplete).then(|| REVIEW_INCOMPLETE.to_owned());
        let cache_path = self.run_dir.stat_cache();
        let mut cache = StatCache::load(&cache_path);
        let mut guard = RepairGuard::new(self.config.repair);
        let (mut round, mut start, mut brief) =
            self.starting_point(resume, &mut guard, summary, review_note)?;
        let mut agent_incomplete: Option<String> = None;
        loop {
            let resumed_at = start.take();
            let verified_already = matches!(resumed_at, Some(StartAt::Audit(_)));
            let after = match resumed_at {
                Some(StartAt::Verify(after) | StartAt::Audit(after)) => after,
                resumed => {
                    self.dispatch(
                        round,
                        resumed.is_some(),
                        &brief,
                        (&mut cache, cancel),
                        summary,
                        &mut agent_incomplete,
                    )
                    .await?
                }
            };
            // A stat cache that cannot be saved only costs the next fingerprint some reading.
            let _ = cache.save(&cache_path);
            let failed = self
                .measure(
                    round,
                    target,
                    &after,
                    (&mut cache, cancel),
                    summary,
                    verified_already,
                )
                .await?;
            let Some(failed) = failed else {
                return Ok(());
            };
            if summary.agent_changed_nothing {
                // The agent did nothing about what fails: no repair round would differ.
                summary.unresolved = failed.failures.iter().map(|f| f.id.clone()).collect();
                return Err(Halt::Stop {
                    reason: TerminalReason::NoChanges,
                    detail: Some(
                        "the agent changed nothing, and the workspace as it stands does not pass"
                            .to_owned(),
                    ),
                });
            }
            round = self.next_round(&mut guard, &failed, summary)?;
            let output = failed
                .output
                .as_ref()
                .map(|q| (q.source.as_str(), q.text.as_str()));
            brief = repair(
                self.frozen,
                Some(self.config),
                round,
                failed.failures,
                output,
                agent_incomplete.as_deref(),
            )?;
        }
    }

    /// Where the loop starts: round 0 with the Goal brief, or the resumed round with its
    /// brief read back and the guard told the failures it already saw.
    fn starting_point(
        &self,
        resume: Option<Resume>,
        guard: &mut RepairGuard,
        summary: &mut DeliverReport,
        review_note: Option<String>,
    ) -> Staged<(u32, Option<StartAt>, String)> {
        let Some(resume) = resume else {
            return Ok((0, None, goal(self.frozen, Some(self.config), review_note)?));
        };
        for failure in &resume.failures {
            guard.after_failure(failure);
        }
        summary.repairs = guard.repairs();
        let path = self.run_dir.path().join(RunDir::brief_name(resume.round));
        let brief = read_text(&path, MAX_REPORT_BYTES, "a brief").map_err(|source| {
            DeliveryError::Resume(ResumeRefused::Brief {
                round: resume.round,
                source,
            })
        })?;
        Ok((resume.round, Some(resume.start), brief))
    }

    /// The round's brief written (unless `brief_written`, resumed after it was), the agent
    /// run on it and its claim kept: the workspace's fingerprint after, when the round has
    /// something to verify.
    async fn dispatch(
        &self,
        round: u32,
        brief_written: bool,
        brief: &str,
        (cache, cancel): (&mut StatCache, &Cancel),
        summary: &mut DeliverReport,
        agent_incomplete: &mut Option<String>,
    ) -> Staged<String> {
        let brief_path = if brief_written {
            self.run_dir.path().join(RunDir::brief_name(round))
        } else {
            self.brief(round, brief)?
        };
        let dispatched = self.agent(round, &brief_path, brief, cache, cancel).await;
        self.records_intact()?;
        let dispatched = dispatched?;
        summary.agent_claim = Some(dispatched.claim);
        summary.agent_ending = dispatched.ending.as_ref().map(ToString::to_string);
        *agent_incomplete = match &dispatched.ending {
            Some(Ending::Incomplete(why)) => Some(why.clone()),
            _ => None,
        };
        // An incomplete run that changed files goes on: the evidence decides. A
        // first round that changed nothing is measured as the workspace stands (it
        // may already meet the pack); a repair round that changed nothing has
        // nothing new to verify.
        match (dispatched.changed, &*agent_incomplete) {
            (true, _) => Ok(dispatched.after),
            (false, None) if round == 0 => {
                summary.agent_changed_nothing = true;
                Ok(dispatched.after)
            }
            (false, Some(why)) => Err(Halt::Stop {
                reason: TerminalReason::AgentIncomplete,
                detail: Some(format!(
                    "the agent's run ended incomplete ({why}) and changed nothing"
                )),
            }),
            (false, None) => Err(Halt::Stop {
                reason: TerminalReason::NoChanges,
                detail: Some("the agent changed nothing in the workspace".to_owned()),
            }),
        }
    }

    /// Verification (unless `verified_already`), then the audit once it passes, of the
    /// workspace at fingerprint `after`: `None` when both passed, else what failed.
    pub(super) async fn measure(
        &self,
        round: u32,
        target: &Opened,
        after: &str,
        (cache, cancel): (&mut StatCache, &Cancel),
        summary: &mut DeliverReport,
        verified_already: bool,
    ) -> Staged<Option<Failed>> {
        let mut failed = None;
        if !verified_already {
            let verified = self.verify(round, after, cache, cancel).await;
            self.records_intact()?;
            let verified = verified?;
            summary.reports.push(verified.report);
            failed = verified.failed;
        }
        if failed.is_some() {
            return Ok(failed);
        }
        let audited = self.audit(round, target, after, cancel).await?;
        summary.reports.extend(audited.reports);
        summary.audit_round = Some(round + 1);
        summary.criteria = audited.criteria;
        summary.sources = audited.sources;
        summary.installed = audited.installed;
        summary.not_installed = audited.not_installed;
        match audited.verdict {
            AuditVerdict::Pass => Ok(None),
            AuditVerdict::Failed(failed) => Ok(Some(failed)),
            AuditVerdict::Unproven(detail) => Err(Halt::Stop {
                reason: TerminalReason::EnvironmentError,
                detail: Some(detail),
            }),
        }
    }

    /// After a stage that ran someone else's code: the run's records must be as it left
    /// them, else the delivery ends `records_tampered`, naming what changed.
    fn records_intact(&self) -> Staged<()> {
        let changed = self.run_dir.records_changed();
        if changed.is_empty() {
            return Ok(());
        }
        Err(Halt::Stop {
            reason: TerminalReason::RecordsTampered,
            detail: Some(changed.join("; ")),
        })
    }

    /// After a failed round: the next round's number, or why the loop stops.
    fn next_round(
        &self,
        guard: &mut RepairGuard,
        failed: &Failed,
        summary: &mut DeliverReport,
    ) -> Staged<u32> {
        summary.unresolved = failed.failures.iter().map(|f| f.id.clone()).collect();
        let stop = |reason| Halt::Stop {
            reason,
            detail: None,
        };
        match guard.after_failure(&failed.fingerprint) {
            Next::Repair(next) => {
                summary.repairs = guard.repairs();
                Ok(next)
            }
            // With no repair budget at all, the failure itself is the reason.
            Next::Stop(TerminalReason::BudgetExhausted) if self.config.repair.max_rounds == 0 => {
                Err(stop(failed.kind))
            }
            Next::Stop(reason) => Err(stop(reason)),
        }
    }
}
