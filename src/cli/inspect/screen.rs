//! `inspect layout` and `inspect screenshot`: a layout dump's nodes in vp, and the contrast inside
//! a box of a screenshot.

use super::super::error::Error;
use super::super::print;
use super::{invalid, read};
use crate::diagnostic::Diagnostic;
use crate::exit_code;
use crate::probe::layout::{Layout, Rect};
use crate::probe::screenshot::{self, Image};
use std::path::Path;

/// `inspect layout FILE [--vpr X] [--bundle B]`.
pub(super) fn layout(
    file: &Path,
    vpr: Option<f64>,
    bundle: Option<&str>,
    json: bool,
) -> Result<i32, Error> {
    let (vpr, unit) = match vpr {
        Some(vpr) => (vpr, "vp"),
        None => (1.0, "px"),
    };
    if !(vpr.is_finite() && vpr > 0.0) {
        return Err(invalid(
            file,
            "--vpr must be a positive number",
            "pass the device's VirtualPixelRatio, like 3.25",
        ));
    }
    let layout = Layout::parse(&read(file, "a layout dump")?)
        .map_err(|e| invalid(file, e, "pass the JSON written by `uitest dumpLayout`"))?;
    let mut report = layout.report(bundle, vpr);
    report.unit = unit;
    if json {
        print::json(&report);
        return Ok(exit_code::OK);
    }
    print::out(&format!(
        "{}: {} nodes, windows: {}\napp window: {} ({})\nclickable: {}, unlabeled: {}",
        file.display(),
        report.nodes,
        report.windows.join(", "),
        report.app_window.as_deref().unwrap_or("none found"),
        if unit == "vp" {
            format!("density {vpr} px/vp")
        } else {
            "density not given: sizes in px; pass --vpr for vp".to_owned()
        },
        report.clickable,
        if report.unlabeled_clickables.is_empty() {
            "none".to_owned()
        } else {
            report.unlabeled_clickables.join(", ")
        },
    ));
    for target in &report.touch_targets {
        let hidden = match target.visible_vp {
            Some((w, h)) => format!("  (partly hidden: {w:.3} × {h:.3} {unit} visible)"),
            None => String::new(),
        };
        print::out(&format!(
            "  {:>8.3} × {:<8.3} {unit}  {}{hidden}",
            target.width_vp, target.height_vp, target.selector
        ));
    }
    Ok(exit_code::OK)
}

/// `inspect screenshot FILE --box l,t,r,b`.
pub(super) fn screenshot(file: &Path, bounds: &str, json: bool) -> Result<i32, Error> {
    let numbers: Vec<i64> = bounds
        .split(',')
        .filter_map(|n| n.trim().parse().ok())
        .collect();
    let [l, t, r, b] = numbers[..] else {
        return Err(invalid(
            file,
            format!("--box `{bounds}` is not l,t,r,b"),
            "give the box in px, like 48,200,600,300",
        ));
    };
    let image = Image::decode(&read(file, "a screenshot")?).map_err(|e| match e {
        screenshot::ScreenshotError::TooLarge { .. } => Error::from(
            Diagnostic::error("E_IMAGE_TOO_LARGE", format!("{}: {e}", file.display()))
                .fix("pass a screenshot the device took (uitest screenCap)"),
        ),
        e => invalid(file, e, "pass a PNG or JPEG screenshot"),
    })?;
    let measured = screenshot::contrast(&image, Rect { l, t, r, b }).map_err(|e| {
        invalid(
            file,
            e,
            "choose a box inside the image that holds text and its background",
        )
    })?;
    if json {
        print::json(&measured);
        return Ok(exit_code::OK);
    }
    print::diagnostics(
        &measured
            .warnings
            .iter()
            .map(|w| Diagnostic::warning("W_SCREENSHOT_LOSSY", w.clone()))
            .collect::<Vec<_>>(),
    );
    print::out(&format!(
        "contrast {}:1 — foreground {} on background {} ({} px in [{},{}][{},{}])",
        measured.ratio,
        measured.foreground,
        measured.background,
        measured.pixels,
        measured.bounds.l,
        measured.bounds.t,
        measured.bounds.r,
        measured.bounds.b
    ));
    Ok(exit_code::OK)
}
