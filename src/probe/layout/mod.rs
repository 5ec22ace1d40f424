//! `uitest dumpLayout` JSON (research/layout-a11y.md §1): the node tree flattened, the app's
//! window found by `bundleName`, selectors, geometry in vp, touch targets and unlabeled
//! clickables.
//!
//! The root is an object (merged mode) or an array of windows (`-i`). Every attribute is an
//! optional string. Geometry uses `origBounds` (the unclipped rect; `bounds` as a fallback);
//! what is on screen is that rect clipped by the display, the app window and every ancestor
//! that scrolls or clips.

mod rect;
mod report;

use serde_json::Value;

use crate::pack::{Axis, Edge, Selector, SelectorKind, Side};

pub use rect::Rect;
pub use report::{LayoutReport, TouchTarget};

/// A node of one dump: its position in the flattened tree (parents before children).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct NodeId(usize);

/// One node of the dump.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Node {
    /// `id` (the inspector key).
    pub(crate) id: String,
    /// `key`.
    pub(crate) key: String,
    /// `text`.
    pub(crate) text: String,
    /// `description`.
    pub(crate) description: String,
    /// `type`.
    pub(crate) kind: String,
    /// The geometry rect: `origBounds`, else `bounds`.
    pub(crate) rect: Option<Rect>,
    /// `clickable == "true"`.
    pub(crate) clickable: bool,
    /// `enabled != "false"`.
    pub(crate) enabled: bool,
    /// Scrolls or clips its children.
    pub(crate) clips: bool,
    /// `bundleName` on a window root.
    pub(crate) bundle: Option<String>,
    /// Its parent.
    pub(crate) parent: Option<NodeId>,
    /// The window root it is under.
    pub(crate) window: Option<NodeId>,
}

/// A parsed dump.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Every node, parents before children.
    pub(crate) nodes: Vec<Node>,
    /// The display rect (the merged root's bounds), when known.
    pub(crate) display: Option<Rect>,
}

/// Why a dump or a query failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    /// Not JSON, or not a dump.
    #[error("not a uitest dumpLayout file: {0}")]
    Invalid(String),
    /// The app's window is not in the dump.
    #[error("no window of `{bundle}` in the dump (windows: {windows})")]
    NoWindow {
        /// The bundle looked for.
        bundle: String,
        /// The bundles present.
        windows: String,
    },
    /// A selector matched nothing.
    #[error("`{selector}` matches no node in the app window (candidates: {candidates})")]
    NotFound {
        /// The selector.
        selector: String,
        /// Values of that kind present.
        candidates: String,
    },
    /// A selector matched several nodes and had no `[n]`.
    #[error("`{selector}` matches {count} nodes; add [n] to choose one ({candidates})")]
    Ambiguous {
        /// The selector.
        selector: String,
        /// How many.
        count: usize,
        /// Their rects.
        candidates: String,
    },
    /// A matched node has no usable rect.
    #[error("`{0}` has no bounds")]
    NoBounds(String),
}

impl Layout {
    /// Parses dump bytes.
    pub fn parse(bytes: &[u8]) -> Result<Layout, LayoutError> {
        // serde_json's recursion limit (128) bounds the nesting, and so the walk below.
        let value: Value =
            serde_json::from_slice(bytes).map_err(|e| LayoutError::Invalid(e.to_string()))?;
        let mut layout = Layout {
            nodes: Vec::new(),
            display: None,
        };
        match &value {
            Value::Object(root)
                if root.contains_key("attributes") || root.contains_key("children") =>
            {
                layout.display = attribute(&value, "bounds").and_then(|b| Rect::parse(&b));
                for child in children(&value) {
                    layout.walk(child, None, None)?;
                }
            }
            Value::Array(windows) => {
                for window in windows {
                    layout.walk(window, None, None)?;
                }
            }
            _ => {
                return Err(LayoutError::Invalid(
                    "the root is neither a node nor a list of windows".to_owned(),
                ));
            }
        }
        Ok(layout)
    }

