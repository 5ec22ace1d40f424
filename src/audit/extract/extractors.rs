//! Each extractor over one visit's decoded evidence: the trace's launch and frames, a layout's
//! nodes and gaps, a screenshot's contrast, a test run's results, a tool's samples.

use super::super::evidence::{StepFile, step_file};
use super::frames::{frame_reading, present_times};
use super::{Decoded, ExtractError, Reading, Value};
use crate::pack::{CpuShare, FramesVia, ProbeArgs, ResponseMetric, Selector};
use crate::probe::hidumper::{self};
use crate::probe::hitrace::FrameTracker;
use crate::probe::hypium::{self};
use crate::probe::layout::to_vp;
use crate::probe::screenshot::contrast;
use crate::probe::{Evidence, Extractor};
use crate::probe::{proc_cpu, sp_daemon};

pub(super) fn selector<'p>(
    selector: &'p Option<Selector>,
    name: &'static str,
) -> Result<&'p Selector, ExtractError> {
    selector.as_ref().ok_or(ExtractError::MissingArgument(name))
}

pub(super) fn number(value: f64, detail: String) -> Result<Reading, ExtractError> {
    Ok(Reading {
        value: Value::Number(value),
        detail,
        warning: None,
    })
}

/// Runs an extractor over a session's evidence.
pub fn extract(
    extractor: Extractor,
    evidence: &Decoded<'_>,
    probe: &ProbeArgs,
) -> Result<Reading, ExtractError> {
    match extractor {
        Extractor::ColdStart => {
            let report = &evidence.trace()?.report;
            let cold = report.cold_start.as_ref().ok_or_else(|| {
                ExtractError::NoLaunch(report.cold_start_missing.clone().unwrap_or_default())
            })?;
            number(
                cold.ms,
                format!(
                    "from `{}` to the end of the first present fence",
                    cold.start_marker
                ),
            )
        }
        Extractor::Frames => frames(evidence, probe),
        Extractor::Memory => {
            let total = hidumper::memory_total(&evidence.text(Evidence::Memory)?)?;
            number(total.pss_kb as f64, total.evidence)
        }
        Extractor::Cpu => {
            let cpu = proc_cpu::proc_cpu(&evidence.text(Evidence::Cpu)?)?;
            let value = match (probe.cpu, cpu.all_cores_percent) {
                (CpuShare::AllCores, Some(all)) => all,
                (CpuShare::AllCores, None) => {
                    return Err(ExtractError::Unmeasured(format!(
                        "the share of all cores needs every core's ticks, and {}: OpenHarmony's policy lets the hdc shell read /proc/stat on 3.2 and on 5.0 and later, not on 4.0 user builds or 4.1 (`dwpipe probes --api-level N`); the share of one core was {:.2}% (`metric: one-core`)",
                        cpu.all_cores_unread
                            .as_deref()
                            .unwrap_or("/proc/stat did not read"),
                        cpu.one_core_percent
                    )));
                }
                (CpuShare::OneCore, _) => cpu.one_core_percent,
            };
            number(value, cpu.evidence())
        }
        Extractor::GpuLoad | Extractor::GpuFrequency => gpu(extractor, evidence),
        Extractor::Power => power(evidence),
        Extractor::Temperature => {
            let (hottest, detail) = super::resources::hottest_zone(
                &evidence.text(Evidence::ThermalStart)?,
                &evidence.text(Evidence::Thermal)?,
            )?;
            number(hottest, detail)
        }
        Extractor::Hypium => {
            let report = hypium::parse(&evidence.text(Evidence::TestOutput)?)?;
            let judged =
                report.judge(probe.suite.as_deref(), probe.case.as_deref(), &probe.expect)?;
            Ok(Reading {
                value: Value::Text(judged.verdict.to_owned()),
                detail: judged.detail,
                warning: judged.warning,
            })
        }
        Extractor::Response => response(evidence, probe),
        Extractor::TracePoint => super::points::trace_point(evidence, probe),
        // Counted over a run's visits as they are read, never from one visit's files.
        Extractor::Faults => Err(ExtractError::Unmeasured(
            "the fault records are counted over a run's visits".to_owned(),
        )),
        Extractor::Text
        | Extractor::LayoutGap
        | Extractor::LayoutSize
        | Extractor::LayoutAlign
        | Extractor::TouchTarget
        | Extractor::Labels
        | Extractor::Contrast => on_screen(extractor, evidence, probe),
    }
}

