//! The screenshot with the measured boxes and gaps drawn over it, in the screenshot's own
//! pixel coordinates (the SVG's viewBox), framed and shown 540 px wide, every label sized to
//! read at 16 px there (10 px on a phone) and kept inside the picture; a failed measurement
//! is drawn red.

use std::fmt::Write;

use crate::probe::layout::Rect;

use super::view::{ScreenView, Shape};
use super::{TOUCH_BASELINE_VP, base64, escape};

/// How wide the screenshot is shown, in CSS px: its boxes and labels readable.
const SHOWN: f64 = 540.0;

/// A label's size at that width, in CSS px: shrunk to a 400 px phone's figure (about 336 px
/// wide) it is still 10 px.
const LABEL_PX: f64 = 16.0;

/// Sizes in the screenshot's own pixels that show as `css` CSS px.
struct Scale {
    per_css: f64,
    width: f64,
    height: f64,
    /// The labels placed so far (x, y of the baseline, width, height): a new one moves down
    /// until it overlaps none of them.
    placed: std::cell::RefCell<Vec<[f64; 4]>>,
}

impl Scale {
    fn px(&self, css: f64) -> f64 {
        css * self.per_css
    }

    /// A label at the top left of `rect` (above it where there is room, else just inside),
    /// moved left so that it never runs off the screenshot.
    fn label(&self, out: &mut String, (x, top): (f64, f64), colour: &str, text: &str) {
        if text.is_empty() {
            return;
        }
        let font = self.px(LABEL_PX);
        let wide = text.chars().count() as f64 * font * 0.6;
        let x = x.min(self.width - wide).max(0.0);
        let mut y = if top - font * 0.4 >= font {
            top - font * 0.4
        } else {
            (top + font * 1.1).min(self.height - font * 0.3)
        };
        // A line of text and its white halo, with room to spare.
        let line = font * 1.45;
        let overlaps = |y: f64, placed: &[[f64; 4]]| {
            placed.iter().any(|[px, py, pw, ph]| {
                x < px + pw && *px < x + wide && y - line < *py && py - ph < y
            })
        };
        let mut placed = self.placed.borrow_mut();
        // Down a line at a time (up from the bottom when there is no room below).
        let mut tries = 0;
        while overlaps(y, &placed) && tries < 40 {
            y += line;
            if y > self.height - font * 0.3 {
                y = font;
            }
            tries += 1;
        }
        placed.push([x, y, wide, line]);
        let _ = write!(
            out,
            "<text x=\"{x:.0}\" y=\"{y:.0}\" font-size=\"{font:.0}\" fill=\"{colour}\" stroke=\"#fff\" stroke-width=\"{:.1}\" paint-order=\"stroke\" font-weight=\"600\">{}</text>",
            font * 0.25,
            escape(text)
        );
    }

    fn rect(&self, out: &mut String, rect: Rect, colour: &str, label: &str) {
        let _ = write!(
            out,
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"{:.1}\"><title>{}</title></rect>",
            rect.l,
            rect.t,
            rect.width(),
            rect.height(),
            self.px(2.0),
            escape(label)
        );
        self.label(out, (rect.l as f64, rect.t as f64), colour, label);
    }
}

pub(super) fn screen(view: &ScreenView<'_>) -> String {
    let (w, h) = (view.width, view.height);
    let scale = Scale {
        per_css: w as f64 / SHOWN,
        width: w as f64,
        height: h as f64,
        placed: std::cell::RefCell::default(),
    };
    let mut shapes = String::new();
    for shape in &view.shapes {
        match shape {
            Shape::Node {
                rect,
                colour,
                label,
            } => scale.rect(&mut shapes, *rect, colour, label),
            Shape::Gap {
                from,
                to,
                label,
                colour,
            } => {
                scale.rect(&mut shapes, *from, "#0969da", "");
                scale.rect(&mut shapes, *to, "#0969da", "");
                let x = (from.l + from.r) / 2;
                let _ = write!(
                    shapes,
                    "<line x1=\"{x}\" x2=\"{x}\" y1=\"{}\" y2=\"{}\" stroke=\"{colour}\" stroke-width=\"{:.1}\"/>",
                    from.b,
                    to.t,
                    scale.px(3.0)
                );
                let middle = (from.b + to.t) as f64 / 2.0 + scale.px(LABEL_PX) * 0.8;
                scale.label(
                    &mut shapes,
                    (x as f64 + scale.px(6.0), middle),
                    colour,
                    label,
                );
            }
        }
    }
    let mut listed = String::from("<details><summary>the measured boxes as a list</summary><ul>");
    for shape in &view.shapes {
        let (Shape::Node { label, .. } | Shape::Gap { label, .. }) = shape;
        let _ = write!(listed, "<li>{}</li>", escape(label));
    }
    listed.push_str("</ul></details>");
    format!(
        "<section><h2>Screenshot with the measured boxes</h2><p><small>green: touch targets ≥ {TOUCH_BASELINE_VP} vp, red and marked “&lt; {TOUCH_BASELINE_VP}”: smaller; blue/violet: measured nodes and gaps, red and marked “(failed)” when they failed ({w}×{h} px, shown at most {SHOWN} px wide)</small></p>\
<figure class=\"screen\"><svg width=\"{SHOWN}\" height=\"{:.0}\" viewBox=\"0 0 {w} {h}\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"the screenshot with the measured boxes drawn over it (listed below)\"><image href=\"data:image/png;base64,{}\" x=\"0\" y=\"0\" width=\"{w}\" height=\"{h}\"/><rect x=\"0\" y=\"0\" width=\"{w}\" height=\"{h}\" fill=\"none\" stroke=\"#57606a\" stroke-width=\"{:.1}\"/>{shapes}</svg></figure>{listed}</section>",
        SHOWN * h as f64 / w as f64,
        base64(view.png),
        scale.px(1.0)
    )
}
