//! `junit.xml`: one test case per criterion, readable by Jenkins and GitLab. A failure carries
//! the recomputed reason; an unverified criterion is skipped with why. A comparison's cases
//! fail when regressed or inconclusive.

use std::fmt::Write;

use crate::diagnostic::Severity;
use crate::gate::{AssertionVerdict, CheckResult};
use crate::pack::Weight;

use crate::schema::{Comparison, Regression};

use crate::schema::AuditReport;

fn escape(text: &str) -> String {
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
struct Suite {
    tests: usize,
    failures: usize,
    errors: usize,
    skipped: usize,
    xml: String,
}

/// Renders the report as JUnit XML (one suite named after the device or the pack).
pub fn junit(report: &AuditReport) -> String {
    document(&[suite(report)])
}

/// A lab's JUnit XML: one suite per device; a device that could not be audited is one suite
/// with one error.
pub(crate) fn junit_lab(devices: &[(String, Result<&AuditReport, &str>)]) -> String {
    let suites: Vec<Suite> = devices
        .iter()
        .map(|(serial, outcome)| match outcome {
            Ok(report) => suite(report),
            Err(error) => Suite {
                tests: 1,
                failures: 0,
                errors: 1,
                skipped: 0,
                xml: format!(
                    "  <testsuite name=\"dwpipe audit {serial}\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\">\n    <testcase classname=\"device\" name=\"audit\">\n      <error message=\"{}\"/>\n    </testcase>\n  </testsuite>\n",
                    escape(error),
                    serial = escape(serial),
                ),
            },
        })
        .collect();
    document(&suites)
}

/// A comparison's JUnit XML: one case per criterion; regressed and inconclusive both fail
/// (an inconclusive comparison is never shown green), with the reason.
pub(crate) fn junit_compare(comparison: &Comparison) -> String {
    let mut cases = String::new();
    let mut failures = 0;
    for c in &comparison.criteria {
        let _ = writeln!(
            cases,
            "    <testcase classname=\"regression\" name=\"{} ({})\">",
            escape(&c.criterion_id),
            c.weight
        );
        if matches!(c.verdict, Regression::Regressed | Regression::Inconclusive) {
            failures += 1;
            let _ = writeln!(
                cases,
                "      <failure message=\"{}: {}\"/>",
                c.verdict.as_str(),
                escape(&c.reason)
            );
        }
        cases.push_str("    </testcase>\n");
    }
    let tests = comparison.criteria.len();
    document(&[Suite {
        tests,
        failures,
        errors: 0,
        skipped: 0,
        xml: format!(
            "  <testsuite name=\"dwpipe compare\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" skipped=\"0\">\n{cases}  </testsuite>\n"
        ),
    }])
}

fn document(suites: &[Suite]) -> String {
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

fn suite(report: &AuditReport) -> Suite {
    let suite = report.device.as_ref().map_or_else(
        || "dwpipe gate".to_owned(),
        |d| format!("dwpipe audit {}", d.serial),
    );
    let mut cases = String::new();
    let (mut failures, mut skipped) = (0, 0);
    for entry in &report.checks {
        let check = &entry.check;
        let errors: Vec<String> = report
            .diagnostics
            .iter()
            .filter(|d| {
                d.severity == Severity::Error
                    && d.criterion_id.as_deref() == Some(check.criterion_id.as_str())
            })
            .map(|d| format!("{}: {}", d.code, d.message))
            .collect();
        let failed = check.result == CheckResult::Fail
            || check.assertion_verdict == AssertionVerdict::Fail
            || !errors.is_empty();
        let _ = writeln!(
            cases,
            "    <testcase classname=\"{}\" name=\"{} ({})\">",
            escape(check.dimension.as_str()),
            escape(&check.criterion_id),
            check.weight
        );
        // A should criterion that failed does not fail the gate (the exit code is 0 when
        // every must passed): a failure here would turn a passing gate's dashboard red.
        let failed_should = failed && check.weight == Weight::Should && errors.is_empty();
        if failed_should {
            skipped += 1;
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
        } else if failed {
            failures += 1;
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
        } else if check.result == CheckResult::Unverified {
            skipped += 1;
            let _ = writeln!(
                cases,
                "      <skipped message=\"unverified: {}\"/>",
                escape(&check.evidence)
            );
        }
        if let Some(statement) = &check.statement {
            let _ = writeln!(
                cases,
                "      <system-out>{}</system-out>",
                escape(statement)
            );
        }
        cases.push_str("    </testcase>\n");
    }
    let tests = report.checks.len();
    Suite {
        tests,
        failures,
        errors: 0,
        skipped,
        xml: format!(
            "  <testsuite name=\"{}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" skipped=\"{skipped}\"{}>\n{}{cases}  </testsuite>\n",
            escape(&suite),
            report
                .started
                .as_ref()
                .map(|t| format!(" timestamp=\"{}\"", escape(t)))
                .unwrap_or_default(),
            properties(report),
        ),
    }
}
