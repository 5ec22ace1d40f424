//! `junit.xml`: one test case per criterion, readable by Jenkins and GitLab. A failure carries
//! the recomputed reason; an unverified criterion is skipped with why. A lab's is a suite per
//! device (a comparison's is [`mod@super::junit_compare`]'s).

use std::fmt::Write;

use crate::diagnostic::{Diagnostic, Severity};
use crate::gate::{AssertionVerdict, CheckResult};
use crate::pack::Weight;

use crate::schema::{Column, UnreachableServer};

use crate::schema::{AuditReport, ReportCheck};

pub(super) fn escape(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_control() || matches!(c, '\n' | '\t'))
        .map(|c| match c {
            '&' => "&amp;".to_owned(),
            '<' => "&lt;".to_owned(),
            '>' => "&gt;".to_owned(),
            '"' => "&quot;".to_owned(),
            '\'' => "&apos;".to_owned(),
            other => other.to_string(),
        })
        .collect()
}

/// One suite's counts and XML.
pub(super) struct Suite {
    pub(super) tests: usize,
    pub(super) failures: usize,
    pub(super) errors: usize,
    pub(super) skipped: usize,
    pub(super) xml: String,
}

/// A case that errored (the environment's, not the app's): `class` and `name` as given,
/// `message` escaped.
pub(super) fn error_case(class: &str, name: &str, message: &str) -> String {
    format!(
        "    <testcase classname=\"{}\" name=\"{}\">\n      <error message=\"{}\"/>\n    </testcase>\n",
        escape(class),
        escape(name),
        escape(message)
    )
}

/// A suite of one errored case: a device with no report, a server that did not answer.
pub(super) fn error_suite(suite: &str, (class, name): (&str, &str), message: &str) -> Suite {
    Suite {
        tests: 1,
        failures: 0,
        errors: 1,
        skipped: 0,
        xml: format!(
            "  <testsuite name=\"{}\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\">\n{}  </testsuite>\n",
            escape(suite),
            error_case(class, name, message)
        ),
    }
}

/// Renders the report as JUnit XML (one suite named after the device or the pack).
pub fn junit(report: &AuditReport) -> String {
    document(&[suite(report, "")])
}

/// A lab's JUnit XML: a suite per device column (its audit's, or an error saying why it has
/// none), and one per hdc server that could not be listed.
pub(crate) fn junit_lab(columns: &[Column<'_>], unreachable: &[UnreachableServer]) -> String {
    let devices = columns.iter().map(|c| {
        (
            c.name(),
            c.outcome.as_ref().map(|(r, _)| *r).map_err(String::as_str),
        )
    });
    let servers = unreachable
        .iter()
        .map(|s| (format!("hdc server {}", s.server), Err(s.reason.as_str())));
    let suites: Vec<Suite> = devices
        .chain(servers)
        .map(|(serial, outcome)| match outcome {
            Ok(report) => suite(report, &format!("{serial}.")),
            Err(error) => error_suite(
                &format!("dwpipe audit {serial}"),
                (&format!("{serial}.device"), "audit"),
                error,
            ),
        })
        .collect();
    document(&suites)
}

pub(super) fn document(suites: &[Suite]) -> String {
    let total = |f: fn(&Suite) -> usize| suites.iter().map(f).sum::<usize>();
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"dwpipe\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" errors=\"{}\">\n{}</testsuites>\n",
        total(|s| s.tests),
        total(|s| s.failures),
        total(|s| s.skipped),
        total(|s| s.errors),
        suites.iter().map(|s| s.xml.as_str()).collect::<String>()
    )
}

