//! The screenshot with the measured boxes and gaps drawn over it, in the screenshot's own
//! pixel coordinates (the SVG's viewBox), shown 360 px wide.

use std::fmt::Write;

use crate::probe::layout::Rect;

use super::view::{ScreenView, Shape};
use super::{TOUCH_BASELINE_VP, base64, escape};

fn draw(shapes: &mut String, rect: Rect, colour: &str, label: &str) {
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
}

pub(super) fn screen(view: &ScreenView<'_>) -> String {
    let mut shapes = String::new();
    for shape in &view.shapes {
        match shape {
            Shape::Node {
                rect,
                colour,
                label,
            } => draw(&mut shapes, *rect, colour, label),
            Shape::Gap { from, to, label } => {
                draw(&mut shapes, *from, "#0969da", "");
                draw(&mut shapes, *to, "#0969da", "");
                let x = (from.l + from.r) / 2;
                let _ = write!(
                    shapes,
                    "<line x1=\"{x}\" x2=\"{x}\" y1=\"{}\" y2=\"{}\" stroke=\"#8250df\" stroke-width=\"8\"/><text x=\"{}\" y=\"{}\" font-size=\"34\" fill=\"#8250df\">{}</text>",
                    from.b,
                    to.t,
                    x + 12,
                    (from.b + to.t) / 2 + 12,
                    escape(label)
                );
            }
        }
    }
    let (w, h) = (view.width, view.height);
    let shown = 360.0;
    format!(
        "<section><h2>Screenshot with the measured boxes</h2><p><small>green: touch targets ≥ {TOUCH_BASELINE_VP} vp, red: smaller; blue/violet: measured nodes and gaps</small></p>\
<svg width=\"{shown}\" height=\"{:.0}\" viewBox=\"0 0 {w} {h}\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"screenshot\"><image href=\"data:image/png;base64,{}\" x=\"0\" y=\"0\" width=\"{w}\" height=\"{h}\"/>{shapes}</svg></section>",
        shown * h as f64 / w as f64,
        base64(view.png)
    )
}
