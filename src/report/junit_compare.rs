//! The JUnit XML of what holds two builds against each other: a comparison (one case per
//! criterion; regressed and inconclusive both fail) and an A/B lab (a suite per device).

use std::fmt::Write;

use crate::gate::Verdict;
use crate::report::numbers::delta;
use crate::schema::{AbLabReport, Comparison, Regression};

use super::junit::{Suite, case_name, document, error_case, error_suite, escape, time_attribute};

/// A comparison's JUnit XML: one case per criterion; regressed and inconclusive both fail
/// (an inconclusive comparison is never shown green), with the reason.
pub(crate) fn junit_compare(comparison: &Comparison) -> String {
    let mut cases = String::new();
    let mut failures = 0;
    for c in &comparison.criteria {
        let _ = writeln!(
            cases,
            "    <testcase classname=\"regression\" name=\"{}\"{}>",
            escape(&case_name(
                &c.criterion_id,
                c.weight,
                c.statement.as_deref()
            )),
            time_attribute(c.device_seconds)
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

/// A lab's A/B JUnit XML: one suite per device, a case for the candidate against the pack and
/// one per criterion against the baseline (regressed and inconclusive fail); a device whose
/// session stopped is one suite with one error.
pub(crate) fn junit_ab_lab(report: &AbLabReport) -> String {
    let suites: Vec<Suite> = report
        .devices
        .iter()
        .map(|device| {
            let serial = escape(&device.serial);
            let mut cases = String::new();
            let (mut tests, mut failures, mut errors) = (0, 0, 0);
            match (device.error.as_deref(), device.absolute) {
                (error @ Some(_), _) | (error @ None, None) => {
                    tests += 1;
                    errors += 1;
                    cases.push_str(&error_case(
                        &format!("{}.device", device.serial),
                        "A/B session",
                        error.unwrap_or("the session stopped"),
                    ));
                }
                (None, Some(absolute)) => {
                    tests += 1;
                    let _ = writeln!(
                        cases,
                        "    <testcase classname=\"{serial}.pack\" name=\"the candidate against the pack\">"
                    );
                    if absolute == Verdict::Fail {
                        failures += 1;
                        let _ = writeln!(
                            cases,
                            "      <failure message=\"the candidate fails the pack (its audit: {}/candidate)\"/>",
                            escape(&device.folder)
                        );
                    }
                    cases.push_str("    </testcase>\n");
                }
            }
            for cell in &device.criteria {
                tests += 1;
                let name = match &cell.statement {
                    Some(statement) => format!(
                        "{}: {}",
                        cell.criterion_id,
                        crate::text::one_line(statement, crate::text::LINE)
                    ),
                    None => cell.criterion_id.clone(),
                };
                let _ = writeln!(
                    cases,
                    "    <testcase classname=\"{serial}.regression\" name=\"{}\"{}>",
                    escape(&name),
                    time_attribute(cell.device_seconds)
                );
                if matches!(cell.verdict, Regression::Regressed | Regression::Inconclusive) {
                    failures += 1;
                    let _ = writeln!(
                        cases,
                        "      <failure message=\"{}: {}\"/>",
                        cell.verdict.as_str(),
                        escape(&delta(cell.delta, cell.delta_pct, cell.unit.as_deref()))
                    );
                }
                cases.push_str("    </testcase>\n");
            }
            if let Some(why) = &device.unrecorded {
                tests += 1;
                errors += 1;
                cases.push_str(&error_case(
                    &format!("{}.audit", device.serial),
                    "history",
                    &format!("not recorded in the history: {why}"),
                ));
            }
            Suite {
                tests,
                failures,
                errors,
                skipped: 0,
                xml: format!(
                    "  <testsuite name=\"dwpipe A/B {serial}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"0\">\n{cases}  </testsuite>\n"
                ),
            }
        })
        .chain(report.unreachable.iter().map(|server| {
            error_suite(
                &format!("dwpipe hdc server {}", server.server),
                ("server", &server.server),
                &server.reason,
            )
        }))
        .collect();
    document(&suites)
}
