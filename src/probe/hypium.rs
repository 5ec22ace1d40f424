//! hypium test results from `aa test … OpenHarmonyTestRunner`: per-case results from the
//! `OHOS_REPORT_STATUS` blocks (status code 1 started, 0 pass, -1 error, -2 failure) and the
//! one summary line `Tests run: N, Failure: F, Error: E, Pass: P, Ignore: I`
//! (research/field-2026-12.md §1.4, §3.5). An abnormal run (`TestFinished-ResultCode: -1`,
//! `App died`, no summary) is an error, never a pass; a criterion about one suite or case is
//! judged by that suite's cases alone, and an expected case that did not report is blocked
//! (xdevice's rule).

use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

/// The outcome of one test case.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct Case {
    /// Test class (suite).
    pub(crate) class: String,
    /// Test name.
    pub(crate) test: String,
    /// `pass`, `error`, `failure`, `skipped`, `started` (never finished) or `code <n>`.
    pub(crate) result: String,
}

/// A case newer hypium reports skipped (`OHOS_REPORT_STATUS_CODE: -3`).
const SKIPPED: &str = "skipped";

/// The summary line's counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Tests run.
    pub run: u32,
    /// Failed assertions.
    pub(crate) failure: u32,
    /// Errors.
    pub error: u32,
    /// Passed.
    pub(crate) pass: u32,
    /// Ignored.
    pub(crate) ignore: u32,
}

/// A parsed `aa test` output.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HypiumReport {
    /// `pass` when the summary has no failure and no error and every case finished.
    pub verdict: &'static str,
    /// The summary.
    pub summary: Summary,
    /// Each case, in order of first appearance.
    pub(crate) cases: Vec<Case>,
    /// The summary line, as evidence.
    pub(crate) evidence: String,
}

/// Output that is not a usable test result.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HypiumError {
    /// No summary line, or more than one.
    #[error("expected exactly one `Tests run:` summary line, found {0}")]
    Summary(usize),
    /// hdc or the runner failed.
    #[error("the test run failed to start: {0}")]
    Failed(String),
    /// The run ended abnormally: the app died, or the runner said so.
    #[error("the test run ended abnormally: {0}")]
    Abnormal(String),
    /// The suite (or case) a criterion names reported nothing.
    #[error("{0} reported no case (is it the `describe` name, and is the test HAP installed?)")]
    NotReported(String),
    /// The summary counts failures the cases' codes do not show: which case failed is not
    /// known, so no part of the run can be judged a pass.
    #[error("{0}: which case failed is not known, so {1} cannot be judged a pass")]
    Disagree(String, String),
}

/// A criterion's judgement of one run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Judged {
    /// `pass` or `fail`.
    pub verdict: &'static str,
    /// What it was judged on.
    pub detail: String,
    /// A case count that disagrees with the summary line.
    pub warning: Option<String>,
}

impl HypiumReport {
    /// Judges the cases a criterion is about: the whole run (no suite), one suite, or one
    /// case; every `expect`ed case must have reported.
    pub fn judge(
        &self,
        suite: Option<&str>,
        case: Option<&str>,
        expect: &[String],
    ) -> Result<Judged, HypiumError> {
        let selected: Vec<&Case> = self
            .cases
            .iter()
            .filter(|c| suite.is_none_or(|s| c.class == s) && case.is_none_or(|t| c.test == t))
            .collect();
        let named = match (suite, case) {
            (Some(suite), Some(case)) => format!("`{suite}#{case}`"),
            (Some(suite), None) => format!("suite `{suite}`"),
            _ => "the run".to_owned(),
        };
        let blocked: Vec<&str> = expect
            .iter()
            .filter(|name| !selected.iter().any(|c| &c.test == *name))
            .map(String::as_str)
            .collect();
        if suite.is_some() && selected.is_empty() && expect.is_empty() {
            return Err(HypiumError::NotReported(named));
        }
        let unexplained = self.unexplained_failures();
        // A skipped case neither fails its suite nor passes it, at every level alike: the
        // suite passes when nothing failed and at least one case passed.
        let failed: Vec<String> = selected
            .iter()
            .filter(|c| c.result != "pass" && c.result != SKIPPED)
            .map(|c| format!("{} {}", c.test, c.result))
            .collect();
        let skipped: Vec<&str> = selected
            .iter()
            .filter(|c| c.result == SKIPPED)
            .map(|c| c.test.as_str())
            .collect();
        let passed = blocked.is_empty()
            && failed.is_empty()
            && if suite.is_some() {
                selected.iter().any(|c| c.result == "pass")
            } else {
                self.verdict == "pass"
            };
        let mut detail = if suite.is_some() {
            format!(
                "{named}: {} of {} case(s) passed",
                selected.iter().filter(|c| c.result == "pass").count(),
                selected.len()
            )
        } else {
            self.evidence.clone()
        };
        if !failed.is_empty() {
            detail.push_str("; ");
            detail.push_str(&failed.join(", "));
        }
        if !skipped.is_empty() {
            detail.push_str("; skipped: ");
            detail.push_str(&skipped.join(", "));
        }
        if !blocked.is_empty() {
            detail.push_str("; blocked (expected, never reported): ");
            detail.push_str(&blocked.join(", "));
        }
        if let Some(unexplained) = unexplained {
            // The run as a whole fails on its summary; a part of it cannot be told apart.
            if suite.is_some() && passed {
                return Err(HypiumError::Disagree(unexplained, named));
            }
            detail.push_str("; ");
            detail.push_str(&unexplained);
        }
        let finished = self.cases.iter().filter(|c| c.result != "started").count();
        let warning = (finished != self.summary.run as usize).then(|| {
            format!(
                "{finished} case(s) reported a result, the summary line says {} run",
                self.summary.run
            )
        });
        Ok(Judged {
            verdict: if passed { "pass" } else { "fail" },
            detail,
            warning,
        })
    }
}

