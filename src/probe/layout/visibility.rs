//! The visibility rule: what the user can see of a node.
//!
//! A node's visible rect is its own rect (`origBounds`) clipped by
//! - the display,
//! - the rect uitest computed to be on screen of it (`bounds`: uitest already subtracts the
//!   windows above it, the input method and dialogs, and clips by `clip` ancestors),
//! - every scrolling or clipping ancestor's own rect (a 2024 uitest left the children of a
//!   scroll container unclipped, research/layout-a11y.md §1.6), and
//! - the app window's `bounds`, not its `origBounds`: the soft keyboard shrinks the window
//!   while its full-screen `origBounds` stays.
//!
//! A node of which nothing is left is wholly hidden: not a touch target, not a contrast box,
//! "not visible" for a probe naming it. Each query walks the ancestors once; serde_json's
//! recursion limit bounds that depth.

use super::{Layout, NodeId, Rect};

impl Layout {
    /// What the user can see of `id`, `None` when the node has no rect; an empty rect when it
    /// is wholly hidden.
    pub(crate) fn visible_rect(&self, id: NodeId) -> Option<Rect> {
        let node = self.node(id);
        let mut rect = node.rect?;
        let mut clip = |by: Option<Rect>| {
            if let Some(by) = by {
                rect = rect.intersect(&by);
            }
        };
        clip(self.display);
        clip(node.shown);
        let mut ancestor = node.parent;
        while let Some(a) = ancestor {
            let up = self.node(a);
            if up.bundle.is_some() {
                clip(up.shown.or(up.rect));
            } else if up.clips {
                clip(up.rect);
            }
            ancestor = up.parent;
        }
        Some(rect)
    }

    /// Whether something of `id` is visible, but not all of it.
    pub(crate) fn partly_hidden(&self, id: NodeId) -> bool {
        match (self.node(id).rect, self.visible_rect(id)) {
            (Some(own), Some(visible)) => !visible.is_empty() && visible != own,
            _ => false,
        }
    }
}
