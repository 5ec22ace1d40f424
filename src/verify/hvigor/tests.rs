//! Tests of `crate::verify::hvigor`.

use super::*;

fn read(log: &str) -> HvigorLog {
    let mut hvigor = HvigorLog::default();
    for line in log.lines() {
        hvigor.line(line);
    }
    hvigor
}

#[test]
fn a_successful_build_compiled_its_code() {
    let log = "> hvigor UP-TO-DATE :entry:default@ProcessResource...\n> hvigor Finished :entry:default@CompileArkTS... after 22 s 340 ms\n> hvigor BUILD SUCCESSFUL in 44 s\n";
    assert_eq!(read(log).outcome(false, None), HvigorOutcome::Pass);
    let cached =
        "> hvigor UP-TO-DATE :entry:default@CompileArkTS...\n> hvigor BUILD SUCCESSFUL in 3 s\n";
    assert_eq!(
        read(cached).outcome(false, Some(Ok(()))),
        HvigorOutcome::Pass
    );
    assert!(matches!(
        read(cached).outcome(false, Some(Err("stale".into()))),
        HvigorOutcome::Inconclusive(_)
    ));
    assert!(matches!(
        read("> hvigor BUILD SUCCESSFUL in 1 s\n").outcome(false, None),
        HvigorOutcome::Inconclusive(_)
    ));
    assert!(matches!(
        read("> hvigor Finished :entry:default@CompileArkTS...\n").outcome(false, None),
        HvigorOutcome::Inconclusive(_)
    ));
}

/// The older (≤ API 11) style, with the exit code 0 hvigor can give after it.
#[test]
fn older_style_errors_are_items() {
    let log = "> hvigor ERROR: Failed :entry:default@CompileArkTS...\n> hvigor ERROR: ArkTS Compiler Error\n1 ERROR: ArkTS:ERROR File: E:/app/entry/src/main/ets/pages/VideoPlayer.ets:15:1\n Cannot find name 'Videoo'.\n\n2 WARN: ArkTS:WARN File: E:/app/entry/src/main/ets/pages/Index.ets:3:1\n unused\nCOMPILE RESULT:FAIL {ERROR:2 WARN:27}\n";
    let mut hvigor = read(log);
    assert_eq!(hvigor.outcome(false, None), HvigorOutcome::Fail);
    assert_eq!(
        hvigor.errors()[0],
        CompileError {
            code: None,
            file: Some("E:/app/entry/src/main/ets/pages/VideoPlayer.ets".into()),
            line: Some(15),
            column: Some(1),
            message: "Cannot find name 'Videoo'.".into(),
        }
    );
}

#[test]
fn newer_style_errors_are_items() {
    let log = "1 ERROR: 10505001 ArkTS Compiler Error\nError Message: Property 'x' does not exist on type 'Y'. At File: C:/app/entry/src/main/ets/pages/Index.ets:177:21\n\n> hvigor ERROR: 00305015 Rollup Error\nError Message: Failed to resolve OhmUrl. At file: /app/entry/src/main/ets/Foo.ets:12\n\n> hvigor ERROR: BUILD FAILED in 26 s 363 ms\n";
    let mut hvigor = read(log);
    assert_eq!(hvigor.outcome(false, None), HvigorOutcome::Fail);
    let errors = hvigor.errors();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert_eq!(errors[0].code.as_deref(), Some("10505001"));
    assert_eq!(
        errors[0].message,
        "Property 'x' does not exist on type 'Y'."
    );
    assert_eq!(
        (errors[0].file.as_deref(), errors[0].line, errors[0].column),
        (
            Some("C:/app/entry/src/main/ets/pages/Index.ets"),
            Some(177),
            Some(21)
        )
    );
    assert_eq!(errors[1].code.as_deref(), Some("00305015"));
    assert_eq!((errors[1].line, errors[1].column), (Some(12), None));
}

#[test]
fn test_runs_need_their_result_lines() {
    let pass = "> hvigor BUILD SUCCESSFUL in 9 s\nTests run: 4, Failure: 0, Error: 0, Pass: 4, Ignore: 0\n";
    assert_eq!(read(pass).outcome(true, None), HvigorOutcome::Pass);
    let fail = "Tests run: 4, Failure: 1, Error: 0, Pass: 3, Ignore: 0\n> hvigor BUILD SUCCESSFUL in 9 s\n";
    assert_eq!(read(fail).outcome(true, None), HvigorOutcome::Fail);
    assert!(matches!(
        read("> hvigor BUILD SUCCESSFUL in 9 s\n").outcome(true, None),
        HvigorOutcome::Inconclusive(_)
    ));
}

fn observed(lines: &[(&str, bool)]) -> HvigorLog {
    let mut hvigor = HvigorLog::default();
    for (text, cut) in lines {
        hvigor.observe(crate::process::Line {
            pipe: crate::process::Pipe::Out,
            text,
            cut: *cut,
        });
    }
    hvigor
}

#[test]
fn colour_carriage_returns_and_windows_hide_no_failure() {
    let success = [
        ("> hvigor Finished :entry:default@CompileArkTS...", false),
        ("> hvigor BUILD SUCCESSFUL in 4 s", false),
    ];
    let failing: [&[(&str, bool)]; 4] = [
        &[(
            "\u{1b}[31m1 ERROR:\u{1b}[39m 10505001 ArkTS Compiler Error",
            false,
        )],
        &[(
            "50%\r1 ERROR: 10505001 ArkTS Compiler Error\rError Message: x",
            false,
        )],
        &[("> hvigor ERROR: Failed :entry:default@SignHap...", false)],
        &[("##########> hvigor BUILD FAILED in 9 s", true)],
    ];
    for lines in failing {
        let mut all = lines.to_vec();
        all.extend(success);
        assert_eq!(
            observed(&all).outcome(false, None),
            HvigorOutcome::Fail,
            "{lines:?}"
        );
    }
    assert_eq!(observed(&success).outcome(false, None), HvigorOutcome::Pass);
    // A window of a long line is searched for markers, never parsed into items.
    let mut window = observed(&[("1 ERROR: 10505001 x", true)]);
    assert!(window.errors().is_empty());
    assert_eq!(window.outcome(false, None), HvigorOutcome::Fail);
}

#[test]
fn every_test_summary_counts() {
    let log = "Tests run: 4, Failure: 1, Error: 0, Pass: 3, Ignore: 0\nTests run: 3, Failure: 0, Error: 0, Pass: 3, Ignore: 0\n> hvigor BUILD SUCCESSFUL in 9 s\n";
    assert_eq!(read(log).outcome(true, None), HvigorOutcome::Fail);
    let both = "Tests run: 4, Failure: 0, Error: 0, Pass: 4, Ignore: 0\nTests run: 3, Failure: 0, Error: 0, Pass: 3, Ignore: 0\n> hvigor BUILD SUCCESSFUL in 9 s\n";
    assert_eq!(read(both).outcome(true, None), HvigorOutcome::Pass);
}
