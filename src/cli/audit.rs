//! `dwpipe audit`, in every shape: one device (or a recorded capture), a lab of devices, a
//! same-device A/B of two builds, an A/B over a lab. The arguments become one plan, preflight
//! opens the target, the session engine runs the plan, and the outcome is shown.

use std::path::Path;

use crate::audit::Required;
use crate::config::Config;
use crate::gate::load_auditor_report;
use crate::history::Recorder;
use crate::playbook::Playbooks;
use crate::process::Cancel;
use crate::session::{self, AuditPlan, BuildUnderTest, Request};
use crate::target::Opened;

use super::args::AuditArgs;
use super::error::Error;
use super::progress::SessionProgress;
use super::runtime::block_on;
use super::{Edge, Run, load_lock, out_or_default, show, summary_md};

impl Run for AuditArgs {
    fn json(&self) -> bool {
        self.output.json
    }

    fn drives_children(&self) -> bool {
        true
    }

    fn execute(self, edge: &Edge) -> Result<i32, Error> {
        let hdc = edge
            .client(&self.client)
            .leases_beside(self.history.as_ref());
        let json = self.output.json;
        let frozen = load_lock(&self.lock)?;
        let playbooks = Playbooks::load(self.measuring.playbooks.as_deref())?;
        let target = self
            .target
            .target()
            .expect("clap requires --device, --devices or --replay");
        let plan = AuditPlan::new(Request {
            frozen: &frozen,
            lock: self.lock.clone(),
            playbooks: &playbooks,
            target,
            record: self.record,
            out: out_or_default(self.out.as_deref(), "audit"),
            runs: self.runs,
            ab: self
                .baseline_hap
                .zip(self.candidate_hap)
                .map(|(baseline, candidate)| (baseline, candidate, self.max_runs)),
            history: self.history.as_ref().map(Recorder::at),
            strict: self.measuring.strict,
            auditor: self
                .auditor_report
                .as_deref()
                .map(load_auditor_report)
                .transpose()?,
            build: BuildUnderTest::default(),
            require: required(self.config.as_deref(), &self.require)?,
        })?;
        let cancel = Cancel::new();
        let progress = SessionProgress::new(json);
        let outcome = block_on(&cancel, async {
            let checks = crate::preflight::playbooks(&frozen.pack, &playbooks);
            let opened = crate::preflight::open(checks, &plan.target, &hdc, &cancel)
                .await
                .1?;
            let outcome = session::run(&plan, &opened, &cancel, &progress).await;
            // A recording is written out whatever the session's end.
            if let Opened::One(device) = &opened {
                device.finish().await?;
            }
            Ok::<_, Error>(outcome?)
        });
        progress.finish();
        let outcome = outcome?;
        show::outcome(&outcome, json);
        if let Some(path) = &self.summary.summary_md {
            summary_md::add(path, &summary_md::of_outcome(&outcome))?;
        }
        Ok(outcome.exit_code())
    }
}

/// The preconditions besides the pack's: dwpipe.yaml's `device.require` (`--config`, else
/// ./dwpipe.yaml when there is one), then `--require`.
fn required(config: Option<&Path>, cli: &[String]) -> Result<Vec<Required>, Error> {
    let default = Path::new("dwpipe.yaml");
    let config = config.or_else(|| default.is_file().then_some(default));
    let from_config = match config {
        Some(path) => Config::load(path)?.device.require,
        None => Vec::new(),
    };
    let by = |by: &'static str, conditions: &[String]| {
        conditions
            .iter()
            .map(|condition| Required {
                condition: condition.clone(),
                by: by.to_owned(),
            })
            .collect::<Vec<_>>()
    };
    let mut required = by("dwpipe.yaml", &from_config);
    required.extend(by("--require", cli));
    Ok(required)
}
