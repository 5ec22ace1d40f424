//! The verification stage: the declared commands, `verify-<n>.json`, and what failed.

use crate::brief::failures_from_verify;
use crate::diagnostic::chain;
use crate::output::write_atomic;
use crate::process::Cancel;
use crate::schema::CommandStatus;
use crate::verify::{StatCache, VerifyError, verify};

use super::super::halt::Staged;
use super::super::ledger::{Input, Outcome, Stage};
use super::super::run_dir::RunDir;
use super::super::{Delivery, Note};
use super::{Failed, Quoted};
use crate::schema::TerminalReason;

/// What verification found.
pub(in crate::pipeline) struct Verified {
    /// Its report, in the run directory.
    pub(in crate::pipeline) report: String,
    /// What failed, for the repair brief.
    pub(in crate::pipeline) failed: Option<Failed>,
}

impl Delivery<'_> {
    /// Runs the declared verification commands on the workspace (fingerprinted `after`).
    pub(in crate::pipeline) async fn verify(
        &self,
        round: u32,
        after: &str,
        cache: &mut StatCache,
        cancel: &Cancel,
    ) -> Staged<Verified> {
        let clock = self.begin(Stage::Verify, round);
        let workspace = self.config.workspace.as_path();
        let inputs = [(Input::Workspace, after)];
        let verified = match verify(workspace, &self.config.verify, round, cache, cancel).await {
            Ok(report) => report,
            Err(VerifyError::Cancelled) => return Err(self.interrupted(&clock, &inputs)),
            Err(e) => {
                let detail = format!("{}: {}", e.code(), chain(&e));
                return Err(self.environment(&clock, &inputs, detail));
            }
        };
        if verified.commands.iter().any(|c| c.leaked) {
            clock.leaked();
        }
        let name = RunDir::verify_name(round);
        let path = self.run_dir.path().join(&name);
        let text = serde_json::to_string_pretty(&verified).expect("a report serializes") + "\n";
        write_atomic(&path, text.as_bytes())?;
        let failure = verified.failure_fingerprint();
        let outcome = if verified.verdict == CommandStatus::Pass {
            Outcome::Pass
        } else {
            Outcome::Fail
        };
        let mut inputs = vec![(Input::Workspace, verified.fingerprint_after.as_str())];
        inputs.extend(failure.as_deref().map(|f| (Input::Failure, f)));
        self.end(&clock, outcome, &inputs, None, Note::None, Some(path))?;
        let failed = failure.map(|fingerprint| {
            let (failures, output) = failures_from_verify(&verified);
            Failed {
                fingerprint,
                failures,
                output: Some(Quoted {
                    source: name.clone(),
                    text: output,
                }),
                kind: TerminalReason::VerificationFailed,
            }
        });
        Ok(Verified {
            report: name,
            failed,
        })
    }
}
