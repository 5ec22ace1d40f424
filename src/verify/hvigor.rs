//! hvigor as it really reports (research/field-2026-12.md §3.3): its exit code can be 0 after
//! `COMPILE RESULT:FAIL`, and part of its conclusion goes to stderr. The outcome is read from
//! both streams line by line as they arrive (the kept head and tail can lose the middle),
//! never from the exit code:
//!
//! - `fail` on `BUILD FAILED`, `COMPILE RESULT:FAIL`, any `N ERROR:` item, any `> hvigor
//!   ERROR:` line (with or without a numeric code) and any `Tests run:` summary that counts a
//!   failure or an error, wherever it stands among several;
//! - a build passes only on `BUILD SUCCESSFUL` with a `Finished` or `UP-TO-DATE` line for the
//!   ArkTS compile task (and, when the command declares its HAPs, each exists and is not older
//!   than the workspace's newest source file: an up-to-date build does not rewrite it);
//! - `hvigorw test` / `onDeviceTest` (no compile line) pass on `BUILD SUCCESSFUL` with a test
//!   result line and no failure in it;
//! - anything else is inconclusive, which is never a pass.
//!
//! Lines are read as hvigor's terminal would show them: colour codes removed, and a line of
//! carriage-return progress split at each `\r`; a line too long for the observer is still
//! searched for these markers, window by window.
//!
//! Every compiler error is kept as a structured item, in the older style (`1 ERROR:
//! ArkTS:ERROR File: <path>:<line>:<col>` then the message) and the newer one (`1 ERROR:
//! 10505001 ArkTS Compiler Error` then `Error Message: … At File: <path>:<line>:<col>`).

use std::sync::LazyLock;

use crate::schema::CompileError;
use regex::Regex;

/// At most this many errors are kept (a broken import can print thousands).
const MAX_ERRORS: usize = 100;

/// What the log said, as far as it has streamed.
#[derive(Debug, Default)]
pub(crate) struct HvigorLog {
    successful: bool,
    failed: bool,
    compile_fail: bool,
    compiled: bool,
    /// `Tests run:` summaries seen: cases run and failures + errors, over all of them.
    tests: Option<(u64, u64)>,
    errors: Vec<CompileError>,
    /// An error item whose message is on the next line(s).
    open: Option<CompileError>,
}

/// How a build or test run came out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum HvigorOutcome {
    /// Shown to pass.
    Pass,
    /// Shown to fail.
    Fail,
    /// Neither: why.
    Inconclusive(String),
}

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("static regex")
}

static COMPILE_TASK: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?:Finished|UP-TO-DATE) :\S*@CompileArkTS\b"));
static ERROR_ITEM: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*\d+ ERROR:\s*(.*)$"));
static HVIGOR_ERROR: LazyLock<Regex> =
    LazyLock::new(|| re(r"^> hvigor ERROR:\s*(?:Error Code:\s*)?(\d{8})\b\s*(.*)$"));
static OLD_FILE: LazyLock<Regex> =
    LazyLock::new(|| re(r"ArkTS:ERROR File:\s*(.+?):(\d+):(\d+)\s*$"));
static CODE: LazyLock<Regex> = LazyLock::new(|| re(r"^(\d{8})\b\s*(.*)$"));
static AT_FILE: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(.*?)\s*At [Ff]ile:\s*(.+?):(\d+)(?::(\d+))?\s*$"));
static TESTS_RUN: LazyLock<Regex> =
    LazyLock::new(|| re(r"Tests run:\s*(\d+),\s*Failure:\s*(\d+),\s*Error:\s*(\d+)"));
/// An error item anywhere in a line (a window of a long line is not parsed into items).
static ERROR_ANYWHERE: LazyLock<Regex> = LazyLock::new(|| re(r"(?:^|\s)\d+ ERROR:"));
/// A terminal escape sequence: CSI (colours, cursor moves) or OSC (titles, links).
static ESCAPE: LazyLock<Regex> =
    LazyLock::new(|| re(r"\x1b(?:\[[0-9;?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])"));

impl HvigorLog {
    /// Reads one line of stdout or stderr as the runner observed it: colour codes removed,
    /// carriage-return progress split into its lines; a window of a line too long to read
    /// whole is searched for the conclusion markers only.
    pub(crate) fn observe(&mut self, line: crate::process::Line<'_>) {
        let plain = ESCAPE.replace_all(line.text, "");
        for part in plain.split('\r') {
            if line.cut {
                self.markers(part);
            } else {
                self.line(part);
            }
        }
    }

