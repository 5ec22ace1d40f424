//! A playbook file as written (strict: unknown keys are errors), and its validation into the
//! typed form: probes against the catalog and the extractors, sessions step by step, every
//! template checked with stand-in values at load time.

use std::time::Duration;

use serde::Deserialize;

use crate::diagnostic::Diagnostic;
use crate::input::parse_duration;
use crate::pack::CATALOG;
use crate::probe::Extractor;
use crate::shell::{ShellCommand, ShellValue};

use super::{ProbePlaybook, Session, Step};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct ProbeDoc {
    probe: String,
    session: String,
    extract: String,
    runs: u32,
    tolerance: String,
    resolution: f64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct SessionDoc {
    session: String,
    /// How the session brings up the app's launch screen; a flow replaces it.
    #[serde(default)]
    start: Vec<StepDoc>,
    steps: Vec<StepDoc>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct StepDoc {
    #[serde(default)]
    shell: Option<String>,
    #[serde(default)]
    pull: Option<String>,
    #[serde(default)]
    sleep: Option<String>,
    #[serde(default)]
    screenshot: Option<String>,
    #[serde(default)]
    dump: Option<String>,
    /// What to poll for (`window`: the app's window focused and shown), with `within`.
    #[serde(default)]
    ready: Option<String>,
    #[serde(default)]
    within: Option<String>,
    #[serde(default)]
    save: Option<String>,
    #[serde(default)]
    set: Option<String>,
}

/// The file an audit writes beside a session's evidence when one of its steps failed; no
/// step may save under its name.
pub(crate) const FAILED_STEP: &str = "failed-step.txt";
/// The file a `ready` step writes: what the poll saw, and when.
pub(crate) const READY: &str = "ready.txt";
/// Why a step was refused that is none, or more than one, of the kinds.
const ONE_KIND: &str = "a step is exactly one of shell, pull, sleep, ready, screenshot or dump";
/// The longest a readiness poll may wait.
const MAX_READY: Duration = Duration::from_secs(60);

/// Which extractor reads each probe of the catalog: a playbook chooses how evidence is
/// gathered, never how it is read, so an audit cannot be read with another probe's rules.
fn extractor_of(probe: &str) -> Option<Extractor> {
    Some(match probe {
        "perf.cold-start" => Extractor::ColdStart,
        "perf.frames" => Extractor::Frames,
        "perf.memory" => Extractor::Memory,
        "perf.cpu" | "perf.cpu-background" => Extractor::Cpu,
        "perf.gpu" => Extractor::GpuLoad,
        "perf.gpu-frequency" => Extractor::GpuFrequency,
        "perf.power" => Extractor::Power,
        "perf.temperature" => Extractor::Temperature,
        "layout.gap" => Extractor::LayoutGap,
        "layout.size" => Extractor::LayoutSize,
        "layout.align" => Extractor::LayoutAlign,
        "a11y.touch-target" => Extractor::TouchTarget,
        "a11y.contrast" => Extractor::Contrast,
        "a11y.labels" => Extractor::Labels,
        "test.hypium" => Extractor::Hypium,
        "perf.response" => Extractor::Response,
        "layout.text" => Extractor::Text,
        "perf.span" | "perf.section" | "perf.counter" => Extractor::TracePoint,
        "stability.crashes" => Extractor::Faults,
        _ => return None,
    })
}

fn is_file_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || b == b'-')
        && !name.starts_with('.')
        && name != FAILED_STEP
        && name != READY
}

pub(super) fn invalid(file: &str, message: impl Into<String>) -> Diagnostic {
    Diagnostic::error("E_PLAYBOOK_INVALID", format!("{file}: {}", message.into()))
        .fix("see the embedded playbooks in playbooks/ for the format")
}

