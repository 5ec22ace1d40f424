//! The one line each page and summary opens with: the verdict, the counts that make it, and
//! where the readings came from, so that a release engineer knows the outcome in five seconds.
//! Its tone colours the banner: green for a pass, red for a failure or a regression, amber for
//! an outcome that is neither (`incomplete`, `inconclusive`), which is never shown as green.

use std::collections::HashMap;
use std::fmt::Write;

use crate::diagnostic::{Diagnostic, Severity};

use crate::gate::{CheckResult, Verdict};
use crate::pack::Weight;
use crate::schema::{
    AbLabReport, AbRecord, AuditReport, Comparison, DeviceVerdict, LabReport, LabVerdict,
    Regression,
};

/// How the banner is coloured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tone {
    Pass,
    /// A pass with warnings (an unstable measurement, a failed should criterion, an unserved
    /// exchange of a replay): never the plain green of a clean pass.
    Warned,
    Fail,
    /// Neither shown to pass nor to fail.
    Amber,
}

impl Tone {
    /// Its CSS class.
    pub(crate) fn class(self) -> &'static str {
        match self {
            Tone::Pass => "pass",
            Tone::Fail => "fail",
            Tone::Warned | Tone::Amber => "amber",
        }
    }
}

/// The verdict in one line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Headline {
    pub(crate) tone: Tone,
    pub(crate) text: String,
}

fn tone_of(verdict: Verdict) -> Tone {
    match verdict {
        Verdict::Pass => Tone::Pass,
        Verdict::Fail => Tone::Fail,
    }
}

/// A device's model and serial, each at most a column wide.
fn device_name(d: &crate::device::DeviceInfo) -> String {
    let serial = crate::text::one_line(&d.serial, crate::text::CELL);
    match &d.model {
        Some(model) => format!(
            "{} ({serial})",
            crate::text::one_line(model, crate::text::CELL)
        ),
        None => serial.into_owned(),
    }
}

/// `on ALN-AL00`, or `replay of the capture … on ALN-AL00`.
pub(crate) fn provenance(report: &AuditReport) -> String {
    let device = report.device.as_ref().map(device_name);
    let replay = report
        .source
        .as_ref()
        .filter(|s| s.is_replay())
        .map(|s| format!("replay of {s}"));
    match (replay, device) {
        (Some(replay), Some(device)) => format!("{replay} on {device}"),
        (Some(replay), None) => replay,
        (None, Some(device)) => format!("on {device}"),
        // `dwpipe gate`: an outside auditor's report, held against the pack.
        (None, None) => "from an outside auditor's report".to_owned(),
    }
}

/// `FAIL: 7 of 9 failed (5 must, 2 should), 0 unverified — replay of … on ALN-AL00`.
pub(crate) fn audit(report: &AuditReport) -> Headline {
    let s = report.summary;
    let failed = |weight: Weight| {
        report
            .checks
            .iter()
            .filter(|c| c.check.result == CheckResult::Fail && c.check.weight == weight)
            .count()
    };
    let (must, should) = (failed(Weight::Must), failed(Weight::Should));
    let warned = report.warned();
    let verdict = report.word().to_uppercase();
    let counts = if report.unproven() {
        format!(
            "{} of {} criteria could not be measured ({}), {} passed, none failed",
            s.unverified,
            s.criteria,
            report.why_unverified(),
            s.pass
        )
    } else if s.fail == 0 {
        format!("{} of {} passed", s.pass, s.criteria)
    } else {
        format!(
            "{} of {} failed ({must} must, {should} should)",
            s.fail, s.criteria
        )
    };
    let mut text = if report.unproven() {
        format!("{verdict}: {counts}")
    } else {
        format!("{verdict}: {counts}, {} unverified", s.unverified)
    };
    if report.verdict == Verdict::Pass && should > 0 {
        text.push_str("; a failed should criterion does not fail the audit");
    }
    if s.errors + s.warnings > 0 {
        let _ = write!(text, "; {} error(s), {} warning(s)", s.errors, s.warnings);
    }
    text.push_str(" — ");
    text.push_str(&provenance(report));
    Headline {
        tone: if warned {
            Tone::Warned
        } else if report.unproven() {
            Tone::Amber
        } else {
            tone_of(report.verdict)
        },
        text,
    }
}