impl HypiumReport {
    /// Where the summary counts more failures and errors than the cases' codes show (`Failure:
    /// 1` with every case coded 0): how many each says.
    fn unexplained_failures(&self) -> Option<String> {
        let summed = self.summary.failure.saturating_add(self.summary.error);
        let coded = self
            .cases
            .iter()
            .filter(|c| c.result == "error" || c.result == "failure")
            .count();
        (summed as usize > coded).then(|| {
            format!(
                "the summary counts {} failure(s) and {} error(s), the cases' codes {coded}",
                self.summary.failure, self.summary.error
            )
        })
    }
}

static SUMMARY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?m)^OHOS_REPORT_RESULT:\s*stream=Tests run:\s*(\d+),\s*Failure:\s*(\d+),\s*Error:\s*(\d+),\s*Pass:\s*(\d+),\s*Ignore:\s*(\d+)").expect("static regex")
});

/// Parses `aa test` output.
pub fn parse(output: &str) -> Result<HypiumReport, HypiumError> {
    let output = output.replace('\r', "");
    if let Some(fail) = output
        .lines()
        .find(|l| l.starts_with("[Fail]") || l.starts_with("error: failed to start user test"))
    {
        return Err(HypiumError::Failed(fail.trim().to_owned()));
    }
    if let Some(abnormal) = output
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("TestFinished-ResultCode: -1") || l.contains("App died"))
    {
        return Err(HypiumError::Abnormal(abnormal.to_owned()));
    }
    let summaries: Vec<_> = SUMMARY.captures_iter(&output).collect();
    if summaries.len() != 1 {
        return Err(HypiumError::Summary(summaries.len()));
    }
    let s = &summaries[0];
    let number = |i: usize| s[i].parse().unwrap_or(u32::MAX);
    let summary = Summary {
        run: number(1),
        failure: number(2),
        error: number(3),
        pass: number(4),
        ignore: number(5),
    };
    let mut cases: Vec<Case> = Vec::new();
    let (mut class, mut test) = (String::new(), String::new());
    for line in output.lines() {
        if let Some(field) = line.strip_prefix("OHOS_REPORT_STATUS:") {
            match field.trim().split_once('=') {
                Some(("class", value)) => class = value.to_owned(),
                Some(("test", value)) => test = value.to_owned(),
                _ => {}
            }
        } else if let Some(code) = line.strip_prefix("OHOS_REPORT_STATUS_CODE:") {
            let result = match code.trim() {
                "1" => "started".to_owned(),
                "0" => "pass".to_owned(),
                "-1" => "error".to_owned(),
                "-2" => "failure".to_owned(),
                // Newer hypium's skipped case (OhReport `specDone`, `isSkip`).
                "-3" => SKIPPED.to_owned(),
                other => format!("code {other}"),
            };
            match cases
                .iter_mut()
                .find(|c| c.class == class && c.test == test)
            {
                Some(case) => case.result = result,
                None => cases.push(Case {
                    class: class.clone(),
                    test: test.clone(),
                    result,
                }),
            }
        }
    }
    let unfinished = cases.iter().any(|c| c.result == "started");
    let case_failed = cases
        .iter()
        .any(|c| c.result == "error" || c.result == "failure");
    // A run of skipped cases only passed nothing: the same rule a suite is judged by.
    let passed_one = if cases.is_empty() {
        summary.pass > 0
    } else {
        cases.iter().any(|c| c.result == "pass")
    };
    let passed =
        passed_one && summary.failure == 0 && summary.error == 0 && !unfinished && !case_failed;
    Ok(HypiumReport {
        verdict: if passed { "pass" } else { "fail" },
        summary,
        cases,
        evidence: s[0].to_owned(),
    })
}

#[cfg(test)]
mod tests;