pub(super) fn probe(file: &str, doc: ProbeDoc) -> Result<ProbePlaybook, Diagnostic> {
    let Some(expected) =
        extractor_of(&doc.probe).filter(|_| CATALOG.iter().any(|k| k.id == doc.probe))
    else {
        return Err(invalid(file, format!("unknown probe `{}`", doc.probe)));
    };
    let extract = Extractor::parse(&doc.extract).ok_or_else(|| {
        invalid(
            file,
            format!(
                "unknown extractor `{}` (known: {})",
                doc.extract,
                Extractor::WORDS.join(", ")
            ),
        )
    })?;
    if extract != expected {
        return Err(invalid(
            file,
            format!(
                "`{}` is read by the `{expected}` extractor, not `{extract}`",
                doc.probe
            ),
        ));
    }
    if doc.runs == 0 || doc.runs > 100 {
        return Err(invalid(file, "runs must be between 1 and 100"));
    }
    let tolerance = doc
        .tolerance
        .strip_suffix('%')
        .and_then(|t| t.trim().parse::<f64>().ok())
        .filter(|t| t.is_finite() && *t >= 0.0)
        .ok_or_else(|| {
            invalid(
                file,
                format!("tolerance `{}` is not a percentage like 20%", doc.tolerance),
            )
        })?;
    if !(doc.resolution.is_finite() && doc.resolution >= 0.0) {
        return Err(invalid(file, "resolution must be a non-negative number"));
    }
    Ok(ProbePlaybook {
        probe: doc.probe,
        session: doc.session,
        extract,
        runs: doc.runs,
        tolerance: tolerance / 100.0,
        resolution: doc.resolution,
    })
}

pub(super) fn session(file: &str, doc: SessionDoc) -> Result<Session, Diagnostic> {
    let mut saved: Vec<String> = Vec::new();
    let start = steps(file, "start step", doc.start, &mut saved)?;
    let steps = steps(file, "step", doc.steps, &mut saved)?;
    Ok(Session {
        name: doc.session,
        start,
        steps,
        sha256: String::new(),
    })
}

/// One list of a session's steps; `saved` holds the file names saved so far (a name is saved
/// once per session).
fn steps(
    file: &str,
    what: &str,
    docs: Vec<StepDoc>,
    saved: &mut Vec<String>,
) -> Result<Vec<Step>, Diagnostic> {
    let mut steps = Vec::with_capacity(docs.len());
    // Between `hitrace … --trace_begin` and `--trace_finish`: a poll there would load the
    // device in the very trace being measured.
    let mut traced = false;
    for (i, step) in docs.into_iter().enumerate() {
        let at = |message: String| invalid(file, format!("{what} {}: {message}", i + 1));
        if let Some(ready) = &step.ready {
            steps.push(ready_step(ready, &step, traced, &at)?);
            continue;
        }
        if step.within.is_some() && step.shell.is_none() {
            return Err(at(
                "`within` belongs to `ready` and `shell` steps".to_owned()
            ));
        }
        if let Some(template) = &step.shell {
            super::follow_trace(template, &mut traced);
        }
        if let Some(name) = step.save.as_ref().filter(|n| !is_file_name(n)) {
            return Err(at(format!("`save: {name}` is not a plain file name")));
        }
        if let Some(name) = &step.save {
            if saved.contains(name) {
                return Err(at(format!("`save: {name}` is used twice")));
            }
            saved.push(name.clone());
        }
        let check = |template: &str| checked(template, &at);
        // A capture of what the screen shows: after a flow, the flow's own capture of the
        // screen it ended on may serve (`audit/session.rs`), so the engine must know it is one.
        type Make = fn(String) -> Step;
        let capture: Option<(String, &str, Make)> = match (step.screenshot, step.dump) {
            (Some(save), None) => Some((save, "screenshot", |save| Step::Screenshot { save })),
            (None, Some(save)) => Some((save, "dump", |save| Step::Dump { save })),
            (None, None) => None,
            (Some(_), Some(_)) => return Err(at(ONE_KIND.to_owned())),
        };
        if let Some((save, kind, make)) = capture {
            if step.shell.is_some()
                || step.pull.is_some()
                || step.sleep.is_some()
                || step.save.is_some()
                || step.set.is_some()
            {
                return Err(at(ONE_KIND.to_owned()));
            }
            if !is_file_name(&save) || saved.contains(&save) {
                return Err(at(format!("`{kind}: {save}` is not a new plain file name")));
            }
            saved.push(save.clone());
            steps.push(make(save));
            continue;
        }
        let parsed = match (step.shell, step.pull, step.sleep) {
            (Some(template), None, None) => {
                check(&template)?;
                if let Some(set) = step.set.as_ref().filter(|s| s.as_str() != "pid") {
                    return Err(at(format!("`set: {set}`: only `pid` can be set")));
                }
                let within = step
                    .within
                    .as_deref()
                    .map(|w| shell_limit(&template, w).map_err(at))
                    .transpose()?;
                Step::Shell {
                    template,
                    save: step.save,
                    set: step.set,
                    within,
                }
            }
            (None, Some(template), None) => {
                check(&template)?;
                let save = step
                    .save
                    .ok_or_else(|| at("a pull needs `save`".to_owned()))?;
                if step.set.is_some() {
                    return Err(at("`set` belongs to shell steps".to_owned()));
                }
                Step::Pull { template, save }
            }
            (None, None, Some(duration)) if step.save.is_none() && step.set.is_none() => {
                Step::Sleep(parse_duration(&duration).map_err(at)?)
            }
            _ => return Err(at(ONE_KIND.to_owned())),
        };
        steps.push(parsed);
    }
    Ok(steps)
}

