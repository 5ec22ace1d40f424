//! The gate an agent's stop hook runs (`dwpipe hook stop`): what `deliver` runs after its
//! agent — verification, then the audit once it passes — on the workspace as it stands, for an
//! agent that works outside dwpipe (inside Claude Code, Codex, Cursor or OpenCode). It runs in a
//! run folder of its own like any delivery (ledger, reports, `deliver.json`), with no review
//! and no agent stage, and on a failure writes the repair brief the agent is sent back with.

use crate::brief::repair;
use crate::process::Cancel;
use crate::schema::DeliverReport;
use crate::target::Opened;
use crate::verify::{StatCache, fingerprint};

use super::halt::{Halt, Staged};
use super::{Delivery, DeliveryError};

/// What a delivery, or one gate round, came to.
#[derive(Debug)]
pub(crate) struct Gated {
    /// The run's summary, as `deliver.json` holds it.
    pub(crate) report: DeliverReport,
    /// What a gate round sent the agent back with, when it failed (a delivery repairs its
    /// own failures: never one).
    pub(crate) failure: Option<GateFailure>,
}

impl Gated {
    /// A delivery's end: its report.
    pub(crate) fn delivered(report: DeliverReport) -> Gated {
        Gated {
            report,
            failure: None,
        }
    }
}

/// A failed gate round: what the repair guard counts and what the agent is sent back with.
#[derive(Debug)]
pub(crate) struct GateFailure {
    /// The failure's fingerprint ("the same failure again").
    pub(crate) fingerprint: String,
    /// The repair brief (also written into the run folder).
    pub(crate) brief: String,
}

impl Delivery<'_> {
    /// Round `round` of a hook's gate: verification, then the audit, of the workspace as it
    /// stands; recorded and ended like a delivery.
    pub(crate) async fn gate(
        &self,
        target: &Opened,
        round: u32,
        cancel: &Cancel,
    ) -> Result<Gated, DeliveryError> {
        let mut report = DeliverReport::new(self.run_dir.path(), &self.frozen.lock.sha256);
        let mut failure = None;
        let ended = self
            .gate_round(target, round, cancel, &mut report, &mut failure)
            .await;
        let report = self.conclude(report, ended)?;
        Ok(Gated { report, failure })
    }

    async fn gate_round(
        &self,
        target: &Opened,
        round: u32,
        cancel: &Cancel,
        summary: &mut DeliverReport,
        failure: &mut Option<GateFailure>,
    ) -> Staged<()> {
        let cache_path = self.run_dir.stat_cache();
        let mut cache = StatCache::load(&cache_path);
        let now = fingerprint(&self.config.workspace, &mut cache, cancel)
            .await
            .map_err(DeliveryError::Fingerprint)?;
        let _ = cache.save(&cache_path);
        let failed = self
            .measure(round, target, &now, (&mut cache, cancel), summary, false)
            .await?;
        let Some(failed) = failed else {
            return Ok(());
        };
        summary.unresolved = failed.failures.iter().map(|f| f.id.clone()).collect();
        let output = failed
            .output
            .as_ref()
            .map(|q| (q.source.as_str(), q.text.as_str()));
        let next = round + 1;
        let brief = repair(
            self.frozen,
            Some(self.config),
            next,
            failed.failures,
            output,
            None,
        )?;
        self.brief(next, &brief)?;
        *failure = Some(GateFailure {
            fingerprint: failed.fingerprint,
            brief,
        });
        Err(Halt::Stop {
            reason: failed.kind,
            detail: None,
        })
    }
}
