//! A ledger line: who decided (its stage), on what (its inputs' hashes), what (its outcome,
//! parsed against its stage), and how long it took.

use crate::agent::AgentEnd;
use crate::review::ReviewVerdict;
use crate::schema::TerminalReason;
use crate::words::words;
use serde::{Deserialize, Serialize, Serializer};
use std::collections::BTreeMap;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

words! {
    /// Who decided.
    pub(crate) enum Stage {
        /// The pre-review of the pack.
        Review = "review",
        /// A brief written for the agent.
        Brief = "brief",
        /// The agent's run.
        Agent = "agent",
        /// The verification commands.
        Verify = "verify",
        /// The audit on the device.
        Audit = "audit",
        /// The delivery itself: resumed, or ended with its terminal reason.
        Deliver = "deliver",
    }
}

words! {
    /// What a decision was made on (each a hash).
    pub(crate) enum Input {
        /// The brief's text.
        Brief = "brief",
        /// The failure fingerprint (what "the same failure again" compares).
        Failure = "failure",
        /// The lock.
        Pack = "pack",
        /// The workspace fingerprint.
        Workspace = "workspace",
    }
}

/// What was decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// The review's verdict on the lock.
    Review(ReviewVerdict),
    /// `--no-review` refused under fail-mode closed.
    WaiverRefused,
    /// The brief was written.
    Written,
    /// The agent's process ended this way.
    Agent(AgentEnd),
    /// Verification or the audit passed.
    Pass,
    /// Verification or the audit failed.
    Fail,
    /// A signal stopped the stage.
    Interrupted,
    /// A tool, the device or the machine failed under the stage.
    EnvironmentError,
    /// The delivery was picked up again.
    Resumed,
    /// The delivery ended.
    Ended(TerminalReason),
}

impl Outcome {
    /// The word the ledger holds.
    pub(crate) fn word(&self) -> String {
        match self {
            Outcome::Review(verdict) => verdict.as_str().to_owned(),
            Outcome::WaiverRefused => "waiver-refused".to_owned(),
            Outcome::Written => "written".to_owned(),
            Outcome::Agent(end) => end.to_string(),
            Outcome::Pass => "pass".to_owned(),
            Outcome::Fail => "fail".to_owned(),
            Outcome::Interrupted => TerminalReason::Interrupted.as_str().to_owned(),
            Outcome::EnvironmentError => TerminalReason::EnvironmentError.as_str().to_owned(),
            Outcome::Resumed => "resumed".to_owned(),
            Outcome::Ended(reason) => reason.as_str().to_owned(),
        }
    }

    /// Reads the word of a `stage` line; `None` for a word that stage never writes.
    pub(crate) fn parse(stage: Stage, word: &str) -> Option<Outcome> {
        let common = match word {
            "interrupted" => Some(Outcome::Interrupted),
            // The first release's stage lines spelled it with a hyphen.
            "environment_error" | "environment-error" => Some(Outcome::EnvironmentError),
            _ => None,
        };
        match stage {
            Stage::Deliver => match word {
                "resumed" => Some(Outcome::Resumed),
                _ => TerminalReason::parse(word).map(Outcome::Ended),
            },
            Stage::Review => match word {
                "waiver-refused" => Some(Outcome::WaiverRefused),
                _ => ReviewVerdict::parse(word).map(Outcome::Review).or(common),
            },
            Stage::Brief => (word == "written").then_some(Outcome::Written).or(common),
            Stage::Agent => word.parse().ok().map(Outcome::Agent).or(common),
            Stage::Verify | Stage::Audit => match word {
                "pass" => Some(Outcome::Pass),
                "fail" => Some(Outcome::Fail),
                _ => common,
            },
        }
    }
}

impl Serialize for Outcome {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.word())
    }
}

/// One decision.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", try_from = "EntryDoc")]
pub(crate) struct Entry {
    /// Milliseconds since the Unix epoch.
    pub(crate) time_ms: u128,
    /// Who decided.
    pub(crate) stage: Stage,
    /// The repair round, when the stage has one.
    pub(crate) round: Option<u32>,
    /// Hashes of what the decision was made on.
    pub(crate) inputs: BTreeMap<Input, String>,
    /// What was decided.
    pub(crate) outcome: Outcome,
    /// Why, in a few words (never prompt or answer text).
    pub(crate) reason: Option<String>,
    /// How long the stage took.
    pub(crate) duration_ms: u128,
    /// Its tool left processes running when it exited (they were stopped).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) leaked: bool,
    /// SHA-256 of the line before (of `run.json` for a run's first line): the chain a resumed
    /// run checks. Absent in ledgers of the first release.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) prev: Option<String>,
}

/// A line as written, before its outcome is read against its stage.
#[derive(Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(super) struct EntryDoc {
    #[serde(default)]
    time_ms: u128,
    stage: Stage,
    #[serde(default)]
    round: Option<u32>,
    #[serde(default)]
    inputs: BTreeMap<Input, String>,
    outcome: String,
    #[serde(default)]
    reason: Option<String>,
    #[serde(default)]
    duration_ms: u128,
    #[serde(default)]
    leaked: bool,
    #[serde(default)]
    prev: Option<String>,
}

impl TryFrom<EntryDoc> for Entry {
    type Error = String;

    fn try_from(doc: EntryDoc) -> Result<Entry, String> {
        let outcome = Outcome::parse(doc.stage, &doc.outcome).ok_or_else(|| {
            format!(
                "a `{}` line has no outcome `{}`",
                doc.stage.as_str(),
                doc.outcome
            )
        })?;
        Ok(Entry {
            time_ms: doc.time_ms,
            stage: doc.stage,
            round: doc.round,
            inputs: doc.inputs,
            outcome,
            reason: doc.reason,
            duration_ms: doc.duration_ms,
            leaked: doc.leaked,
            prev: doc.prev,
        })
    }
}

impl Entry {
    /// An entry stamped now.
    pub(crate) fn new(stage: Stage, outcome: Outcome, duration: Duration) -> Entry {
        Entry {
            time_ms: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_millis()),
            stage,
            round: None,
            inputs: BTreeMap::new(),
            outcome,
            reason: None,
            duration_ms: duration.as_millis(),
            leaked: false,
            prev: None,
        }
    }

    /// The hash an input was recorded with.
    pub(crate) fn input(&self, input: Input) -> Option<&str> {
        self.inputs.get(&input).map(String::as_str)
    }
}