/// A `ready` step: alone in its step, `window`, outside a traced window, within its bound.
fn ready_step(
    ready: &str,
    step: &StepDoc,
    traced: bool,
    at: &dyn Fn(String) -> Diagnostic,
) -> Result<Step, Diagnostic> {
    let alone = step.shell.is_none()
        && step.pull.is_none()
        && step.sleep.is_none()
        && step.screenshot.is_none()
        && step.dump.is_none()
        && step.save.is_none()
        && step.set.is_none();
    if !alone {
        return Err(at(
            "a `ready` step takes only `within` (the wait it replaces)".to_owned(),
        ));
    }
    if ready != "window" {
        return Err(at(format!(
            "`ready: {ready}`: the device can say `window` (the app's window focused and shown)"
        )));
    }
    if traced {
        return Err(at(
            "a readiness poll inside a traced window loads the device being measured: keep a fixed `sleep` there".to_owned(),
        ));
    }
    let within = step
        .within
        .as_deref()
        .ok_or_else(|| at("`ready` needs `within`, the longest it waits".to_owned()))
        .and_then(|w| parse_duration(w).map_err(at))?;
    if within.is_zero() || within > MAX_READY {
        return Err(at(format!(
            "`within` must be more than 0 and at most {} s",
            MAX_READY.as_secs()
        )));
    }
    Ok(Step::Ready { within })
}

/// A template rendered with stand-in values, so that a bad one fails when it is loaded.
fn checked(template: &str, at: &dyn Fn(String) -> Diagnostic) -> Result<ShellCommand, Diagnostic> {
    let placeholders = [
        "bundle",
        "ability",
        "module",
        "run",
        "pid",
        "classes",
        "swipe_x",
        "swipe_low",
        "swipe_high",
    ];
    let sample = ShellValue::number("sample", "1").expect("digits");
    let values: Vec<(&str, &ShellValue)> = placeholders.iter().map(|p| (*p, &sample)).collect();
    ShellCommand::render(template, &values).map_err(|e| at(e.to_string()))
}

/// A shell step's own call limit (`within`, for a command that outlasts the per-call limit):
/// at most a day, and for `aa test` at least hypium's per-case limit (`-s timeout <ms>`), so
/// the suite's own timeout, not dwpipe's, ends a case.
fn shell_limit(template: &str, within: &str) -> Result<Duration, String> {
    let limit = parse_duration(within)?;
    if limit.is_zero() || limit > Duration::from_secs(24 * 3600) {
        return Err("`within` must be more than 0 and at most 24 h".to_owned());
    }
    let per_case = template
        .split_once("-s timeout ")
        .and_then(|(_, rest)| rest.split_whitespace().next()?.parse::<u64>().ok())
        .map(Duration::from_millis);
    if let Some(per_case) = per_case.filter(|p| limit < *p) {
        return Err(format!(
            "`within: {within}` is shorter than the suite's own per-case limit ({} ms): a case would be cut by dwpipe, not by the suite",
            per_case.as_millis()
        ));
    }
    Ok(limit)
}
