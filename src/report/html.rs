//! `report.html`: one self-contained page (inline SVG and CSS, the screenshot as a data URI,
//! no network): the verdict table, the cold-start runs split into their phases, the
//! frame-interval distribution against the budget, and the screenshot with the measured
//! boxes, gaps and failing touch targets drawn over it. Charts are computed again from the
//! stored evidence, so the page shows what the verdicts were computed from.

use std::fmt::Write;
use std::path::Path;

use crate::audit::{MeasurementRecord, probe_doc};
use crate::gate::{AssertionVerdict, CheckResult, Verdict};
use crate::pack::Pack;
use crate::pack::Selector;
use crate::probe::hitrace::{Analysis, for_each_line};
use crate::probe::layout::{Layout, Rect, to_vp};

use super::AuditReport;

/// The smallest touch target the platform accepts (vp); smaller ones are drawn in red.
const TOUCH_BASELINE_VP: f64 = 48.0;

/// The pages' shared look: verdict colours, bordered tables.
pub(crate) const STYLE: &str = "body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#1d1d1f}h1 .pass{color:#1a7f37}h1 .fail{color:#cf222e}\
table{border-collapse:collapse;margin:12px 0}td,th{border:1px solid #d0d7de;padding:4px 8px;text-align:left;vertical-align:top}\
td.pass{background:#dafbe1}td.fail,td.error{background:#ffebe9}td.unverified{background:#fff8c5}section{margin-top:28px}small{color:#57606a}";

/// Text made safe for HTML content and attributes.
pub(crate) fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

