//! No crash passes, through the real binary: the platform's fault records read around every
//! visit in the form each release allows (hidumper's event list from API 22, the fault
//! logger's files before), a crash or freeze inside a visit failing `stability.crashes` and
//! leaving that visit's other readings unmeasured, a source that does not read unverified,
//! the evidence rebuilt by `verify-evidence`, and the repair brief quoting the crash.

use dwpipe::gate::CheckResult;

use crate::support::{Audited, Ran, Test, capture, first_audit, frozen_fixture, replay_audit};

/// The check of `id`: its result, actual and evidence.
fn check(report: &dwpipe::schema::AuditReport, id: &str) -> (CheckResult, String, String) {
    let check = &report.check(id).check;
    (
        check.result,
        check.actual.clone().unwrap_or_default(),
        check.evidence.clone(),
    )
}

#[test]
fn a_crash_in_a_flow_fails_stability_and_leaves_that_visits_readings_unmeasured() {
    let dir = frozen_fixture("packs/stability.yaml");
    replay_audit(dir.path(), &capture("notes-crash"))
        .status(1)
        .run();
    let report = first_audit(dir.path());
    let (result, actual, evidence) = check(&report, "S-01");
    assert_eq!((result, actual.as_str()), (CheckResult::Fail, "1"));
    // The record the platform kept: its kind, time, visit and first lines; the older crash
    // of the day before is not this audit's.
    for said in [
        "1 crash(es) or freeze(s) in this run's 3 visit(s) (hidumper -e --list)",
        "JsError at 2026-12-06 12:00:21 during flow open-note",
        "Error message:Cannot read properties of undefined (reading 'title')",
    ] {
        assert!(evidence.contains(said), "{said}\n{evidence}");
    }
    // The click's trace was pulled and reads, but it is the crash's, not a response.
    let (result, _, evidence) = check(&report, "P-02");
    assert_eq!(result, CheckResult::Unverified, "{evidence}");
    assert!(
        evidence.contains(
            "no reading: the app crashed during this visit (JsError at 2026-12-06 12:00:21"
        ),
        "{evidence}"
    );
    // The launch screen's visit ended before the crash: its reading stands.
    assert_eq!(check(&report, "X-01").0, CheckResult::Pass);
    let Ran { stdout, .. } = Test::new(dir.path())
        .args([
            "verify-evidence",
            "out/audit-1.json",
            "--pack",
            "pack.lock.json",
        ])
        .status(0)
        .run();
    assert!(stdout.contains("0 difference(s)"), "{stdout}");
    // The repair brief quotes the crash as the platform recorded it, as untrusted text.
    let Ran { stdout, .. } = Test::new(dir.path())
        .args(["brief", "pack.lock.json", "--round", "2"])
        .args(["--repair-from", "out/audit-1.json"])
        .status(0)
        .run();
    assert!(
        stdout.contains(
            "<untrusted-tool-output source=\"the device's fault records\">\nS-01 run 1: 1 crash(es)"
        ),
        "{stdout}"
    );
}

#[test]
fn each_release_is_read_from_the_record_its_shell_may_read() {
    let rows = [
        // 5.0: hidumper -e's files, second-resolution names; the day-before crash is outside.
        (
            "notes-stable-5.0",
            CheckResult::Pass,
            "0",
            "no crash or freeze of the app in this run's 3 visit(s) (hidumper -e (the fault logger's files); ",
        ),
        // HarmonyOS 6.0.2 (API 22): the event list since each visit began.
        (
            "notes-stable-6.0.2",
            CheckResult::Pass,
            "0",
            "(hidumper -e --list; ",
        ),
        // 5.1: an appfreeze file of the ui visit, its name with milliseconds.
        (
            "notes-freeze-5.1",
            CheckResult::Fail,
            "1",
            "appfreeze at 2026-12-06 12:00:12 during ui: Reason:THREAD_BLOCK_6S",
        ),
        // No fault-log section at all: nothing shown to pass.
        (
            "notes-faults-unread",
            CheckResult::Unverified,
            "",
            "the fault records of stability did not read: hidumper printed no fault-log section (it printed nothing)",
        ),
    ];
    for (name, result, actual, said) in rows {
        let dir = frozen_fixture("packs/stability.yaml");
        let code = if result == CheckResult::Pass { 0 } else { 1 };
        replay_audit(dir.path(), &capture(name)).status(code).run();
        let report = first_audit(dir.path());
        let (got, got_actual, evidence) = check(&report, "S-01");
        assert_eq!(
            (got, got_actual.as_str()),
            (result, actual),
            "{name}: {evidence}"
        );
        assert!(evidence.contains(said), "{name}: {said}\n{evidence}");
    }
    // An app gone without a record: no crash counted, but that visit read no app.
    let dir = frozen_fixture("packs/stability.yaml");
    replay_audit(dir.path(), &capture("notes-gone-6.0.2"))
        .status(1)
        .run();
    let report = first_audit(dir.path());
    let (result, actual, evidence) = check(&report, "S-01");
    assert_eq!((result, actual.as_str()), (CheckResult::Pass, "0"));
    assert!(
        evidence.contains("ended otherwise, not counted: no process left after ui, with no record"),
        "{evidence}"
    );
    let (result, _, evidence) = check(&report, "X-01");
    assert_eq!(result, CheckResult::Unverified);
    assert!(evidence.contains("no reading: the app had no process left as the visit ended, and the platform recorded no crash, freeze or kill"), "{evidence}");
    // Another app's window in front as the visit ends: the app runs, its screen is not shown.
    let dir = frozen_fixture("packs/stability.yaml");
    replay_audit(dir.path(), &capture("notes-elsewhere-6.0.2"))
        .status(1)
        .run();
    let (result, _, evidence) = check(&first_audit(dir.path()), "X-01");
    assert_eq!(result, CheckResult::Unverified);
    assert!(
        evidence.contains("no reading: another app's window had the focus as the visit ended: browser0 (window 21, pid 6000)"),
        "{evidence}"
    );
    // A freeze on the launch screen: that visit's touch targets are no reading.
    let dir = frozen_fixture("packs/stability.yaml");
    replay_audit(dir.path(), &capture("notes-freeze-5.1"))
        .status(1)
        .run();
    let (result, _, evidence) = check(&first_audit(dir.path()), "X-01");
    assert_eq!(result, CheckResult::Unverified);
    assert!(evidence.contains("no reading: the app froze during this visit (appfreeze at 2026-12-06 12:00:12: Reason:THREAD_BLOCK_6S)"), "{evidence}");
}
