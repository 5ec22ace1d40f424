//! `report.html`: one self-contained page (inline SVG and CSS, the screenshot as a data URI,
//! no network): the verdict table, the cold-start runs split into their phases, the
//! frame-interval distribution against the budget, the screenshot with the measured
//! boxes, gaps and failing touch targets drawn over it, and each flow as a filmstrip with its
//! response times. The page is a pure function of its
//! view ([`view::Page`]), computed once from the report and the figures the audit decoded:
//! nothing here opens or parses evidence.

mod ab;
mod audit;
mod charts;
mod compare;
mod deliver;
mod flows;
mod overlay;
mod page;
mod trends;
mod view;

pub(crate) use ab::{ab_html, ab_lab_html};
pub use compare::compare_html;
pub(crate) use deliver::{Step, deliver_html};
pub(crate) use view::Page;

pub use audit::html;
pub(crate) use page::{
    CHART_WIDTH, FOOT, SVG_CLOSE, escape, head, name, said, scrolling, svg_open, svg_open_as,
};
use page::{TOUCH_BASELINE_VP, base64};

#[cfg(test)]
mod tests;