/// Frame intervals: RenderService's records, one trace, or a flow's step traces combined.
fn frames(evidence: &Decoded<'_>, probe: &ProbeArgs) -> Result<Reading, ExtractError> {
    if probe.via == FramesVia::Hidumper {
        let (stats, surface, warning) = present_times(evidence)?;
        let mut reading = frame_reading(
            &stats,
            probe.metric,
            &format!(", from RenderService's records of {surface}"),
        )?;
        reading.warning = warning;
        return Ok(reading);
    }
    let flow_frames;
    let f = if probe.flow.is_some() {
        let mut windows = Vec::new();
        for analysis in evidence.step_traces().values() {
            windows.push(&analysis.as_ref().map_err(Clone::clone)?.frames);
        }
        flow_frames = FrameTracker::combined(&windows);
        &flow_frames
    } else {
        &evidence.trace()?.report.frames
    };
    frame_reading(f, probe.metric, "")
}

/// SmartPerf's GPU load or frequency (the system's, not the app's alone).
fn gpu(extractor: Extractor, evidence: &Decoded<'_>) -> Result<Reading, ExtractError> {
    let gpu = sp_daemon::gpu(&evidence.text(Evidence::Gpu)?, evidence.context.samples)?;
    let detail = format!(
        "SmartPerf, {} sample(s): the system's GPU load {}% (every app's, not this one's alone) at {} MHz (SmartPerf 6.0 and later stops any other SmartPerf running on the phone)",
        gpu.samples, gpu.load_percent, gpu.frequency_mhz
    );
    if extractor == Extractor::GpuLoad {
        number(gpu.load_percent, detail)
    } else {
        number(gpu.frequency_mhz, detail)
    }
}

/// SmartPerf's power draw, read only while the battery is drawn from (not charging).
fn power(evidence: &Decoded<'_>) -> Result<Reading, ExtractError> {
    let battery = hidumper::battery(&evidence.text(Evidence::Battery)?)?;
    super::resources::drawing_from_battery(&battery, evidence.context.charging_off)?;
    let power = sp_daemon::power(&evidence.text(Evidence::Power)?, evidence.context.samples)?;
    let checked = power.against_battery(battery.now_current_ma)?;
    let detail = format!(
        "SmartPerf, {} sample(s): {} mA drawn from the battery at {} V (currentNow in mA, voltageNow in µV, as OpenHarmony documents them; {checked}); the battery {} ({} plugged) as the visit began (SmartPerf 6.0 and later stops any other SmartPerf running on the phone)",
        power.samples,
        power.current_ma,
        power.voltage_v,
        battery.charging.unwrap_or("unknown"),
        battery.plugged.unwrap_or("unknown")
    );
    number(power.milliwatts, detail)
}

/// The response to a step's input, from that step's trace.
fn response(evidence: &Decoded<'_>, probe: &ProbeArgs) -> Result<Reading, ExtractError> {
    let step = probe.step.ok_or(ExtractError::MissingArgument("step"))?;
    let name = step_file(step.index, StepFile::Trace);
    let analysis = evidence
        .step_traces()
        .get(&name)
        .ok_or_else(|| ExtractError::StepNotTraced(name.clone()))?
        .as_ref()
        .map_err(Clone::clone)?;
    let tracker = analysis
        .response
        .as_ref()
        .ok_or_else(|| ExtractError::StepNotTraced(name.clone()))?;
    let response = tracker
        .response(step.input)
        .map_err(ExtractError::NoResponse)?;
    match probe.response {
        ResponseMetric::Response => number(
            response.response_ms,
            format!(
                "from `{}` to {}",
                response.input_marker, response.response_end
            ),
        ),
        ResponseMetric::Complete => number(
            response.complete.map_err(ExtractError::NoResponse)?,
            format!(
                "trace-based: from `{}` to the last composed frame before 300 ms of stillness, plus 32 ms display time",
                response.input_marker
            ),
        ),
    }
}