    /// What a line says about the build's conclusion, wherever it stands in it.
    fn markers(&mut self, line: &str) {
        if line.contains("BUILD SUCCESSFUL") {
            self.successful = true;
        }
        if line.contains("BUILD FAILED") {
            self.failed = true;
        }
        if line.contains("COMPILE RESULT:FAIL") {
            self.compile_fail = true;
        }
        if line.contains("> hvigor ERROR:") || ERROR_ANYWHERE.is_match(line) {
            self.failed = true;
        }
        if COMPILE_TASK.is_match(line) {
            self.compiled = true;
        }
        // Every summary counts: a failing suite followed by a passing one is a failure.
        for c in TESTS_RUN.captures_iter(line) {
            let n = |i: usize| c[i].parse::<u64>().unwrap_or(u64::MAX);
            let (run, failed) = self.tests.unwrap_or((0, 0));
            self.tests = Some((
                run.saturating_add(n(1)),
                failed.saturating_add(n(2)).saturating_add(n(3)),
            ));
        }
    }

    /// Reads one whole line (its `\r`, colour codes already removed).
    pub(crate) fn line(&mut self, line: &str) {
        self.markers(line);
        if let Some(open) = &mut self.open {
            let text = line.trim();
            if let Some(message) = text.strip_prefix("Error Message:") {
                let message = message.trim();
                match AT_FILE.captures(message) {
                    Some(c) => {
                        open.message = c[1].trim().to_owned();
                        open.file = Some(c[2].to_owned());
                        open.line = c[3].parse().ok();
                        open.column = c.get(4).and_then(|m| m.as_str().parse().ok());
                    }
                    None => open.message = message.to_owned(),
                }
                self.close();
                return;
            }
            if open.file.is_some() && open.message.is_empty() && !text.is_empty() {
                // The older style: the message is the line after `File:`.
                open.message = text.to_owned();
                self.close();
                return;
            }
            if text.is_empty() || ERROR_ITEM.is_match(line) || line.starts_with('>') {
                self.close();
            } else {
                return;
            }
        }
        if let Some(c) = ERROR_ITEM.captures(line) {
            let rest = c[1].trim();
            let mut item = CompileError {
                code: None,
                file: None,
                line: None,
                column: None,
                message: String::new(),
            };
            if let Some(f) = OLD_FILE.captures(rest) {
                item.file = Some(f[1].to_owned());
                item.line = f[2].parse().ok();
                item.column = f[3].parse().ok();
            } else if let Some(code) = CODE.captures(rest) {
                item.code = Some(code[1].to_owned());
                item.message = code[2].trim().to_owned();
            } else {
                item.message = rest.to_owned();
            }
            self.open = Some(item);
        } else if let Some(c) = HVIGOR_ERROR.captures(line) {
            self.open = Some(CompileError {
                code: Some(c[1].to_owned()),
                file: None,
                line: None,
                column: None,
                message: c[2].trim().to_owned(),
            });
        }
    }

    fn close(&mut self) {
        if let Some(item) = self.open.take()
            && self.errors.len() < MAX_ERRORS
        {
            self.errors.push(item);
        }
    }

    /// The outcome once both streams ended; `fresh` says whether the declared HAPs are there
    /// and newer than the sources (`None`: none declared).
    pub(crate) fn outcome(
        &mut self,
        is_test: bool,
        fresh: Option<Result<(), String>>,
    ) -> HvigorOutcome {
        self.close();
        if self.failed || self.compile_fail || !self.errors.is_empty() {
            return HvigorOutcome::Fail;
        }
        if is_test {
            return match (self.successful, self.tests) {
                (true, Some((run, 0))) if run > 0 => HvigorOutcome::Pass,
                (_, Some((_, failed))) if failed > 0 => HvigorOutcome::Fail,
                (true, _) => HvigorOutcome::Inconclusive(
                    "BUILD SUCCESSFUL, but no test result line (`Tests run: …`)".to_owned(),
                ),
                (false, _) => HvigorOutcome::Inconclusive(
                    "neither BUILD SUCCESSFUL nor BUILD FAILED".to_owned(),
                ),
            };
        }
        match (self.successful, self.compiled, fresh) {
            (true, true, None | Some(Ok(()))) => HvigorOutcome::Pass,
            (true, true, Some(Err(why))) => HvigorOutcome::Inconclusive(why),
            (true, false, _) => HvigorOutcome::Inconclusive(
                "BUILD SUCCESSFUL, but no `Finished` or `UP-TO-DATE` line for the ArkTS compile \
                 task: nothing shows the code was compiled"
                    .to_owned(),
            ),
            (false, _, _) => HvigorOutcome::Inconclusive(
                "neither BUILD SUCCESSFUL nor BUILD FAILED: the build did not conclude".to_owned(),
            ),
        }
    }

    /// The compiler errors found.
    pub(crate) fn errors(&self) -> &[CompileError] {
        &self.errors
    }
}

#[cfg(test)]
mod tests;
