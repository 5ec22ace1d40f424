//! `ledger.jsonl`: one JSON line per decision (stage, round, the hashes of its inputs, the
//! outcome, how long it took). Never prompt or answer text.
//!
//! Stages, inputs and outcomes are typed: an outcome is parsed once, against its stage, when
//! a line is read, and matched as a variant everywhere else. The words are the ones the first
//! release wrote, one spelling per outcome; the one it spelled two ways (`environment-error`
//! on stage lines) is still read.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize, Serializer};

use crate::agent::AgentEnd;
use crate::input::{MAX_REPORT_BYTES, ReadError, read_bounded};
use crate::review::ReviewVerdict;
use crate::words::words;

use super::reason::TerminalReason;

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
}

/// A line as written, before its outcome is read against its stage.
#[derive(Deserialize)]
#[serde(rename_all = "kebab-case")]
struct EntryDoc {
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
        }
    }

    /// The hash an input was recorded with.
    pub(crate) fn input(&self, input: Input) -> Option<&str> {
        self.inputs.get(&input).map(String::as_str)
    }
}

/// The ledger could not be appended to.
#[derive(Debug, thiserror::Error)]
#[error("cannot append to the ledger `{}`", path.display())]
pub(crate) struct AppendError {
    /// The ledger.
    pub(crate) path: PathBuf,
    /// The cause.
    #[source]
    pub(crate) source: std::io::Error,
}

/// Appends one entry to `dir/ledger.jsonl` (a single write of a whole line).
pub(crate) fn append(dir: &Path, entry: &Entry) -> Result<(), AppendError> {
    let path = dir.join("ledger.jsonl");
    let error = |source| AppendError {
        path: path.clone(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(error)?;
    let mut line = serde_json::to_string(entry).expect("a ledger entry serializes");
    line.push('\n');
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut file| file.write_all(line.as_bytes()))
        .map_err(error)
}

/// Why a ledger cannot be read back.
#[derive(Debug, thiserror::Error)]
pub(crate) enum LedgerError {
    /// The file cannot be read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// A line is not a ledger entry.
    #[error("{}:{line}: not a ledger entry: {message}", path.display())]
    Malformed {
        /// The ledger.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// What the parser said.
        message: String,
    },
}

/// Reads `dir/ledger.jsonl` back, in order. A last line cut short by a crash mid-write is
/// dropped (every complete line ends with a newline); any other bad line is an error.
pub(crate) fn read(dir: &Path) -> Result<Vec<Entry>, LedgerError> {
    let path = dir.join("ledger.jsonl");
    let bytes = read_bounded(&path, MAX_REPORT_BYTES, "a ledger")?;
    let text = String::from_utf8_lossy(&bytes);
    let complete = match text.rfind('\n') {
        Some(end) => &text[..end],
        None => "",
    };
    complete
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(index, line)| {
            serde_json::from_str(line).map_err(|e| LedgerError::Malformed {
                path: path.clone(),
                line: index + 1,
                message: e.to_string(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_read_back_in_order_and_a_torn_last_line_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let mut entry = Entry::new(Stage::Verify, Outcome::Fail, Duration::from_millis(5));
        entry.round = Some(1);
        entry.inputs.insert(Input::Failure, "ab".repeat(32));
        append(dir.path(), &entry).unwrap();
        append(
            dir.path(),
            &Entry::new(
                Stage::Agent,
                Outcome::Agent(AgentEnd::Exited(0)),
                Duration::ZERO,
            ),
        )
        .unwrap();
        let ledger = dir.path().join("ledger.jsonl");
        let mut text = std::fs::read_to_string(&ledger).unwrap();
        text.push_str("{\"stage\":\"aud");
        std::fs::write(&ledger, &text).unwrap();
        let back = read(dir.path()).unwrap();
        assert_eq!(back.len(), 2);
        assert_eq!(
            (
                back[0].stage.as_str(),
                back[0].round,
                back[0].outcome.word()
            ),
            ("verify", Some(1), "fail".to_owned())
        );
        assert_eq!(back[0].inputs[&Input::Failure], "ab".repeat(32));
        assert_eq!(back[1].round, None);

        std::fs::write(&ledger, "{\"stage\":\"agent\"}\nnot json\n").unwrap();
        let error = read(dir.path()).unwrap_err().to_string();
        assert!(
            error.ends_with(
                "ledger.jsonl:1: not a ledger entry: missing field `outcome` at line 1 column 17"
            ),
            "{error}"
        );
    }

    #[test]
    fn every_outcome_reads_back_from_its_word_on_its_stage() {
        let rows: &[(Stage, Outcome)] = &[
            (Stage::Review, Outcome::Review(ReviewVerdict::Incomplete)),
            (Stage::Review, Outcome::WaiverRefused),
            (Stage::Brief, Outcome::Written),
            (Stage::Agent, Outcome::Agent(AgentEnd::Exited(0))),
            (Stage::Agent, Outcome::Interrupted),
            (Stage::Verify, Outcome::Pass),
            (Stage::Audit, Outcome::Fail),
            (Stage::Audit, Outcome::EnvironmentError),
            (Stage::Deliver, Outcome::Resumed),
            (Stage::Deliver, Outcome::Ended(TerminalReason::Interrupted)),
            (
                Stage::Deliver,
                Outcome::Ended(TerminalReason::EnvironmentError),
            ),
        ];
        for (stage, outcome) in rows {
            assert_eq!(
                Outcome::parse(*stage, &outcome.word()),
                Some(*outcome),
                "{stage} {}",
                outcome.word()
            );
        }
        // One spelling written; the first release's other one still read.
        assert_eq!(Outcome::EnvironmentError.word(), "environment_error");
        assert_eq!(
            Outcome::parse(Stage::Verify, "environment-error"),
            Some(Outcome::EnvironmentError)
        );
        // A word is read against its stage: `pass` is a review verdict on a review line.
        assert_eq!(
            Outcome::parse(Stage::Review, "pass"),
            Some(Outcome::Review(ReviewVerdict::Pass))
        );
        for (stage, word) in [
            (Stage::Brief, "pass"),
            (Stage::Verify, "written"),
            (Stage::Deliver, "pass"),
            (Stage::Agent, "exited zero"),
        ] {
            assert_eq!(Outcome::parse(stage, word), None, "{stage} {word}");
        }
        let line = r#"{"stage":"verify","round":0,"outcome":"bogus"}"#;
        let error = serde_json::from_str::<Entry>(line).unwrap_err().to_string();
        assert!(
            error.contains("a `verify` line has no outcome `bogus`"),
            "{error}"
        );
    }
}
