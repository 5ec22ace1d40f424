//! hypium test results from `aa test … OpenHarmonyTestRunner`: per-case results from the
//! `OHOS_REPORT_STATUS` blocks (status code 1 started, 0 pass, -1 error, -2 failure) and the
//! one summary line `Tests run: N, Failure: F, Error: E, Pass: P, Ignore: I`.

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
    /// `pass`, `error`, `failure`, `started` (never finished) or `code <n>`.
    pub(crate) result: String,
}

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
    let passed = summary.run > 0
        && summary.failure == 0
        && summary.error == 0
        && !unfinished
        && !case_failed;
    Ok(HypiumReport {
        verdict: if passed { "pass" } else { "fail" },
        summary,
        cases,
        evidence: s[0].to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use std::fmt::Write;

    use super::*;

    const CASE: &str = "OHOS_REPORT_STATUS: class=NoteListTest\nOHOS_REPORT_STATUS: current=1\nOHOS_REPORT_STATUS: id=JS\nOHOS_REPORT_STATUS: numtests=2\nOHOS_REPORT_STATUS: stream=\nOHOS_REPORT_STATUS: test=";

    fn run(cases: &[(&str, &str)], summary: &str) -> String {
        let mut text = String::new();
        for (test, code) in cases {
            let _ = write!(
                text,
                "{CASE}{test}\nOHOS_REPORT_STATUS_CODE: 1\n\n{CASE}{test}\nOHOS_REPORT_STATUS_CODE: {code}\nOHOS_REPORT_STATUS: consuming=4\n\n"
            );
        }
        text + summary
    }

    #[test]
    fn passing_failing_and_broken_runs() {
        let ok = parse(&run(&[("saves", "0"), ("deletes", "0")], "OHOS_REPORT_RESULT: stream=Tests run: 2, Failure: 0, Error: 0, Pass: 2, Ignore: 0\nOHOS_REPORT_CODE: 0\n")).unwrap();
        assert_eq!(ok.verdict, "pass");
        assert_eq!(ok.cases.len(), 2);
        assert!(
            ok.cases
                .iter()
                .all(|c| c.result == "pass" && c.class == "NoteListTest")
        );
        let failed = parse(&run(
            &[("saves", "0"), ("deletes", "-2")],
            "OHOS_REPORT_RESULT: stream=Tests run: 2, Failure: 1, Error: 0, Pass: 1, Ignore: 0\n",
        ))
        .unwrap();
        assert_eq!(failed.verdict, "fail");
        assert_eq!(failed.cases[1].result, "failure");
        let errored = parse(&run(
            &[("saves", "-1")],
            "OHOS_REPORT_RESULT: stream=Tests run: 1, Failure: 0, Error: 1, Pass: 0, Ignore: 0\n",
        ))
        .unwrap();
        assert_eq!(errored.cases[0].result, "error");
        let lying = parse(&run(
            &[("saves", "-2")],
            "OHOS_REPORT_RESULT: stream=Tests run: 1, Failure: 0, Error: 0, Pass: 1, Ignore: 0\n",
        ))
        .unwrap();
        assert_eq!(
            lying.verdict, "fail",
            "a failed case fails the run whatever the summary says"
        );
        let unfinished = parse(&format!("{CASE}saves\nOHOS_REPORT_STATUS_CODE: 1\nOHOS_REPORT_RESULT: stream=Tests run: 1, Failure: 0, Error: 0, Pass: 1, Ignore: 0\n")).unwrap();
        assert_eq!(
            (unfinished.verdict, unfinished.cases[0].result.as_str()),
            ("fail", "started")
        );
        assert_eq!(
            parse(&run(&[("saves", "0")], "")),
            Err(HypiumError::Summary(0))
        );
        let twice =
            "OHOS_REPORT_RESULT: stream=Tests run: 1, Failure: 0, Error: 0, Pass: 1, Ignore: 0\n"
                .repeat(2);
        assert_eq!(parse(&twice), Err(HypiumError::Summary(2)));
        assert!(matches!(
            parse("[Fail][E001005] Device not found or connected\r\n"),
            Err(HypiumError::Failed(_))
        ));
        assert_eq!(parse(""), Err(HypiumError::Summary(0)));
    }
}