fn base64(bytes: &[u8]) -> String {
    const TABLE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(TABLE[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn find<'a>(report: &'a AuditReport, probe: &str) -> Vec<&'a MeasurementRecord> {
    report
        .checks
        .iter()
        .flat_map(|c| &c.measurements)
        .filter(|m| m.probe == probe)
        .collect()
}

fn analysis_of(base: &Path, relative: &str, bundle: &str) -> Option<Analysis> {
    let mut analysis = Analysis::new(Some(bundle.to_owned()));
    let file = std::fs::File::open(base.join(relative)).ok()?;
    for_each_line(file, |line| analysis.line(line)).ok()?;
    Some(analysis)
}

/// Renders the page; `base` is the folder the report's evidence paths are relative to.
pub fn html(report: &AuditReport, pack: &Pack, base: &Path) -> String {
    let bundle = &pack.doc.app.bundle.value;
    let mut page = String::new();
    let verdict = if report.verdict == Verdict::Pass {
        "pass"
    } else {
        "fail"
    };
    let device = report.device.as_ref().map_or_else(String::new, |d| {
        format!(
            "{} · {} · density {}",
            d.serial,
            d.model.clone().unwrap_or_default(),
            d.virtual_pixel_ratio
                .map_or_else(|| "?".to_owned(), |v| v.to_string())
        )
    });
    let _ = write!(
        page,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>dwpipe audit: {verdict}</title><style>{STYLE}</style></head><body><h1>Audit: <span class=\"{verdict}\">{verdict}</span></h1><p><small>pack sha256:{} · {} · dwpipe {}</small></p>",
        escape(&report.pack_sha256),
        escape(&device),
        escape(&report.dwpipe_version)
    );
    page.push_str("<table><tr><th>criterion</th><th>dimension</th><th>weight</th><th>result</th><th>actual</th><th>expected</th><th>recomputed</th><th>evidence</th></tr>");
    for entry in &report.checks {
        let c = &entry.check;
        let result = match c.result {
            CheckResult::Pass => "pass",
            CheckResult::Fail => "fail",
            CheckResult::Unverified => "unverified",
        };
        let recomputed = match c.assertion_verdict {
            AssertionVerdict::Pass => "pass",
            AssertionVerdict::Fail => "fail",
            AssertionVerdict::None => "none",
        };
        let _ = write!(
            page,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"{result}\">{result}</td><td>{}</td><td>{}</td><td class=\"{recomputed}\">{recomputed}{}</td><td><small>{}</small></td></tr>",
            escape(&c.criterion_id),
            c.dimension.as_str(),
            c.weight.as_str(),
            escape(c.actual.as_deref().unwrap_or("—")),
            escape(c.expected.as_deref().unwrap_or("—")),
            c.reason
                .as_ref()
                .map_or_else(String::new, |r| format!("<br><small>{}</small>", escape(r))),
            escape(&c.evidence)
        );
    }
    page.push_str("</table>");
    for measurement in find(report, "perf.cold-start") {
        page.push_str(&cold_start_chart(measurement, base, bundle));
    }
    for measurement in find(report, "perf.frames") {
        page.push_str(&frames_chart(measurement, base));
    }
    page.push_str(&screenshot_overlay(report, pack, base));
    page.push_str("</body></html>\n");
    page
}

fn cold_start_chart(measurement: &MeasurementRecord, base: &Path, bundle: &str) -> String {
    const COLOURS: [&str; 6] = [
        "#0969da", "#8250df", "#bf3989", "#bc4c00", "#1a7f37", "#9a6700",
    ];
    let runs: Vec<(u32, crate::probe::hitrace::ColdStart)> = measurement
        .runs
        .iter()
        .filter_map(|run| {
            let file = run
                .files
                .iter()
                .find(|f| f.path.ends_with("trace.ftrace"))?;
            Some((
                run.run,
                analysis_of(base, &file.path, bundle)?.cold_start.result()?,
            ))
        })
        .collect();
    let longest = runs.iter().map(|(_, c)| c.ms).fold(1.0, f64::max);
    let scale = 600.0 / longest;
    let mut svg = format!(
        "<svg width=\"820\" height=\"{}\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"cold start runs\">",
        40 + runs.len() * 34
    );
    for (row, (run, cold)) in runs.iter().enumerate() {
        let y = 10 + row * 34;
        let _ = write!(
            svg,
            "<text x=\"0\" y=\"{}\" font-size=\"12\">run {run}</text>",
            y + 16
        );
        for (i, phase) in cold.phases.iter().enumerate() {
            let _ = write!(
                svg,
                "<rect x=\"{:.1}\" y=\"{y}\" width=\"{:.1}\" height=\"22\" fill=\"{}\"><title>{}: {} ms</title></rect>",
                60.0 + phase.start_ms * scale,
                (phase.duration_ms * scale).max(1.0),
                COLOURS[i % COLOURS.len()],
                escape(phase.name),
                phase.duration_ms
            );
        }
        let _ = write!(
            svg,
            "<text x=\"{:.1}\" y=\"{}\" font-size=\"12\">{} ms</text>",
            66.0 + cold.ms * scale,
            y + 16,
            cold.ms
        );
    }
    let legend: Vec<String> = runs.first().map_or_else(Vec::new, |(_, c)| {
        c.phases
            .iter()
            .enumerate()
            .map(|(i, p)| {
                format!(
                    "<span style=\"color:{}\">■</span> {}",
                    COLOURS[i % COLOURS.len()],
                    escape(p.name)
                )
            })
            .collect()
    });
    svg.push_str("</svg>");
    format!(
        "<section><h2>{} cold start: {} ({} of {} runs)</h2>{svg}<p><small>{}</small></p></section>",
        escape(&measurement.criterion_id),
        escape(measurement.actual.as_deref().unwrap_or("not measured")),
        escape(&measurement.aggregate),
        measurement.runs.len(),
        legend.join(" · ")
    )
}

fn frames_chart(measurement: &MeasurementRecord, base: &Path) -> String {
    let Some(file) = measurement
        .runs
        .first()
        .and_then(|r| r.files.iter().find(|f| f.path.ends_with("trace.ftrace")))
    else {
        return String::new();
    };
    let Some(analysis) = analysis_of(base, &file.path, "") else {
        return String::new();
    };
    let intervals = analysis.frames.intervals_ms();
    let budget = analysis.frames.stats().budget_ms.unwrap_or(16.667);
    let top = intervals.iter().copied().fold(budget * 2.0, f64::max);
    let bins = 40usize;
    let width = top / bins as f64;
    let mut counts = vec![0usize; bins + 1];
    for interval in &intervals {
        counts[((interval / width) as usize).min(bins)] += 1;
    }
    let most = counts.iter().copied().max().unwrap_or(1).max(1) as f64;
    let mut svg = String::from(
        "<svg width=\"820\" height=\"240\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"frame interval distribution\">",
    );
    let x = |ms: f64| 40.0 + ms / top * 740.0;
    for (i, count) in counts.iter().enumerate().filter(|(_, c)| **c > 0) {
        let height = *count as f64 / most * 180.0;
        let _ = write!(
            svg,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{height:.1}\" fill=\"{}\"><title>{} frame(s) at {:.1}–{:.1} ms</title></rect>",
            x(i as f64 * width),
            200.0 - height,
            (740.0 / bins as f64 - 1.0).max(1.0),
            if (i as f64) * width > budget * 1.5 {
                "#cf222e"
            } else {
                "#0969da"
            },
            count,
            i as f64 * width,
            (i + 1) as f64 * width
        );
    }
    for (ms, label, colour) in [
        (budget, "budget", "#1a7f37"),
        (budget * 1.5, "1.5× budget (dropped past it)", "#cf222e"),
    ] {
        let _ = write!(
            svg,
            "<line x1=\"{0:.1}\" x2=\"{0:.1}\" y1=\"10\" y2=\"200\" stroke=\"{colour}\" stroke-dasharray=\"4 3\"/><text x=\"{1:.1}\" y=\"22\" font-size=\"11\" fill=\"{colour}\">{label} {ms:.2} ms</text>",
            x(ms),
            x(ms) + 4.0
        );
    }
    let _ = write!(
        svg,
        "<line x1=\"40\" x2=\"780\" y1=\"200\" y2=\"200\" stroke=\"#57606a\"/><text x=\"40\" y=\"220\" font-size=\"11\">0 ms</text><text x=\"740\" y=\"220\" font-size=\"11\">{top:.0} ms</text></svg>"
    );
    format!(
        "<section><h2>{} frame intervals: {} frames, {}</h2>{svg}</section>",
        escape(&measurement.criterion_id),
        intervals.len() + 1,
        escape(measurement.actual.as_deref().unwrap_or("not measured"))
    )
}

fn screenshot_overlay(report: &AuditReport, pack: &Pack, base: &Path) -> String {
    let ui: Vec<&MeasurementRecord> = report
        .checks
        .iter()
        .flat_map(|c| &c.measurements)
        .filter(|m| m.probe.starts_with("layout.") || m.probe.starts_with("a11y."))
        .collect();
    let Some(run) = ui.iter().find_map(|m| m.runs.first()) else {
        return String::new();
    };
    let file = |name: &str| {
        run.files
            .iter()
            .find(|f| f.path.ends_with(name))
            .and_then(|f| std::fs::read(base.join(&f.path)).ok())
    };
    let (Some(png), Some(dump)) = (file("screen.png"), file("layout.json")) else {
        return String::new();
    };
    let Ok(image) = crate::probe::screenshot::Image::decode(&png) else {
        return String::new();
    };
    let Ok(layout) = Layout::parse(&dump) else {
        return String::new();
    };
    let Ok(window) = layout.app_window(Some(&pack.doc.app.bundle.value)) else {
        return String::new();
    };
    let vpr = report
        .device
        .as_ref()
        .and_then(|d| d.virtual_pixel_ratio)
        .unwrap_or(1.0);
    let mut shapes = String::new();
    let draw = |shapes: &mut String, rect: Rect, colour: &str, label: &str| {
        let _ = write!(
            shapes,
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"6\"><title>{}</title></rect><text x=\"{}\" y=\"{}\" font-size=\"34\" fill=\"{colour}\">{}</text>",
            rect.l,
            rect.t,
            rect.width(),
            rect.height(),
            escape(label),
            rect.l,
            rect.t - 8,
            escape(label)
        );
    };
    for node in layout.clickables(window) {
        let Some(rect) = layout.visible_rect(node) else {
            continue;
        };
        let side = to_vp(rect.width().min(rect.height()), vpr);
        let colour = if side < TOUCH_BASELINE_VP {
            "#cf222e"
        } else {
            "#1a7f37"
        };
        draw(
            &mut shapes,
            rect,
            colour,
            &format!("{} {side} vp", layout.selector_of(node)),
        );
    }
    for measurement in &ui {
        let Some(probe) = probe_doc(pack, &measurement.criterion_id) else {
            continue;
        };
        let node = |arg: &Option<String>| {
            arg.as_deref()
                .and_then(|t| Selector::parse(t).ok())
                .and_then(|s| layout.select(window, &s).ok())
        };
        let label = format!(
            "{}: {}",
            measurement.criterion_id,
            measurement.actual.as_deref().unwrap_or("?")
        );
        match (node(&probe.from), node(&probe.to), node(&probe.target)) {
            (Some(from), Some(to), _) => {
                if let (Some(a), Some(b)) = (layout.nodes[from].rect, layout.nodes[to].rect) {
                    draw(&mut shapes, a, "#0969da", "");
                    draw(&mut shapes, b, "#0969da", "");
                    let x = (a.l + a.r) / 2;
                    let _ = write!(
                        shapes,
                        "<line x1=\"{x}\" x2=\"{x}\" y1=\"{}\" y2=\"{}\" stroke=\"#8250df\" stroke-width=\"8\"/><text x=\"{}\" y=\"{}\" font-size=\"34\" fill=\"#8250df\">{}</text>",
                        a.b,
                        b.t,
                        x + 12,
                        (a.b + b.t) / 2 + 12,
                        escape(&label)
                    );
                }
            }
            (_, _, Some(target)) => {
                if let Some(rect) = layout.visible_rect(target) {
                    draw(&mut shapes, rect, "#8250df", &label);
                }
            }
            _ => {}
        }
    }
    let (w, h) = (image.width, image.height);
    let shown = 360.0;
    format!(
        "<section><h2>Screenshot with the measured boxes</h2><p><small>green: touch targets ≥ {TOUCH_BASELINE_VP} vp, red: smaller; blue/violet: measured nodes and gaps</small></p>\
<svg width=\"{shown}\" height=\"{:.0}\" viewBox=\"0 0 {w} {h}\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"screenshot\"><image href=\"data:image/png;base64,{}\" x=\"0\" y=\"0\" width=\"{w}\" height=\"{h}\"/>{shapes}</svg></section>",
        shown * h as f64 / w as f64,
        base64(&png)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_the_rfc_vectors() {
        for (input, encoded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(input.as_bytes()), encoded);
        }
        assert_eq!(
            escape("<a href=\"x\">&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;"
        );
    }
}
