//! What `dwpipe inspect layout` reports of a dump: its windows, the app window's touch targets
//! in vp (smallest side first; each by its own size, a partly hidden one flagged with what is
//! visible of it) and its unlabeled clickables.

use serde::Serialize;

use super::{Layout, to_vp};

/// A touch target, for reports.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TouchTarget {
    /// A selector naming the node.
    pub(crate) selector: String,
    /// Width in vp.
    pub(crate) width_vp: f64,
    /// Height in vp.
    pub(crate) height_vp: f64,
    /// Part of it is scrolled away, clipped or under another window.
    #[serde(rename = "partly-hidden", skip_serializing_if = "std::ops::Not::not")]
    pub(crate) partly_hidden: bool,
    /// What is visible of it (width, height in vp), when it is partly hidden.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) visible_vp: Option<(f64, f64)>,
}

/// What `dwpipe inspect layout --json` prints; the field names are a contract.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LayoutReport {
    /// Nodes in the dump.
    pub nodes: usize,
    /// Window roots (bundle names).
    pub(crate) windows: Vec<String>,
    /// The window measured.
    pub(crate) app_window: Option<String>,
    /// The density used (px per vp).
    pub(crate) vpr: f64,
    /// The unit of the sizes: `vp`, or `px` when no density was given (the `_vp` fields then
    /// hold pixels).
    pub(crate) unit: &'static str,
    /// Clickable, enabled, on-screen nodes in the app window.
    pub clickable: usize,
    /// Every such node with its size, smallest side first.
    pub(crate) touch_targets: Vec<TouchTarget>,
    /// Clickable nodes with neither text nor description.
    pub(crate) unlabeled_clickables: Vec<String>,
}

impl Layout {
    /// The report of `dwpipe inspect layout`.
    pub fn report(&self, bundle: Option<&str>, vpr: f64) -> LayoutReport {
        let window = self.app_window(bundle).ok();
        let clickables = window.map(|w| self.clickables(w)).unwrap_or_default();
        let mut touch_targets: Vec<TouchTarget> = clickables
            .iter()
            .filter_map(|i| {
                let own = self.node(*i).rect?;
                let partly_hidden = self.partly_hidden(*i);
                Some(TouchTarget {
                    selector: self.selector_of(*i),
                    width_vp: to_vp(own.width(), vpr),
                    height_vp: to_vp(own.height(), vpr),
                    partly_hidden,
                    visible_vp: partly_hidden
                        .then(|| self.visible_rect(*i))
                        .flatten()
                        .map(|r| (to_vp(r.width(), vpr), to_vp(r.height(), vpr))),
                })
            })
            .collect();
        touch_targets.sort_by(|a, b| {
            a.width_vp
                .min(a.height_vp)
                .total_cmp(&b.width_vp.min(b.height_vp))
        });
        LayoutReport {
            nodes: self.nodes.len(),
            windows: self
                .windows()
                .iter()
                .filter_map(|w| self.node(*w).bundle.clone())
                .collect(),
            app_window: window.and_then(|w| self.node(w).bundle.clone()),
            vpr,
            unit: "vp",
            clickable: clickables.len(),
            touch_targets,
            unlabeled_clickables: window
                .map(|w| self.unlabeled(w))
                .unwrap_or_default()
                .into_iter()
                .map(|i| self.selector_of(i))
                .collect(),
        }
    }
}
