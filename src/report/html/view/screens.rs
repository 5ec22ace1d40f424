//! What the page draws of the screens: the screenshot with the boxes and gaps that were measured on
//! it, and each flow's filmstrip with its steps' timings.

use super::super::TOUCH_BASELINE_VP;
use super::{FlowStrip, ScreenView, Shape, Timing};
use crate::audit::Figures;
use crate::gate::CheckResult;
use crate::pack::{Criterion, Pack, ResponseMetric};
use crate::probe::layout::to_vp;
use crate::schema::AuditReport;
use std::collections::HashMap;

/// Every flow the audit ran, with the response criteria measured in it.
pub(super) fn flows<'a>(
    report: &'a AuditReport,
    figures: &'a Figures,
    pack: &Pack,
) -> Vec<FlowStrip<'a>> {
    let args: HashMap<&str, &crate::pack::ProbeArgs> = pack
        .criteria
        .iter()
        .filter_map(|c| Some((c.id.as_str(), &c.assertion.as_ref()?.probe.as_ref()?.args)))
        .collect();
    let limits: HashMap<&str, Option<f64>> = pack
        .criteria
        .iter()
        .map(|c| {
            let limit = c
                .assertion
                .as_ref()
                .and_then(|a| a.assertion.upper_bound_in("ms"));
            (c.id.as_str(), limit)
        })
        .collect();
    let failed: Vec<&str> = report
        .checks
        .iter()
        .filter(|c| c.check.result == CheckResult::Fail)
        .map(|c| c.check.criterion_id.as_str())
        .collect();
    figures
        .flows
        .values()
        .map(|figure| FlowStrip {
            figure,
            timings: report
                .checks
                .iter()
                .flat_map(|c| &c.measurements)
                .filter_map(|m| {
                    let args = args.get(m.criterion_id.as_str())?;
                    (m.probe == "perf.response"
                        && args.flow.as_deref() == Some(figure.record.flow.as_str()))
                    .then(|| Timing {
                        criterion_id: &m.criterion_id,
                        what: match args.response {
                            ResponseMetric::Response => "response",
                            ResponseMetric::Complete => "complete (trace-based)",
                        },
                        runs: m
                            .runs
                            .iter()
                            .filter_map(|r| r.value.as_ref()?.as_number())
                            .collect(),
                        value: m.value.as_ref().and_then(crate::audit::Value::as_number),
                        limit_ms: limits.get(m.criterion_id.as_str()).copied().flatten(),
                        failed: failed.contains(&m.criterion_id.as_str()),
                    })
                })
                .collect(),
        })
        .collect()
}

/// The screen of the first on-screen criterion: every touch target (green at or above the
/// platform's 48 vp, red below), then each layout or accessibility criterion's nodes.
pub(super) fn screen<'a>(
    report: &AuditReport,
    figures: &'a Figures,
    pack: &Pack,
) -> Option<ScreenView<'a>> {
    let figure = figures.screen.as_ref()?;
    let layout = &figure.layout;
    let window = layout.app_window(Some(&pack.doc.app.bundle.value)).ok()?;
    // The density the visit was read at (its display's own), else the device's.
    let vpr = figure
        .vpr
        .or_else(|| report.device.as_ref().and_then(|d| d.virtual_pixel_ratio))
        .unwrap_or(1.0);
    let mut shapes = Vec::new();
    for node in layout.clickables(window) {
        // Drawn where it is visible, coloured by its own size (the touch-target rule).
        let (Some(own), Some(rect)) = (layout.node(node).rect, layout.visible_rect(node)) else {
            continue;
        };
        let side = to_vp(own.width().min(own.height()), vpr);
        shapes.push(Shape::Node {
            rect,
            colour: if side < TOUCH_BASELINE_VP {
                "#cf222e"
            } else {
                "#1a7f37"
            },
            label: if side < TOUCH_BASELINE_VP {
                format!(
                    "{} {side} vp < {TOUCH_BASELINE_VP}",
                    layout.selector_of(node)
                )
            } else {
                format!("{} {side} vp", layout.selector_of(node))
            },
        });
    }
    let on_screen = report
        .checks
        .iter()
        .flat_map(|c| &c.measurements)
        .filter(|m| m.probe.starts_with("layout.") || m.probe.starts_with("a11y."));
    let criteria: HashMap<&str, &Criterion> =
        pack.criteria.iter().map(|c| (c.id.as_str(), c)).collect();
    for measurement in on_screen {
        let Some(args) = criteria
            .get(measurement.criterion_id.as_str())
            .and_then(|c| c.assertion.as_ref()?.probe.as_ref())
            .map(|p| &p.args)
        else {
            continue;
        };
        let node = |selector: &Option<crate::pack::Selector>| {
            selector
                .as_ref()
                .and_then(|s| layout.select(window, s).ok())
        };
        // A failed measurement is drawn, and said, as a failure.
        let failed = report.checks.iter().any(|c| {
            c.check.criterion_id == measurement.criterion_id && c.check.result == CheckResult::Fail
        });
        let label = format!(
            "{}: {}{}",
            measurement.criterion_id,
            measurement.actual.as_deref().unwrap_or("?"),
            if failed { " (failed)" } else { "" }
        );
        let colour = if failed { "#cf222e" } else { "#8250df" };
        match (node(&args.from), node(&args.to), node(&args.target)) {
            (Some(from), Some(to), _) => {
                if let (Some(from), Some(to)) = (layout.node(from).rect, layout.node(to).rect) {
                    shapes.push(Shape::Gap {
                        from,
                        to,
                        label,
                        colour,
                    });
                }
            }
            (_, _, Some(target)) => {
                if let Some(rect) = layout.visible_rect(target) {
                    shapes.push(Shape::Node {
                        rect,
                        colour,
                        label,
                    });
                }
            }
            _ => {}
        }
    }
    Some(ScreenView {
        png: &figure.png,
        width: figure.width,
        height: figure.height,
        shapes,
    })
}