/// Each criterion's diagnostics, found in one pass (a pack may hold thousands of criteria,
/// each row looking its own up).
pub(crate) fn by_criterion(report: &AuditReport) -> HashMap<&str, Vec<&Diagnostic>> {
    let mut found: HashMap<&str, Vec<&Diagnostic>> = HashMap::new();
    for d in &report.diagnostics {
        if let Some(id) = d.criterion_id.as_deref() {
            found.entry(id).or_default().push(d);
        }
    }
    found
}

/// The warnings said of criterion `id` among `said` ([`by_criterion`]), by code
/// (`W_MEASUREMENT_UNSTABLE`).
pub(crate) fn warnings_of<'r>(said: &HashMap<&str, Vec<&'r Diagnostic>>, id: &str) -> Vec<&'r str> {
    said.get(id)
        .into_iter()
        .flatten()
        .filter(|d| {
            d.severity == Severity::Warning
                // Said of every unverified criterion, whose row already says unverified.
                && d.code != "W_AUDIT_UNVERIFIED"
        })
        .map(|d| d.code.as_str())
        .collect()
}

/// `FAIL: 1 of 3 devices failed …`; `INCOMPLETE: …` with what could not be audited.
pub(crate) fn lab(report: &LabReport) -> Headline {
    let count = |v: DeviceVerdict| report.devices.iter().filter(|d| d.verdict == v).count();
    let n = report.devices.len();
    // The devices that failed are named: on a phone only the matrix's first column shows.
    let (failed, unverified) = (
        report.named(DeviceVerdict::Fail, false),
        report.named(DeviceVerdict::Fail, true),
    );
    let warned = report
        .devices
        .iter()
        .filter(|d| d.verdict == DeviceVerdict::Pass && d.outcome.is_some())
        .count();
    let mut text = format!(
        "{}: {} of {n} device(s) passed{}, {} failed{}",
        report.verdict.as_str().to_uppercase(),
        count(DeviceVerdict::Pass),
        if warned > 0 {
            format!(" ({warned} with warnings)")
        } else {
            String::new()
        },
        failed.len(),
        if failed.is_empty() {
            String::new()
        } else {
            format!(" ({})", failed.join(", "))
        },
    );
    if !unverified.is_empty() {
        let _ = write!(
            text,
            ", {} unverified ({}: could not measure)",
            unverified.len(),
            unverified.join(", ")
        );
    }
    let mut why: Vec<String> = report
        .devices
        .iter()
        .filter_map(|d| {
            let reason = d.error.as_deref().or(d.unrecorded.as_deref())?;
            let what = match d.verdict {
                DeviceVerdict::NotMeasured => "not measured",
                _ if d.error.is_some() => "no report",
                _ => "not recorded in the history",
            };
            Some(format!(
                "{} {what}: {}",
                crate::text::one_line(&d.name(), crate::text::CELL),
                crate::text::one_line(reason, crate::text::CELL)
            ))
        })
        .collect();
    why.extend(report.unreachable.iter().map(|s| {
        let reason = crate::text::one_line(&s.reason, crate::text::LINE);
        if reason.contains(s.server.as_str()) {
            reason.into_owned()
        } else {
            format!(
                "hdc server {} did not answer: {reason}",
                crate::text::one_line(&s.server, crate::text::CELL)
            )
        }
    }));
    if n == 0 && why.is_empty() {
        why.push("no device was found".to_owned());
    }
    if !why.is_empty() {
        text.push_str(" — ");
        text.push_str(&why.join("; "));
    }
    Headline {
        tone: lab_tone(report.verdict),
        text,
    }
}

fn lab_tone(verdict: LabVerdict) -> Tone {
    match verdict {
        LabVerdict::Pass => Tone::Pass,
        LabVerdict::Fail => Tone::Fail,
        LabVerdict::Incomplete => Tone::Amber,
    }
}

fn tone_of_regression(verdict: Regression) -> Tone {
    match verdict {
        Regression::Regressed => Tone::Fail,
        Regression::Inconclusive => Tone::Amber,
        Regression::Same | Regression::Improved => Tone::Pass,
    }
}