/// The suite's `<properties>`: what the audit was, where and when, as far as the report knows.
fn properties(report: &AuditReport) -> String {
    let mut known: Vec<(&str, &str)> = vec![
        ("dwpipe-version", &report.dwpipe_version),
        ("pack-sha256", &report.pack_sha256),
        // The outcome as the page's banner says it (`unverified` is not the app's failure).
        ("verdict", report.word()),
    ];
    let optional = [
        ("started", report.started.as_deref()),
        ("ended", report.ended.as_deref()),
        (
            "workspace-fingerprint",
            report.workspace.as_ref().map(|w| w.fingerprint.as_str()),
        ),
        (
            "commit",
            report.workspace.as_ref().and_then(|w| w.commit.as_deref()),
        ),
        ("not-recorded-in-history", report.unrecorded.as_deref()),
    ];
    known.extend(optional.into_iter().filter_map(|(k, v)| Some((k, v?))));
    let replayed = report
        .source
        .as_ref()
        .filter(|s| s.is_replay())
        .map(ToString::to_string);
    if let Some(replayed) = &replayed {
        known.push(("replay-of", replayed));
    }
    let state_before = report.device_state.as_ref().map(|s| s.before.summary());
    let state_after = report
        .device_state
        .as_ref()
        .and_then(|s| s.after.as_ref())
        .map(crate::audit::DeviceState::summary);
    known.extend(
        [
            ("device-state-before", state_before.as_deref()),
            ("device-state-after", state_after.as_deref()),
        ]
        .into_iter()
        .filter_map(|(k, v)| Some((k, v?))),
    );
    let seconds = report.device_time.as_ref().map(|t| t.seconds.to_string());
    if let Some(seconds) = &seconds {
        known.push(("device-seconds", seconds));
    }
    if let Some(device) = &report.device {
        known.push(("device-serial", &device.serial));
        let of_device = [
            ("device-model", device.model.as_deref()),
            ("device-software", device.software_version.as_deref()),
            ("hdc-server", device.server.as_deref()),
        ];
        known.extend(of_device.into_iter().filter_map(|(k, v)| Some((k, v?))));
    }
    // Warnings of no criterion (a replay's unserved exchanges): a property each.
    let warnings: Vec<String> = report
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Warning && d.criterion_id.is_none())
        .map(|d| format!("{}: {}", d.code, d.message))
        .collect();
    known.extend(warnings.iter().map(|w| ("warning", w.as_str())));
    let mut xml = String::from("    <properties>\n");
    for (name, value) in known {
        let _ = writeln!(
            xml,
            "      <property name=\"{name}\" value=\"{}\"/>",
            escape(value)
        );
    }
    xml.push_str("    </properties>\n");
    xml
}

/// `F-01 (must): The note list opens within 800 ms`: a case read without its suite still says
/// what was checked.
pub(super) fn case_name(id: &str, weight: Weight, statement: Option<&str>) -> String {
    match statement {
        Some(statement) => format!(
            "{id} ({weight}): {}",
            crate::text::one_line(statement, crate::text::LINE)
        ),
        None => format!("{id} ({weight})"),
    }
}

/// What one criterion's case counts as in its suite.
enum Counted {
    Passed,
    Failed,
    Skipped,
}

/// One criterion's `<testcase>`, appended to `cases`.
fn check_case(
    report: &AuditReport,
    (entry, said): (&ReportCheck, &[&Diagnostic]),
    class_prefix: &str,
    cases: &mut String,
) -> Counted {
    let check = &entry.check;
    let errors: Vec<String> = said
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| format!("{}: {}", d.code, d.message))
        .collect();
    let failed = check.result == CheckResult::Fail
        || check.assertion_verdict == AssertionVerdict::Fail
        || !errors.is_empty();
    let time = report
        .device_time
        .as_ref()
        .map(|t| t.seconds_of(entry.measurements.iter().flat_map(|m| &m.runs)))
        .map_or_else(String::new, |s| format!(" time=\"{s:.3}\""));
    let _ = writeln!(
        cases,
        "    <testcase classname=\"{}{}\" name=\"{}\"{time}>",
        escape(class_prefix),
        escape(check.dimension.as_str()),
        escape(&case_name(
            &check.criterion_id,
            check.weight,
            check.statement.as_deref()
        )),
    );
    // A should criterion that failed does not fail the gate (the exit code is 0 when
    // every must passed): a failure here would turn a passing gate's dashboard red.
    let failed_should = failed && check.weight == Weight::Should && errors.is_empty();
    let counted = if failed_should {
        let _ = writeln!(
            cases,
            "      <skipped message=\"{}\"/>",
            escape(&format!(
                "a should criterion failed (the gate passes on its musts): {}; actual: {}, expected: {}",
                check.reason.as_deref().unwrap_or("the check says fail"),
                check.actual.as_deref().unwrap_or("none"),
                check.expected.as_deref().unwrap_or("no assertion")
            ))
        );
        Counted::Skipped
    } else if failed {
        let mut reason = check
            .reason
            .clone()
            .unwrap_or_else(|| format!("the check says {}", check.result.as_str()));
        if !errors.is_empty() {
            reason = format!("{reason}; {}", errors.join("; "));
        }
        let _ = writeln!(
            cases,
            "      <failure message=\"{}\">actual: {}\nexpected: {}\nevidence: {}</failure>",
            escape(&reason),
            escape(check.actual.as_deref().unwrap_or("none")),
            escape(check.expected.as_deref().unwrap_or("no assertion")),
            escape(&check.evidence)
        );
        Counted::Failed
    } else if check.result == CheckResult::Unverified {
        let _ = writeln!(
            cases,
            "      <skipped message=\"unverified: {}\"/>",
            escape(&check.evidence)
        );
        Counted::Skipped
    } else {
        Counted::Passed
    };
    // The statement, and every warning said of the criterion (an unstable measurement): a
    // dashboard shows what a green case has to say.
    let warnings = said.iter().filter(|d| d.severity == Severity::Warning);
    let said: Vec<String> = check
        .statement
        .iter()
        .cloned()
        .chain(warnings.map(|d| format!("warning {}: {}", d.code, d.message)))
        .collect();
    if !said.is_empty() {
        let _ = writeln!(
            cases,
            "      <system-out>{}</system-out>",
            escape(&said.join("\n"))
        );
    }
    cases.push_str("    </testcase>\n");
    counted
}

