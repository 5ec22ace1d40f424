//! Hypium's `aa test` output, as every release prints it.

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

/// Newer hypium's skipped case (`-3`, as OhReport prints it): the run and its suite
/// agree; a skipped case fails nothing and passes nothing.
#[test]
fn a_skipped_case_is_judged_alike_at_every_level() {
    let report = parse(&run(
        &[("saves", "0"), ("deletes", "-3")],
        "OHOS_REPORT_RESULT: stream=Tests run: 2, Failure: 0, Error: 0, Pass: 1, Ignore: 1\nOHOS_REPORT_CODE: 0\n",
    ))
    .unwrap();
    assert_eq!(report.verdict, "pass");
    let suite = report.judge(Some("NoteListTest"), None, &[]).unwrap();
    assert_eq!(suite.verdict, "pass", "{}", suite.detail);
    assert!(
        suite
            .detail
            .contains("1 of 2 case(s) passed; skipped: deletes"),
        "{}",
        suite.detail
    );
    let case = report
        .judge(Some("NoteListTest"), Some("deletes"), &[])
        .unwrap();
    assert_eq!(
        case.verdict, "fail",
        "a skipped case did not pass: {}",
        case.detail
    );
    let all_skipped = parse(&run(
        &[("saves", "-3")],
        "OHOS_REPORT_RESULT: stream=Tests run: 1, Failure: 0, Error: 0, Pass: 0, Ignore: 1\n",
    ))
    .unwrap();
    assert_eq!(all_skipped.verdict, "fail");
    assert_eq!(
        all_skipped
            .judge(Some("NoteListTest"), None, &[])
            .unwrap()
            .verdict,
        "fail"
    );
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
    for abnormal in ["TestFinished-ResultCode: -1\n", "App died\n"] {
        let output = run(&[("saves", "0")], abnormal);
        assert!(
            matches!(parse(&output), Err(HypiumError::Abnormal(_))),
            "{abnormal}"
        );
    }
}

/// Two suites; the criterion about one is judged by its cases, a suite that does not exist
/// is not a pass, and an expected case that never reported is blocked.
#[test]
fn suites_cases_and_expected_cases() {
    let other = "OHOS_REPORT_STATUS: class=EditorTest\nOHOS_REPORT_STATUS: test=types\nOHOS_REPORT_STATUS_CODE: 1\n\nOHOS_REPORT_STATUS: class=EditorTest\nOHOS_REPORT_STATUS: test=types\nOHOS_REPORT_STATUS_CODE: -2\n";
    let output = run(&[("saves", "0"), ("deletes", "0")], other)
        + "OHOS_REPORT_RESULT: stream=Tests run: 3, Failure: 1, Error: 0, Pass: 2, Ignore: 0\n";
    let report = parse(&output).unwrap();
    let notes = report.judge(Some("NoteListTest"), None, &[]).unwrap();
    assert_eq!(notes.verdict, "pass", "{}", notes.detail);
    assert_eq!(notes.detail, "suite `NoteListTest`: 2 of 2 case(s) passed");
    assert_eq!(notes.warning, None);
    let editor = report.judge(Some("EditorTest"), None, &[]).unwrap();
    assert_eq!(editor.verdict, "fail");
    assert!(
        editor.detail.ends_with("types failure"),
        "{}",
        editor.detail
    );
    assert_eq!(report.judge(None, None, &[]).unwrap().verdict, "fail");
    assert!(matches!(
        report.judge(Some("NoSuchSuite"), None, &[]),
        Err(HypiumError::NotReported(_))
    ));
    let one = report
        .judge(Some("NoteListTest"), Some("saves"), &[])
        .unwrap();
    assert_eq!(
        (one.verdict, one.detail.as_str()),
        ("pass", "`NoteListTest#saves`: 1 of 1 case(s) passed")
    );
    let blocked = report
        .judge(
            Some("NoteListTest"),
            None,
            &["saves".into(), "archives".into()],
        )
        .unwrap();
    assert_eq!(blocked.verdict, "fail");
    assert!(
        blocked
            .detail
            .ends_with("blocked (expected, never reported): archives"),
        "{}",
        blocked.detail
    );
    let short = parse(&(run(&[("saves", "0")], "") + "OHOS_REPORT_RESULT: stream=Tests run: 2, Failure: 0, Error: 0, Pass: 2, Ignore: 0\n")).unwrap();
    assert_eq!(
        short.judge(None, None, &[]).unwrap().warning.as_deref(),
        Some("1 case(s) reported a result, the summary line says 2 run")
    );
}

/// The summary and the cases' codes disagree (`Failure: 1`, every case coded 0): the run is
/// not a pass, and no suite of it can be judged one.
#[test]
fn a_summary_that_counts_failures_no_case_shows_is_never_a_pass() {
    let report = parse(&run(
        &[("saves", "0"), ("deletes", "0")],
        "OHOS_REPORT_RESULT: stream=Tests run: 2, Failure: 1, Error: 0, Pass: 2, Ignore: 0\nOHOS_REPORT_CODE: 0\n",
    ))
    .unwrap();
    assert_eq!(report.verdict, "fail");
    let run = report.judge(None, None, &[]).unwrap();
    assert_eq!(run.verdict, "fail");
    assert!(
        run.detail
            .contains("the summary counts 1 failure(s) and 0 error(s), the cases' codes 0"),
        "{}",
        run.detail
    );
    let suite = report.judge(Some("NoteListTest"), None, &[]).unwrap_err();
    assert!(
        suite.to_string().contains(
            "which case failed is not known, so suite `NoteListTest` cannot be judged a pass"
        ),
        "{suite}"
    );
    let case = report
        .judge(Some("NoteListTest"), Some("saves"), &[])
        .unwrap_err();
    assert!(matches!(case, HypiumError::Disagree(..)));
}