    fn walk(
        &mut self,
        value: &Value,
        parent: Option<NodeId>,
        window: Option<NodeId>,
    ) -> Result<(), LayoutError> {
        if !value.is_object() {
            return Err(LayoutError::Invalid("a node is not an object".to_owned()));
        }
        let get = |name: &str| attribute(value, name).unwrap_or_default();
        let index = NodeId(self.nodes.len());
        let bundle = attribute(value, "bundleName");
        let window = if bundle.is_some() {
            Some(index)
        } else {
            window
        };
        self.nodes.push(Node {
            id: get("id"),
            key: get("key"),
            text: get("text"),
            description: get("description"),
            kind: get("type"),
            rect: Rect::parse(&get("origBounds")).or_else(|| Rect::parse(&get("bounds"))),
            clickable: get("clickable") == "true",
            enabled: get("enabled") != "false",
            clips: get("scrollable") == "true" || get("clip") == "true",
            bundle,
            parent,
            window,
        });
        for child in children(value) {
            self.walk(child, Some(index), window)?;
        }
        Ok(())
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

    /// The on-screen part of a node: its rect clipped by the display, its window and every
    /// ancestor that scrolls or clips.
    pub(crate) fn visible_rect(&self, id: NodeId) -> Option<Rect> {
        let mut rect = self.node(id).rect?;
        if let Some(display) = self.display {
            rect = rect.intersect(&display);
        }
        let mut ancestor = self.node(id).parent;
        while let Some(a) = ancestor {
            let node = self.node(a);
            if (node.clips || node.bundle.is_some())
                && let Some(clip) = node.rect
            {
                rect = rect.intersect(&clip);
            }
            ancestor = node.parent;
        }
        Some(rect)
    }

    /// Nodes of `window` (its subtree, root included).
    fn in_window(&self, window: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        self.ids()
            .filter(move |i| self.node(*i).window == Some(window))
    }

    /// Resolves a selector inside `window`.
    pub(crate) fn select(
        &self,
        window: NodeId,
        selector: &Selector,
    ) -> Result<NodeId, LayoutError> {
        let value_of = |node: &Node| -> String {
            match selector.kind {
                SelectorKind::Id => node.id.clone(),
                SelectorKind::Key => node.key.clone(),
                SelectorKind::Text => node.text.clone(),
                SelectorKind::Type => node.kind.clone(),
            }
        };
        let matches: Vec<NodeId> = self
            .in_window(window)
            .filter(|i| value_of(self.node(*i)) == selector.value)
            .collect();
        match (matches.len(), selector.index) {
            (0, _) => Err(LayoutError::NotFound {
                selector: selector.to_string(),
                candidates: {
                    let mut values: Vec<String> = self
                        .in_window(window)
                        .map(|i| value_of(self.node(i)))
                        .filter(|v| !v.is_empty())
                        .collect();
                    values.sort();
                    values.dedup();
                    list(values.into_iter())
                },
            }),
            (_, Some(n)) => matches
                .get(n)
                .copied()
                .ok_or_else(|| LayoutError::NotFound {
                    selector: selector.to_string(),
                    candidates: format!("only {} match(es)", matches.len()),
                }),
            (1, None) => Ok(matches[0]),
            (count, None) => Err(LayoutError::Ambiguous {
                selector: selector.to_string(),
                count,
                candidates: list(matches.iter().enumerate().map(|(n, i)| {
                    let rect = self.node(*i).rect.unwrap_or_default();
                    format!("[{n}] at [{},{}][{},{}]", rect.l, rect.t, rect.r, rect.b)
                })),
            }),
        }
    }

    /// A selector that names this node (`id:`, else `key:`, else `text:`, else `type:…[n]`).
    pub(crate) fn selector_of(&self, id: NodeId) -> String {
        let node = self.node(id);
        let window = node.window;
        let nth = |same: &dyn Fn(&Node) -> bool| {
            self.nodes[..id.0]
                .iter()
                .filter(|n| n.window == window && same(n))
                .count()
        };
        // The first attribute that names the node, with `[n]` when it is not unique.
        let named = |kind: &str, value: &str, same: &dyn Fn(&Node) -> bool| {
            let total = self
                .nodes
                .iter()
                .filter(|n| n.window == window && same(n))
                .count();
            if total > 1 {
                format!("{kind}:{value}[{}]", nth(same))
            } else {
                format!("{kind}:{value}")
            }
        };
        if !node.id.is_empty() {
            named("id", &node.id, &|n: &Node| n.id == node.id)
        } else if !node.key.is_empty() {
            named("key", &node.key, &|n: &Node| n.key == node.key)
        } else if !node.text.is_empty() {
            named("text", &node.text, &|n: &Node| n.text == node.text)
        } else {
            format!(
                "type:{}[{}]",
                node.kind,
                nth(&|n: &Node| n.kind == node.kind)
            )
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

    /// Clickable, enabled nodes of `window` that are on screen.
    pub(crate) fn clickables(&self, window: NodeId) -> Vec<NodeId> {
        self.in_window(window)
            .filter(|i| self.node(*i).clickable && self.node(*i).enabled)
            .filter(|i| self.visible_rect(*i).is_some_and(|r| !r.is_empty()))
            .collect()
    }

    /// Clickable nodes with neither text nor description.
    pub(crate) fn unlabeled(&self, window: NodeId) -> Vec<NodeId> {
        self.clickables(window)
            .into_iter()
            .filter(|i| {
                self.node(*i).text.trim().is_empty() && self.node(*i).description.trim().is_empty()
            })
            .collect()
    }
}

fn attribute(node: &Value, name: &str) -> Option<String> {
    node.get("attributes")?
        .get(name)?
        .as_str()
        .map(str::to_owned)
}

fn children(node: &Value) -> impl Iterator<Item = &Value> {
    node.get("children")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

fn list(items: impl Iterator<Item = String>) -> String {
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

#[cfg(test)]
mod tests;
