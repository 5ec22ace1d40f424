//! What a capture was recorded with, held against the audit that replays it before its
//! first call: the sessions (each playbook file's SHA-256) and the run plan (where each visit
//! began); and, visit by visit, the mark the replay goes on from.

use std::collections::BTreeMap;

use super::{Capture, CaptureError, Operation};

impl Capture {
    /// Whether an audit running `sessions` (name → SHA-256 of its playbook file) can be
    /// answered: refused, before the first call, when the capture was recorded by a dwpipe
    /// whose sessions did other things (format 1: fixed sleeps where sessions now poll for
    /// the app's window) or with another version of one of these sessions. A replay of such a
    /// capture would otherwise stop at its first differing exchange with a mismatch that
    /// names neither cause.
    pub(crate) fn recorded_with(
        &self,
        sessions: &BTreeMap<String, String>,
    ) -> Result<(), CaptureError> {
        let outdated = |message: String| CaptureError {
            code: "E_CAPTURE_OUTDATED",
            file: self.root.join("transcript.yaml"),
            exchange: None,
            message: format!(
                "{message}; re-record it with `dwpipe audit --device SERIAL --record DIR` (the bundled fixtures: `python3 device-fixtures/generate.py`)"
            ),
        };
        let by = self.recorded_by.as_deref().map_or_else(
            || " by an earlier dwpipe".to_owned(),
            |by| format!(" by {by}"),
        );
        if self.format_version < 2 {
            return Err(outdated(format!(
                "recorded{by} in transcript format-version {}, whose sessions slept fixed times where this dwpipe polls for the app's window and records every pause",
                self.format_version
            )));
        }
        if self.format_version < 3 {
            return Err(outdated(format!(
                "recorded{by} in transcript format-version {}, which does not say where each visit began: a replay could not refuse an audit planned with other runs",
                self.format_version
            )));
        }
        let Some(recorded) = &self.sessions else {
            return Ok(());
        };
        for (name, sha256) in sessions {
            match recorded.get(name) {
                Some(then) if then == sha256 => {}
                Some(_) => {
                    return Err(outdated(format!(
                        "recorded{by} with another version of session `{name}` than this audit runs"
                    )));
                }
                None => {
                    return Err(outdated(format!(
                        "recorded{by} without session `{name}`, which this audit runs"
                    )));
                }
            }
        }
        Ok(())
    }

    /// Whether an audit that plans these visits (`1 cold-start`, `1 flow open-note`, … in
    /// order) is the audit the capture recorded: refused before the first call when the
    /// capture's visits differ (another `--runs`, another pack), which would otherwise read
    /// as the app failing.
    pub(crate) fn planned(&self, visits: &[String]) -> Result<(), CaptureError> {
        let recorded: Vec<&str> = self
            .exchanges
            .iter()
            .filter_map(|e| match &e.operation {
                Some(Operation::Visit(label)) => Some(label.as_str()),
                _ => None,
            })
            .collect();
        if recorded
            .iter()
            .copied()
            .eq(visits.iter().map(String::as_str))
        {
            return Ok(());
        }
        Err(CaptureError {
            code: "E_CAPTURE_PLAN",
            file: self.root.join("transcript.yaml"),
            exchange: None,
            message: format!(
                "the capture was recorded with another run plan: {}; this audit plans {}",
                plan_in_words(recorded.iter().copied()),
                plan_in_words(visits.iter().map(String::as_str))
            ),
        })
    }

    /// The index of the visit mark `label` from `from` on: the next mark the capture has,
    /// which must be this one (another is a mismatch naming both).
    pub(crate) fn visit_from(&self, from: usize, label: &str) -> Result<usize, CaptureError> {
        let next = self
            .exchanges
            .iter()
            .enumerate()
            .skip(from)
            .find_map(|(i, e)| match &e.operation {
                Some(Operation::Visit(recorded)) => Some((i, recorded.as_str())),
                _ => None,
            });
        let mismatch = |exchange: Option<usize>, message: String| CaptureError {
            code: "E_CAPTURE_MISMATCH",
            file: self.root.join("transcript.yaml"),
            exchange,
            message,
        };
        match next {
            Some((index, recorded)) if recorded == label => Ok(index),
            Some((index, recorded)) => Err(mismatch(
                Some(index + 1),
                format!(
                    "the audit begins visit `{label}`; the capture's next visit is `{recorded}`"
                ),
            )),
            None => Err(mismatch(
                None,
                format!(
                    "the audit begins visit `{label}`; the capture has no visit after exchange {from}"
                ),
            )),
        }
    }
}

/// A run plan in words: how many visits, and each visit with its runs (`3 runs of
/// cold-start, 1 of hypium`).
fn plan_in_words<'a>(visits: impl Iterator<Item = &'a str>) -> String {
    let mut runs: Vec<(&str, u32)> = Vec::new();
    for label in visits {
        let visit = label.split_once(' ').map_or(label, |(_, visit)| visit);
        match runs.iter_mut().find(|(v, _)| *v == visit) {
            Some((_, n)) => *n += 1,
            None => runs.push((visit, 1)),
        }
    }
    if runs.is_empty() {
        return "no visit".to_owned();
    }
    let each: Vec<String> = runs
        .iter()
        .map(|(visit, n)| format!("{visit} ×{n}"))
        .collect();
    each.join(", ")
}