/// ` time="1.234"` when the device time is known.
pub(super) fn time_attribute(seconds: Option<f64>) -> String {
    seconds.map_or_else(String::new, |s| format!(" time=\"{s:.3}\""))
}

/// One suite per audit; `class_prefix` (`SERIAL.` in a lab) keeps each device's cases apart
/// where a dashboard groups them by class.
fn suite(report: &AuditReport, class_prefix: &str) -> Suite {
    let suite = report.device.as_ref().map_or_else(
        || "dwpipe gate".to_owned(),
        |d| format!("dwpipe audit {}", d.serial),
    );
    let mut cases = String::new();
    let (mut failures, mut skipped) = (0, 0);
    let said_of = crate::report::headline::by_criterion(report);
    for entry in &report.checks {
        let said = said_of.get(entry.check.criterion_id.as_str());
        match check_case(
            report,
            (entry, said.map_or(&[][..], Vec::as_slice)),
            class_prefix,
            &mut cases,
        ) {
            Counted::Failed => failures += 1,
            Counted::Skipped => skipped += 1,
            Counted::Passed => {}
        }
    }
    // What failed the audit without belonging to a criterion (the exit code counts it too).
    let mut errors = 0;
    let checked: std::collections::HashSet<&str> = report
        .checks
        .iter()
        .map(|c| c.check.criterion_id.as_str())
        .collect();
    let unowned: Vec<String> = report
        .diagnostics
        .iter()
        .filter(|d| {
            d.severity == Severity::Error
                && !d
                    .criterion_id
                    .as_deref()
                    .is_some_and(|id| checked.contains(id))
        })
        .map(|d| format!("{}: {}", d.code, d.message))
        .collect();
    for (name, problem) in [
        ("errors", (!unowned.is_empty()).then(|| unowned.join("; "))),
        (
            "history",
            report
                .unrecorded
                .as_ref()
                .map(|why| format!("not recorded in the history: {why}")),
        ),
    ] {
        if let Some(problem) = problem {
            errors += 1;
            cases.push_str(&error_case(&format!("{class_prefix}audit"), name, &problem));
        }
    }
    let tests = report.checks.len() + errors;
    Suite {
        tests,
        failures,
        errors,
        skipped,
        xml: format!(
            "  <testsuite name=\"{}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\"{}{}>\n{}{cases}  </testsuite>\n",
            escape(&suite),
            report
                .started
                .as_ref()
                .map(|t| format!(" timestamp=\"{}\"", escape(t)))
                .unwrap_or_default(),
            report
                .device_time
                .as_ref()
                .map(|t| format!(" time=\"{:.3}\"", t.seconds))
                .unwrap_or_default(),
            properties(report),
        ),
    }
}
