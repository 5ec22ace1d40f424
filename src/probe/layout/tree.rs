//! A layout dump as dwpipe reads it: its nodes in document order, found by selector, with their
//! rects, visibility and text.

use super::{LayoutError, Names, Node, NodeId};
use crate::pack::{Axis, Edge, Selector, SelectorKind, Side};
use crate::probe::layout::Rect;
use std::collections::HashMap;

/// A parsed dump.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Every node, parents before children.
    pub(crate) nodes: Vec<Node>,
    /// The display rect (the merged root's bounds), when known.
    pub(crate) display: Option<Rect>,
    /// Nodes by what names them, built on first use (selectors in linear time).
    names: Names,
}

impl Layout {
    pub(crate) fn empty() -> Layout {
        Layout {
            nodes: Vec::new(),
            display: None,
            names: Names::default(),
        }
    }

    /// A node.
    pub(crate) fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.0]
    }

    /// Every node, in tree order.
    fn ids(&self) -> impl Iterator<Item = NodeId> + '_ {
        (0..self.nodes.len()).map(NodeId)
    }

    /// Window roots (nodes with a `bundleName`).
    pub(crate) fn windows(&self) -> Vec<NodeId> {
        self.ids()
            .filter(|i| self.node(*i).bundle.is_some())
            .collect()
    }

    /// The window of `bundle`, or the first window with a bundle name when `None`.
    pub(crate) fn app_window(&self, bundle: Option<&str>) -> Result<NodeId, LayoutError> {
        let windows = self.windows();
        windows
            .iter()
            .copied()
            .find(|w| match (bundle, &self.node(*w).bundle) {
                (Some(b), Some(found)) => b == found,
                (None, Some(found)) => !found.is_empty(),
                _ => false,
            })
            .ok_or_else(|| LayoutError::NoWindow {
                bundle: bundle.unwrap_or("any app").to_owned(),
                windows: list(windows.iter().filter_map(|w| self.node(*w).bundle.clone())),
            })
    }

    /// Nodes of `window` (its subtree, root included).
    fn in_window(&self, window: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        self.ids()
            .filter(move |i| self.node(*i).window == Some(window))
    }

    /// The nodes of `window` whose `kind` attribute is `value`, in tree order.
    fn named(&self, window: Option<NodeId>, kind: SelectorKind, value: &str) -> &[NodeId] {
        let names = self.names.0.get_or_init(|| {
            let mut names: HashMap<_, Vec<NodeId>> = HashMap::new();
            for id in self.ids() {
                let node = self.node(id);
                for kind in [
                    SelectorKind::Id,
                    SelectorKind::Key,
                    SelectorKind::Text,
                    SelectorKind::Type,
                ] {
                    let value = node.value(kind);
                    if !value.is_empty() {
                        names
                            .entry((node.window, kind, value.to_owned()))
                            .or_default()
                            .push(id);
                    }
                }
            }
            names
        });
        names
            .get(&(window, kind, value.to_owned()))
            .map_or(&[], Vec::as_slice)
    }

    /// Resolves a selector inside `window`; a wholly hidden match is not visible.
    pub(crate) fn select(
        &self,
        window: NodeId,
        selector: &Selector,
    ) -> Result<NodeId, LayoutError> {
        let matches = self.named(Some(window), selector.kind, &selector.value);
        let chosen = match (matches.len(), selector.index) {
            (0, _) => {
                return Err(LayoutError::NotFound {
                    selector: selector.to_string(),
                    candidates: {
                        let mut values: Vec<&str> = self
                            .in_window(window)
                            .map(|i| self.node(i).value(selector.kind))
                            .filter(|v| !v.is_empty())
                            .collect();
                        values.sort_unstable();
                        values.dedup();
                        list(values.into_iter().map(str::to_owned))
                    },
                });
            }
            (_, Some(n)) => matches
                .get(n)
                .copied()
                .ok_or_else(|| LayoutError::NotFound {
                    selector: selector.to_string(),
                    candidates: format!("only {} match(es)", matches.len()),
                })?,
            (1, None) => matches[0],
            (count, None) => {
                return Err(LayoutError::Ambiguous {
                    selector: selector.to_string(),
                    count,
                    candidates: list(matches.iter().enumerate().map(|(n, i)| {
                        let rect = self.node(*i).rect.unwrap_or_default();
                        format!("[{n}] at [{},{}][{},{}]", rect.l, rect.t, rect.r, rect.b)
                    })),
                });
            }
        };
        if self.visible_rect(chosen).is_none_or(|r| r.is_empty())
            && self.node(chosen).rect.is_some()
        {
            return Err(LayoutError::NotVisible(self.selector_of(chosen)));
        }
        Ok(chosen)
    }

    /// A selector that names this node (`id:`, else `key:`, else `text:`, else `type:…[n]`),
    /// with `[n]` when the value is not unique in its window.
    pub(crate) fn selector_of(&self, id: NodeId) -> String {
        let node = self.node(id);
        let kind = [SelectorKind::Id, SelectorKind::Key, SelectorKind::Text]
            .into_iter()
            .find(|k| !node.value(*k).is_empty())
            .unwrap_or(SelectorKind::Type);
        let value = node.value(kind);
        let same = self.named(node.window, kind, value);
        let nth = same.binary_search(&id).unwrap_or(0);
        if same.len() > 1 || kind == SelectorKind::Type {
            format!("{kind}:{value}[{nth}]")
        } else {
            format!("{kind}:{value}")
        }
    }

    fn rect_of(&self, id: NodeId) -> Result<Rect, LayoutError> {
        self.node(id)
            .rect
            .ok_or_else(|| LayoutError::NoBounds(self.selector_of(id)))
    }

    /// The gap from `from` to `to` in px: vertical (`to.top − from.bottom`) or horizontal
    /// (`to.left − from.right`).
    pub(crate) fn gap_px(&self, from: NodeId, to: NodeId, axis: Axis) -> Result<i64, LayoutError> {
        let (a, b) = (self.rect_of(from)?, self.rect_of(to)?);
        Ok(match axis {
            Axis::Horizontal => b.l - a.r,
            Axis::Vertical => b.t - a.b,
        })
    }

    /// Width or height in px.
    pub(crate) fn size_px(&self, node: NodeId, side: Side) -> Result<i64, LayoutError> {
        let rect = self.rect_of(node)?;
        Ok(match side {
            Side::Height => rect.height(),
            Side::Width => rect.width(),
        })
    }

    /// How far `to`'s left (or top) edge is from `from`'s, in px (absolute).
    pub(crate) fn misalignment_px(
        &self,
        from: NodeId,
        to: NodeId,
        edge: Edge,
    ) -> Result<i64, LayoutError> {
        let (a, b) = (self.rect_of(from)?, self.rect_of(to)?);
        Ok(match edge {
            Edge::Top => (b.t - a.t).abs(),
            Edge::Left => (b.l - a.l).abs(),
        })
    }

    /// Clickable nodes of `window` a finger can hit, of which something is visible.
    pub(crate) fn clickables(&self, window: NodeId) -> Vec<NodeId> {
        self.in_window(window)
            .filter(|i| self.node(*i).clickable && self.node(*i).hittable)
            .filter(|i| self.visible_rect(*i).is_some_and(|r| !r.is_empty()))
            .collect()
    }

    /// Clickables of which nothing is visible (under another window, off the display): no
    /// target, only counted.
    pub(crate) fn hidden_clickables(&self, window: NodeId) -> usize {
        self.in_window(window)
            .filter(|i| self.node(*i).clickable && self.node(*i).hittable)
            .filter(|i| self.visible_rect(*i).is_some_and(|r| r.is_empty()))
            .count()
    }

    /// Visible clickables a screen reader has no name for. A clickable is labelled when it,
    /// or a descendant that is not hidden (`visible: "false"`: dumpLayout carries no
    /// accessibility level, and uitest keeps such a node only for a visible descendant or as
    /// invisible to the accessibility layer), carries `text` or `description`; a text input
    /// (`TextInput`, `TextArea`, `Search`, `RichEditor`) is labelled by its `hint` too.
    pub(crate) fn unlabeled(&self, window: NodeId) -> Vec<NodeId> {
        // Bottom up, once: whether each node or a readable descendant carries a name.
        let mut named = vec![false; self.nodes.len()];
        for index in (0..self.nodes.len()).rev() {
            let node = &self.nodes[index];
            if node.hidden {
                continue;
            }
            named[index] |= node.has_name();
            if let Some(parent) = node.parent
                && named[index]
            {
                named[parent.0] = true;
            }
        }
        self.clickables(window)
            .into_iter()
            .filter(|i| !named[i.0])
            .collect()
    }
}