/// The extractors that read the layout dump (and, for contrast, the screenshot), in vp.
pub(super) fn on_screen(
    extractor: Extractor,
    evidence: &Decoded<'_>,
    probe: &ProbeArgs,
) -> Result<Reading, ExtractError> {
    let layout = evidence.layout()?;
    let window = layout.app_window(Some(evidence.context.bundle))?;
    let vpr = evidence.context.vpr.ok_or(ExtractError::NoDensity)?;
    let vp = |px: i64| to_vp(px, vpr);
    // Beside another app (split screen, a floating window), what that app's window covers of
    // this one is hidden: never a target, a label or a contrast box, and said.
    let shared = evidence
        .placement()
        .filter(|p| !p.alone)
        .map(|p| {
            let covered = match extractor {
                Extractor::TouchTarget | Extractor::Labels => format!(
                    " ({} clickable node(s) wholly hidden)",
                    layout.hidden_clickables(window)
                ),
                _ => String::new(),
            };
            format!(
                "; {}: what another window covers is not measured{covered}",
                p.windowing
            )
        })
        .unwrap_or_default();
    let reading = on_screen_reading(extractor, evidence, probe, (layout, window), vp)?;
    Ok(match extractor {
        Extractor::TouchTarget | Extractor::Labels | Extractor::Contrast => Reading {
            detail: format!("{}{shared}", reading.detail),
            ..reading
        },
        _ => reading,
    })
}

/// One on-screen extractor's reading of the app's window `window` of `layout`.
fn on_screen_reading(
    extractor: Extractor,
    evidence: &Decoded<'_>,
    probe: &ProbeArgs,
    (layout, window): (&crate::probe::layout::Layout, crate::probe::layout::NodeId),
    vp: impl Fn(i64) -> f64,
) -> Result<Reading, ExtractError> {
    match extractor {
        Extractor::Text => {
            let node = layout.select(window, selector(&probe.target, "target")?)?;
            let text = layout.text_of(node);
            Ok(Reading {
                detail: format!("the text of {}", layout.selector_of(node)),
                value: Value::Text(text),
                warning: None,
            })
        }
        Extractor::LayoutGap => {
            let from = layout.select(window, selector(&probe.from, "from")?)?;
            let to = layout.select(window, selector(&probe.to, "to")?)?;
            let px = layout.gap_px(from, to, probe.axis)?;
            number(
                vp(px),
                format!(
                    "{px} px between {} and {}",
                    layout.selector_of(from),
                    layout.selector_of(to)
                ),
            )
        }
        Extractor::LayoutSize => {
            let node = layout.select(window, selector(&probe.target, "target")?)?;
            let px = layout.size_px(node, probe.side)?;
            number(
                vp(px),
                format!("{px} px {} of {}", probe.side, layout.selector_of(node)),
            )
        }
        Extractor::LayoutAlign => {
            let from = layout.select(window, selector(&probe.from, "from")?)?;
            let to = layout.select(window, selector(&probe.to, "to")?)?;
            let px = layout.misalignment_px(from, to, probe.edge)?;
            number(vp(px), format!("{px} px between the {} edges", probe.edge))
        }
        Extractor::TouchTarget => {
            let candidates = match &probe.target {
                Some(target) => vec![layout.select(window, target)?],
                None => layout.clickables(window),
            };
            // A target passes or fails on its own size; what is hidden of it is only said.
            let (side, node) = candidates
                .iter()
                .filter_map(|i| {
                    let own = layout.node(*i).rect?;
                    Some((own.width().min(own.height()), *i))
                })
                .min()
                .ok_or(ExtractError::NoClickable)?;
            let hidden = match layout.visible_rect(node) {
                Some(visible) if layout.partly_hidden(node) => format!(
                    ", partly hidden: {}×{} px visible",
                    visible.width(),
                    visible.height()
                ),
                _ => String::new(),
            };
            number(
                vp(side),
                format!(
                    "smallest side of {} ({side} px{hidden})",
                    layout.selector_of(node)
                ),
            )
        }
        Extractor::Labels => {
            let unlabeled: Vec<String> = layout
                .unlabeled(window)
                .into_iter()
                .map(|i| layout.selector_of(i))
                .collect();
            number(
                unlabeled.len() as f64,
                if unlabeled.is_empty() {
                    "none".to_owned()
                } else {
                    unlabeled.join(", ")
                },
            )
        }
        _ => {
            let node = layout.select(window, selector(&probe.target, "target")?)?;
            let bounds = layout
                .visible_rect(node)
                .filter(|r| !r.is_empty())
                .ok_or(ExtractError::OffScreen)?;
            let measured = contrast(&evidence.screen()?.image, bounds)?;
            number(
                measured.ratio,
                format!(
                    "{} on {} inside {}",
                    measured.foreground,
                    measured.background,
                    layout.selector_of(node)
                ),
            )
        }
    }
}