/// `REGRESSED: 1 of 3 criteria regressed (P-01 +61.5 ms), 0 inconclusive`.
pub(crate) fn comparison(c: &Comparison) -> Headline {
    let count = |v: Regression| c.criteria.iter().filter(|x| x.verdict == v).count();
    let named = |v: Regression| {
        c.criteria
            .iter()
            .filter(|x| x.verdict == v)
            .map(|x| x.criterion_id.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut text = format!(
        "{}: {} of {} regressed, {} improved, {} inconclusive",
        c.verdict.as_str().to_uppercase(),
        count(Regression::Regressed),
        crate::text::counted(c.criteria.len(), "criterion", "criteria"),
        count(Regression::Improved),
        count(Regression::Inconclusive),
    );
    for (verdict, word) in [
        (Regression::Regressed, "regressed"),
        (Regression::Inconclusive, "inconclusive"),
    ] {
        if count(verdict) > 0 {
            let _ = write!(text, "; {word}: {}", named(verdict));
        }
    }
    Headline {
        tone: tone_of_regression(c.verdict),
        text,
    }
}

/// `REGRESSED against the baseline; the candidate PASSES the pack — 8 and 8 runs`.
pub(crate) fn ab(record: &AbRecord) -> Headline {
    let text = format!(
        "{} against the baseline; the candidate {} the pack — {} and {} runs on {}; {}",
        record.regression.as_str().to_uppercase(),
        match record.absolute {
            Verdict::Pass => "PASSES",
            Verdict::Fail => "FAILS",
        },
        record.baseline.runs,
        record.candidate.runs,
        crate::text::one_line(&record.serial, crate::text::CELL),
        record.left_installed
    );
    Headline {
        tone: ab_tone(record.absolute, record.regression),
        text,
    }
}

/// A session is green only when the candidate passes the pack and did not regress.
fn ab_tone(absolute: Verdict, regression: Regression) -> Tone {
    match absolute {
        Verdict::Fail => Tone::Fail,
        Verdict::Pass => tone_of_regression(regression),
    }
}

/// `FAIL: 1 of 2 device(s) regressed, …`.
pub(crate) fn ab_lab(report: &AbLabReport) -> Headline {
    let regressed = report
        .devices
        .iter()
        .filter(|d| d.regression == Some(Regression::Regressed))
        .count();
    let failing = report
        .devices
        .iter()
        .filter(|d| d.absolute == Some(Verdict::Fail))
        .count();
    // Not shown either way fails the gate as a regression does: counted, never left out.
    let inconclusive = report
        .devices
        .iter()
        .filter(|d| d.regression == Some(Regression::Inconclusive))
        .count();
    let unfinished = report
        .devices
        .iter()
        .filter(|d| d.regression.is_none())
        .count();
    let named = |n: usize, which: &dyn Fn(&crate::schema::AbColumn) -> bool| {
        if n == 0 {
            return String::new();
        }
        let serials: Vec<String> = report
            .devices
            .iter()
            .filter(|d| which(d))
            .map(|d| crate::text::one_line(&d.serial, crate::text::CELL).into_owned())
            .collect();
        format!(" ({})", serials.join(", "))
    };
    let text = format!(
        "{}: {} device(s); {regressed} regressed against the baseline{}, {inconclusive} inconclusive (measure more runs){}, {failing} candidate(s) fail the pack{}, {unfinished} without an A/B{}",
        report.verdict.as_str().to_uppercase(),
        report.devices.len(),
        named(regressed, &|d| d.regression == Some(Regression::Regressed)),
        named(inconclusive, &|d| d.regression
            == Some(Regression::Inconclusive)),
        named(failing, &|d| d.absolute == Some(Verdict::Fail)),
        named(unfinished, &|d| d.regression.is_none()),
    );
    Headline {
        tone: lab_tone(report.verdict),
        text,
    }
}

/// One side of a comparison in words: its device, where its readings came from, its build.
pub(crate) fn side(side: &crate::schema::Side) -> String {
    let mut words = Vec::new();
    if let Some(d) = &side.device {
        words.push(device_name(d));
        words.extend(d.software_version.clone());
    }
    if let Some(source) = side.source.as_ref().filter(|s| s.is_replay()) {
        words.push(format!("replay of {source}"));
    }
    for hap in &side.installed {
        words.push(format!(
            "build {} sha256:{}",
            hap.path,
            &hap.sha256[..hap.sha256.len().min(12)]
        ));
    }
    if words.is_empty() {
        words.push("no device recorded".to_owned());
    }
    words.join(" · ")
}

#[cfg(test)]
mod tests;