impl Layout {
    /// The visible rect of the node `selector` names in `bundle`'s window, when it is on
    /// screen: how a fake device decides what a tap hit.
    pub fn visible_rect_of(&self, bundle: &str, selector: &str) -> Option<Rect> {
        let selector = Selector::parse(selector).ok()?;
        let window = self.app_window(Some(bundle)).ok()?;
        let node = self.select(window, &selector).ok()?;
        self.visible_rect(node).filter(|r| !r.is_empty())
    }

    /// What the node says: its own text, else the texts of its readable descendants in
    /// document order (a button's label is usually a `Text` child), joined by spaces.
    pub(crate) fn text_of(&self, id: NodeId) -> String {
        let own = self.node(id).text.trim();
        if !own.is_empty() {
            return own.to_owned();
        }
        let under = |mut node: NodeId| loop {
            match self.node(node).parent {
                Some(parent) if parent == id => return true,
                Some(parent) => node = parent,
                None => return false,
            }
        };
        // Descendants follow their ancestor in a dump: the scan stops at the first node that
        // is not one.
        self.ids()
            .skip(id.0 + 1)
            .take_while(|i| under(*i))
            .filter(|i| !self.node(*i).hidden && !self.node(*i).text.trim().is_empty())
            .map(|i| self.node(i).text.trim())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

pub(super) fn list(items: impl Iterator<Item = String>) -> String {
    let items: Vec<String> = items.take(12).collect();
    if items.is_empty() {
        "none".to_owned()
    } else {
        items.join(", ")
    }
}

/// px → vp, rounded to 3 decimals for reports.
pub(crate) fn to_vp(px: i64, vpr: f64) -> f64 {
    (px as f64 / vpr * 1000.0).round() / 1000.0
}
