//! The stages of a delivery and the loop through them. Each stage writes its artifact, appends
//! one ledger line and emits its events; the loop decides, through the repair guard, whether a
//! failed round goes back to the agent.

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::agent::{AgentError, dispatch};
use crate::audit::{self, AuditError};
use crate::brief::{Failure, failures_from_audit, failures_from_verify, goal, repair};
use crate::device::DeviceError;
use crate::gate::Verdict;
use crate::hash::sha256_hex;
use crate::lab::{self, LabReport, audit_lab};
use crate::ledger::{self, Entry, append};
use crate::output::{publish_numbered, write_atomic};
use crate::process::Cancel;
use crate::report::AuditReport;
use crate::review::{ReviewVerdict, earlier, review};
use crate::template::render;
use crate::verify::{
    CommandStatus, Next, RepairGuard, StatCache, TerminalReason, VerifyError, fingerprint, verify,
};

use super::{Delivery, DeliveryError, Event, Resume, StartAt, Summary, Target, decide, word};

/// What a stage decided: go on with a value, or end the delivery.
enum Step<T> {
    Go(T),
    Stop(TerminalReason, Option<String>),
}

/// What a failed round sends back to the agent.
struct Failed {
    /// What the repair guard counts ("the same failure again").
    fingerprint: String,
    failures: Vec<Failure>,
    /// The failing output and the report it came from (verification only).
    output: Option<(String, String)>,
    /// The terminal reason when no repair budget exists at all.
    kind: TerminalReason,
}

/// A criterion's results across a lab, in a word: `pass` when every device passed, else who
/// did what (`fail on LAB02; unverified on LAB05`).
fn across(matrix: &LabReport, results: &[String]) -> String {
    if results.iter().all(|r| r == "pass") {
        return "pass".to_owned();
    }
    let mut by_result: Vec<(&str, Vec<&str>)> = Vec::new();
    for (device, result) in matrix.devices.iter().zip(results) {
        if result == "pass" {
            continue;
        }
        let result = if result == "-" {
            "no report"
        } else {
            result.as_str()
        };
        match by_result.iter_mut().find(|(r, _)| *r == result) {
            Some((_, serials)) => serials.push(&device.serial),
            None => by_result.push((result, vec![&device.serial])),
        }
    }
    by_result
        .iter()
        .map(|(result, serials)| format!("{result} on {}", serials.join(", ")))
        .collect::<Vec<_>>()
        .join("; ")
}

/// The brief of a round: the Goal brief first, then repair briefs.
fn brief_name(round: u32) -> String {
    match round {
        0 => "goal-brief.md".to_owned(),
        n => format!("repair-brief-{n}.md"),
    }
}

/// A running stage: what the ledger line and the events need.
struct Clock {
    stage: &'static str,
    round: u32,
    started: Instant,
}

fn local(error: impl std::fmt::Display) -> DeliveryError {
    DeliveryError::Local(error.to_string())
}

impl Delivery<'_> {
    fn begin(&self, stage: &'static str, round: u32) -> Clock {
        (self.events)(Event::Stage { stage, round });
        Clock {
            stage,
            round,
            started: Instant::now(),
        }
    }

    /// Ends a stage: one ledger line (decision metadata only), one event.
    fn end(
        &self,
        clock: &Clock,
        outcome: &str,
        inputs: &[(&'static str, &str)],
        reason: Option<String>,
        shown: &str,
        output: Option<PathBuf>,
    ) -> Result<(), DeliveryError> {
        let mut entry = Entry::new(clock.stage, outcome, clock.started.elapsed());
        entry.round = Some(clock.round);
        for (key, value) in inputs {
            entry.inputs.insert(key, (*value).to_owned());
        }
        entry.reason = reason;
        append(self.run_dir, &entry)
            .map_err(|e| local(format!("cannot append to the ledger: {e}")))?;
        (self.events)(Event::Done {
            stage: clock.stage,
            outcome: shown.to_owned(),
            millis: clock.started.elapsed().as_millis(),
            output,
        });
        Ok(())
    }

    /// Ends a stage that ends the delivery.
    fn halt<T>(
        &self,
        clock: &Clock,
        outcome: &str,
        inputs: &[(&'static str, &str)],
        reason: TerminalReason,
        detail: Option<String>,
    ) -> Result<Step<T>, DeliveryError> {
        let shown = detail.clone().unwrap_or_else(|| outcome.to_owned());
        self.end(clock, outcome, inputs, detail.clone(), &shown, None)?;
        Ok(Step::Stop(reason, detail))
    }

    /// Ends a stage that Ctrl-C stopped.
    fn interrupted<T>(
        &self,
        clock: &Clock,
        inputs: &[(&'static str, &str)],
    ) -> Result<Step<T>, DeliveryError> {
        self.halt(
            clock,
            "interrupted",
            inputs,
            TerminalReason::Interrupted,
            None,
        )
    }

    /// Ends a stage whose tool, device or machine failed.
    fn environment<T>(
        &self,
        clock: &Clock,
        inputs: &[(&'static str, &str)],
        detail: String,
    ) -> Result<Step<T>, DeliveryError> {
        let reason = TerminalReason::EnvironmentError;
        self.halt(clock, "environment_error", inputs, reason, Some(detail))
    }

    /// Runs the delivery to a terminal reason (or resumes it), and ends the ledger with it.
    pub async fn run(
        &self,
        target: &Target<'_>,
        cancel: &Cancel,
    ) -> Result<Summary, DeliveryError> {
        let mut summary = Summary::new(self.run_dir);
        let resume = if self.resume {
            self.resume_point(cancel).await?
        } else {
            None
        };
        let (reason, detail) = match self.deliver(target, cancel, &mut summary, resume).await? {
            Step::Go(()) => (TerminalReason::Verified, None),
            Step::Stop(reason, detail) => (reason, detail),
        };
        summary.terminal_reason = reason;
        summary.detail = detail;
        let mut entry = Entry::new("deliver", "", std::time::Duration::ZERO);
        let outcome = word(reason);
        entry.outcome = &outcome;
        entry.inputs.insert("pack", self.frozen.lock.sha256.clone());
        append(self.run_dir, &entry)
            .map_err(|e| local(format!("cannot append to the ledger: {e}")))?;
        Ok(summary)
    }

    /// Reads the run's ledger and decides where to pick up.
    async fn resume_point(&self, cancel: &Cancel) -> Result<Option<Resume>, DeliveryError> {
        let ledger =
            ledger::read(self.run_dir).map_err(|e| DeliveryError::Resume(e.to_string()))?;
        let mut cache = StatCache::load(&self.run_dir.join("stat-cache.json"));
        let current = fingerprint(&self.config.workspace, &mut cache, cancel)
            .await
            .map_err(local)?;
        let resume = decide(&ledger, &current).map_err(|e| DeliveryError::Resume(e.to_string()))?;
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
        let mut entry = Entry::new("deliver", "resumed", std::time::Duration::ZERO);
        entry.inputs.insert("workspace", current);
        entry.reason = Some(format!("from {from}"));
        append(self.run_dir, &entry)
            .map_err(|e| local(format!("cannot append to the ledger: {e}")))?;
        Ok(resume)
    }

    async fn deliver(
        &self,
        target: &Target<'_>,
        cancel: &Cancel,
        summary: &mut Summary,
        resume: Option<Resume>,
    ) -> Result<Step<()>, DeliveryError> {
        let review_note = match self.review(summary, cancel).await? {
            Step::Go(note) => note,
            Step::Stop(reason, detail) => return Ok(Step::Stop(reason, detail)),
        };
        let cache_path = self.run_dir.join("stat-cache.json");
        let mut cache = StatCache::load(&cache_path);
        let mut guard = RepairGuard::new(self.config.repair);
        let (mut round, mut start, mut brief) = match resume {
            None => (
                0,
                None,
                goal(self.frozen, Some(self.config), review_note).map_err(local)?,
            ),
            Some(resume) => {
                for failure in &resume.failures {
                    guard.after_failure(failure);
                }
                summary.repairs = guard.repairs();
                let brief = std::fs::read_to_string(self.run_dir.join(brief_name(resume.round)))
                    .map_err(|e| {
                        DeliveryError::Resume(format!("the brief of round {}: {e}", resume.round))
                    })?;
                (resume.round, Some(resume.start), brief)
            }
        };
        loop {
            let resumed_at = start.take();
            let verified_already = matches!(resumed_at, Some(StartAt::Audit(_)));
            let after = match resumed_at {
                Some(StartAt::Verify(after) | StartAt::Audit(after)) => after,
                resumed => {
                    let brief_path = match resumed {
                        Some(StartAt::Agent) => self.run_dir.join(brief_name(round)),
                        _ => self.brief(round, &brief)?,
                    };
                    match self
                        .agent(round, &brief_path, &brief, &mut cache, summary, cancel)
                        .await?
                    {
                        Step::Go(after) => after,
                        Step::Stop(reason, detail) => return Ok(Step::Stop(reason, detail)),
                    }
                }
            };
            // A stat cache that cannot be saved only costs the next fingerprint some reading.
            let _ = cache.save(&cache_path);
            let mut failed = None;
            if !verified_already {
                failed = match self
                    .verify(round, &after, &mut cache, summary, cancel)
                    .await?
                {
                    Step::Go(failed) => failed,
                    Step::Stop(reason, detail) => return Ok(Step::Stop(reason, detail)),
                };
            }
            if failed.is_none() {
                failed = match self.audit(round, target, &after, summary, cancel).await? {
                    Step::Go(failed) => failed,
                    Step::Stop(reason, detail) => return Ok(Step::Stop(reason, detail)),
                };
            }
            let Some(failed) = failed else {
                return Ok(Step::Go(()));
            };
            summary.unresolved = failed.failures.iter().map(|f| f.id.clone()).collect();
            round = match guard.after_failure(&failed.fingerprint) {
                Next::Repair(next) => next,
                // With no repair budget at all, the failure itself is the reason.
                Next::Stop(TerminalReason::BudgetExhausted)
                    if self.config.repair.max_rounds == 0 =>
                {
                    return Ok(Step::Stop(failed.kind, None));
                }
                Next::Stop(reason) => return Ok(Step::Stop(reason, None)),
            };
            summary.repairs = guard.repairs();
            let output = failed
                .output
                .as_ref()
                .map(|(n, o)| (n.as_str(), o.as_str()));
            brief = repair(
                self.frozen,
                Some(self.config),
                round,
                failed.failures,
                output,
            )
            .map_err(local)?;
        }
    }

    /// The pre-review: a lock is reviewed once; its receipt in the reviews folder stands until
    /// the pack changes. Goes on with the note the Goal brief carries when it did not complete.
    async fn review(
        &self,
        summary: &mut Summary,
        cancel: &Cancel,
    ) -> Result<Step<Option<String>>, DeliveryError> {
        let sha = self.frozen.lock.sha256.as_str();
        let clock = self.begin("review", 0);
        let (receipt, revises) = earlier(self.reviews, sha);
        let (name, reviewed) = match receipt {
            Some((name, report)) => (self.reviews.join(name).display().to_string(), report),
            None => {
                let settings = &self.config.review;
                match review(self.frozen, settings, revises, self.waive_review, cancel).await {
                    Ok(report) => {
                        let text = serde_json::to_string_pretty(&report).map_err(local)? + "\n";
                        let markdown = render("review.md", &report).map_err(local)?;
                        let files = [("json", text.as_bytes()), ("md", markdown.as_bytes())];
                        let (_, paths) =
                            publish_numbered(self.reviews, "review", &files).map_err(local)?;
                        (paths[0].display().to_string(), report)
                    }
                    Err(_) => {
                        let detail = "--no-review is refused under fail-mode closed".to_owned();
                        return self.halt(
                            &clock,
                            "waiver-refused",
                            &[("pack", sha)],
                            TerminalReason::ReviewBlocked,
                            Some(detail),
                        );
                    }
                }
            }
        };
        let verdict = word(reviewed.verdict);
        let reason = format!("{name}; reviewer: {}", reviewed.reviewer);
        let shown = format!("{verdict} ({name})");
        self.end(
            &clock,
            &verdict,
            &[("pack", sha)],
            Some(reason),
            &shown,
            None,
        )?;
        summary.reports.push(name);
        if !reviewed.verdict.allows_dispatch() {
            let detail = format!("the pre-review says {verdict}: change the pack");
            return Ok(Step::Stop(TerminalReason::ReviewBlocked, Some(detail)));
        }
        Ok(Step::Go((reviewed.verdict == ReviewVerdict::Incomplete).then(|| {
            "Its pre-review did not complete: treat the criteria as written, and say where they seem wrong".to_owned()
        })))
    }

    /// Writes the round's brief; returns its path.
    fn brief(&self, round: u32, text: &str) -> Result<PathBuf, DeliveryError> {
        let clock = self.begin("brief", round);
        let name = brief_name(round);
        let path = self.run_dir.join(&name);
        write_atomic(&path, text.as_bytes()).map_err(local)?;
        let sha = &self.frozen.lock.sha256;
        let inputs = [
            ("pack", sha.as_str()),
            ("brief", &sha256_hex(text.as_bytes())),
        ];
        self.end(&clock, "written", &inputs, None, &name, None)?;
        Ok(path)
    }

    /// Dispatches the agent; goes on with the workspace fingerprint after it, when it changed
    /// something and exited cleanly. Its claim is recorded as a claim, never as a verdict.
    async fn agent(
        &self,
        round: u32,
        brief_path: &Path,
        brief: &str,
        cache: &mut StatCache,
        summary: &mut Summary,
        cancel: &Cancel,
    ) -> Result<Step<String>, DeliveryError> {
        let Some(agent) = &self.config.agent else {
            return Err(local("dwpipe.yaml configures no agent"));
        };
        let workspace = self.config.workspace.as_path();
        let was_git = workspace.join(".git").exists();
        let before = fingerprint(workspace, cache, cancel).await.map_err(local)?;
        let clock = self.begin("agent", round);
        let log = self.run_dir.join(format!("agent-{}.log", round + 1));
        let inputs = [("workspace", before.as_str())];
        let run = match dispatch(agent, workspace, brief_path, brief, round, &log, cancel).await {
            Ok(run) => run,
            Err(AgentError::Cancelled) => {
                return self.interrupted(&clock, &inputs);
            }
            Err(e) => {
                let detail = format!("the agent failed: {e}");
                return self.environment(&clock, &inputs, detail);
            }
        };
        if !run.exited_cleanly {
            let detail = format!(
                "the agent {} (its output is in {})",
                run.ended,
                log.display()
            );
            return self.environment(&clock, &inputs, detail);
        }
        if was_git && !workspace.join(".git").exists() {
            // Without its history the workspace's fingerprint means something else: no verdict
            // about this change can be trusted.
            let detail = "the agent deleted the workspace's .git".to_owned();
            return self.environment(&clock, &inputs, detail);
        }
        let claim = word(run.claim);
        summary.agent_claim = Some(claim.clone());
        let after = fingerprint(workspace, cache, cancel).await.map_err(local)?;
        let shown = format!("{} (claims {claim})", run.ended);
        let reason = Some(format!("claim: {claim}"));
        self.end(
            &clock,
            &run.ended,
            &[("workspace", &after)],
            reason,
            &shown,
            Some(log),
        )?;
        if before == after {
            let detail = "the agent changed nothing in the workspace".to_owned();
            return Ok(Step::Stop(TerminalReason::NoChanges, Some(detail)));
        }
        Ok(Step::Go(after))
    }

    /// Runs the declared verification commands: `verify-<n>.json`; goes on with what failed.
    async fn verify(
        &self,
        round: u32,
        after: &str,
        cache: &mut StatCache,
        summary: &mut Summary,
        cancel: &Cancel,
    ) -> Result<Step<Option<Failed>>, DeliveryError> {
        let clock = self.begin("verify", round);
        let workspace = self.config.workspace.as_path();
        let inputs = [("workspace", after)];
        let verified = match verify(workspace, &self.config.verify, round, cache, cancel).await {
            Ok(report) => report,
            Err(VerifyError::Cancelled) => {
                return self.interrupted(&clock, &inputs);
            }
            Err(e) => {
                let detail = format!("{}: {e}", e.code());
                return self.environment(&clock, &inputs, detail);
            }
        };
        let name = format!("verify-{}.json", round + 1);
        let text = serde_json::to_string_pretty(&verified).map_err(local)? + "\n";
        write_atomic(&self.run_dir.join(&name), text.as_bytes()).map_err(local)?;
        summary.reports.push(name.clone());
        let failure = verified.failure_fingerprint();
        let outcome = if verified.verdict == CommandStatus::Pass {
            "pass"
        } else {
            "fail"
        };
        let mut inputs = vec![("workspace", verified.fingerprint_after.as_str())];
        inputs.extend(failure.as_deref().map(|f| ("failure", f)));
        let output = Some(self.run_dir.join(&name));
        self.end(&clock, outcome, &inputs, None, outcome, output)?;
        let Some(fingerprint) = failure else {
            return Ok(Step::Go(None));
        };
        let (failures, output) =
            failures_from_verify(&serde_json::to_value(&verified).map_err(local)?);
        Ok(Step::Go(Some(Failed {
            fingerprint,
            failures,
            output: Some((name, output)),
            kind: TerminalReason::VerificationFailed,
        })))
    }

    /// Audits on the device (or every device of the lab) into `audit-round-<n>/`; goes on with
    /// the failing criteria.
    async fn audit(
        &self,
        round: u32,
        target: &Target<'_>,
        after: &str,
        summary: &mut Summary,
        cancel: &Cancel,
    ) -> Result<Step<Option<Failed>>, DeliveryError> {
        let clock = self.begin("audit", round);
        let sha = self.frozen.lock.sha256.as_str();
        let inputs = [("pack", sha), ("workspace", after)];
        // A resumed audit never writes into the evidence of the one it replaces.
        let stem = format!("audit-round-{}", round + 1);
        let out = (1..)
            .map(|n| match n {
                1 => self.run_dir.join(&stem),
                n => self.run_dir.join(format!("{stem}-attempt-{n}")),
            })
            .find(|dir| !dir.exists())
            .expect("an unused folder name");
        // Each device's report (the serial only in a lab), and the devices left unaudited.
        let (reports, unaudited, written) = match target {
            Target::One(device) => {
                let pack = &self.frozen.pack;
                let progress = |event| (self.events)(Event::Audit(event));
                let measured =
                    match audit::run(*device, pack, self.playbooks, None, &out, &progress).await {
                        Ok(run) => run,
                        Err(AuditError::Device {
                            source: DeviceError::Cancelled,
                            ..
                        }) => return self.interrupted(&clock, &inputs),
                        Err(e) => {
                            return self.environment(
                                &clock,
                                &inputs,
                                format!("the audit failed: {}", crate::diagnostic::chain(&e)),
                            );
                        }
                    };
                let audited = measured.gate(pack, &[]);
                let lock = Some("../pack.lock.json".to_owned());
                let report = AuditReport::of_audit(&self.frozen.lock.sha256, &audited, lock);
                let written = report
                    .publish(pack, &audited.figures, &out)
                    .map_err(local)?;
                summary.criteria = report
                    .checks
                    .iter()
                    .map(|c| (c.check.criterion_id.clone(), word(c.check.result)))
                    .collect();
                (vec![(None, report)], Vec::new(), written)
            }
            Target::Lab { plan, members } => {
                let progress = |event| (self.events)(Event::Lab(event));
                let seats = audit_lab(plan, members, &out, cancel, &progress).await;
                if seats
                    .iter()
                    .any(|s| s.outcome.as_ref().is_err_and(|e| e == lab::INTERRUPTED))
                {
                    return self.interrupted(&clock, &inputs);
                }
                let matrix = LabReport::new(self.frozen, &seats, "audit-1.json");
                let written = lab::publish(&matrix, &lab::junit(&seats), &out).map_err(local)?;
                summary.criteria = matrix
                    .rows
                    .iter()
                    .map(|row| (row.criterion_id.clone(), across(&matrix, &row.results)))
                    .collect();
                let mut reports = Vec::new();
                let mut unaudited = Vec::new();
                for seat in seats {
                    match seat.outcome {
                        Ok(report) => reports.push((Some(seat.member.serial), report)),
                        Err(error) => unaudited.push(format!("{}: {error}", seat.member.serial)),
                    }
                }
                (reports, unaudited, written)
            }
        };
        let dir = self.run_dir;
        summary.reports.extend(
            written
                .iter()
                .map(|p| p.strip_prefix(dir).unwrap_or(p).display().to_string()),
        );
        let mut failures: Vec<Failure> = Vec::new();
        for (serial, report) in reports.iter().filter(|(_, r)| r.verdict != Verdict::Pass) {
            let found =
                failures_from_audit(self.frozen, &serde_json::to_value(report).map_err(local)?);
            for mut failure in found {
                if let Some(serial) = serial {
                    failure.actual = format!("{serial}: {}", failure.actual);
                }
                match failures.iter_mut().find(|f| f.id == failure.id) {
                    Some(known) => known.actual = format!("{}; {}", known.actual, failure.actual),
                    None => failures.push(failure),
                }
            }
        }
        if failures.is_empty() {
            if !unaudited.is_empty() {
                return self.environment(
                    &clock,
                    &inputs,
                    format!("not every device was audited: {}", unaudited.join("; ")),
                );
            }
            self.end(&clock, "pass", &inputs, None, "pass", None)?;
            return Ok(Step::Go(None));
        }
        // The same criteria failing with the same numbers is "the same failure again".
        let measured: Vec<String> = failures
            .iter()
            .map(|f| format!("{}={}", f.id, f.actual))
            .collect();
        let fingerprint = sha256_hex(measured.join("\n").as_bytes());
        let mut inputs = inputs.to_vec();
        inputs.push(("failure", &fingerprint));
        self.end(&clock, "fail", &inputs, None, "fail", None)?;
        Ok(Step::Go(Some(Failed {
            fingerprint,
            failures,
            output: None,
            kind: TerminalReason::AuditFailed,
        })))
    }
}
