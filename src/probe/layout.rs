//! `uitest dumpLayout` JSON (research/layout-a11y.md §1): the node tree flattened, the app's
//! window found by `bundleName`, selectors, geometry in vp, touch targets and unlabeled
//! clickables.
//!
//! The root is an object (merged mode) or an array of windows (`-i`). Every attribute is an
//! optional string. Geometry uses `origBounds` (the unclipped rect; `bounds` as a fallback);
//! what is on screen is that rect clipped by the display, the app window and every ancestor
//! that scrolls or clips.

use serde::Serialize;
use serde_json::Value;

use crate::pack::{Selector, SelectorKind};

/// `[l,t][r,b]` in px.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Rect {
    /// Left.
    pub l: i64,
    /// Top.
    pub t: i64,
    /// Right.
    pub r: i64,
    /// Bottom.
    pub b: i64,
}

impl Rect {
    /// Parses `[l,t][r,b]`; inverted rects are kept (they have no area).
    pub fn parse(text: &str) -> Option<Rect> {
        let inner = text.trim().strip_prefix('[')?.strip_suffix(']')?;
        let (first, second) = inner.split_once("][")?;
        let pair = |s: &str| -> Option<(i64, i64)> {
            let (a, b) = s.split_once(',')?;
            Some((a.trim().parse().ok()?, b.trim().parse().ok()?))
        };
        let ((l, t), (r, b)) = (pair(first)?, pair(second)?);
        Some(Rect { l, t, r, b })
    }

    /// Width (0 when inverted).
    pub fn width(&self) -> i64 {
        (self.r - self.l).max(0)
    }

    /// Height (0 when inverted).
    pub fn height(&self) -> i64 {
        (self.b - self.t).max(0)
    }

    /// Whether the rect has no area.
    pub fn is_empty(&self) -> bool {
        self.width() == 0 || self.height() == 0
    }

    /// The overlap of two rects (possibly empty).
    pub fn intersect(&self, other: &Rect) -> Rect {
        Rect {
            l: self.l.max(other.l),
            t: self.t.max(other.t),
            r: self.r.min(other.r),
            b: self.b.min(other.b),
        }
    }
}

/// One node of the dump.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Node {
    /// `id` (the inspector key).
    pub id: String,
    /// `key`.
    pub key: String,
    /// `text`.
    pub text: String,
    /// `description`.
    pub description: String,
    /// `type`.
    pub kind: String,
    /// The geometry rect: `origBounds`, else `bounds`.
    pub rect: Option<Rect>,
    /// `clickable == "true"`.
    pub clickable: bool,
    /// `enabled != "false"`.
    pub enabled: bool,
    /// Scrolls or clips its children.
    pub clips: bool,
    /// `bundleName` on a window root.
    pub bundle: Option<String>,
    /// Parent index.
    pub parent: Option<usize>,
    /// Index of the window root this node is under.
    pub window: Option<usize>,
}

/// A parsed dump.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Every node, parents before children.
    pub nodes: Vec<Node>,
    /// The display rect (the merged root's bounds), when known.
    pub display: Option<Rect>,
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
        parent: Option<usize>,
        window: Option<usize>,
    ) -> Result<(), LayoutError> {
        if !value.is_object() {
            return Err(LayoutError::Invalid("a node is not an object".to_owned()));
        }
        let get = |name: &str| attribute(value, name).unwrap_or_default();
        let index = self.nodes.len();
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

    /// Window roots (nodes with a `bundleName`).
    pub fn windows(&self) -> Vec<usize> {
        (0..self.nodes.len())
            .filter(|i| self.nodes[*i].bundle.is_some())
            .collect()
    }

    /// The window of `bundle`, or the first window with a bundle name when `None`.
    pub fn app_window(&self, bundle: Option<&str>) -> Result<usize, LayoutError> {
        let windows = self.windows();
        windows
            .iter()
            .copied()
            .find(|w| match (bundle, &self.nodes[*w].bundle) {
                (Some(b), Some(found)) => b == found,
                (None, Some(found)) => !found.is_empty(),
                _ => false,
            })
            .ok_or_else(|| LayoutError::NoWindow {
                bundle: bundle.unwrap_or("any app").to_owned(),
                windows: list(windows.iter().filter_map(|w| self.nodes[*w].bundle.clone())),
            })
    }

    /// The on-screen part of a node: its rect clipped by the display, its window and every
    /// ancestor that scrolls or clips.
    pub fn visible_rect(&self, index: usize) -> Option<Rect> {
        let mut rect = self.nodes[index].rect?;
        if let Some(display) = self.display {
            rect = rect.intersect(&display);
        }
        let mut ancestor = self.nodes[index].parent;
        while let Some(a) = ancestor {
            let node = &self.nodes[a];
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
    fn in_window(&self, window: usize) -> impl Iterator<Item = usize> + '_ {
        (0..self.nodes.len()).filter(move |i| self.nodes[*i].window == Some(window))
    }

    /// Resolves a selector inside `window`.
    pub fn select(&self, window: usize, selector: &Selector) -> Result<usize, LayoutError> {
        let value_of = |node: &Node| -> String {
            match selector.kind {
                SelectorKind::Id => node.id.clone(),
                SelectorKind::Key => node.key.clone(),
                SelectorKind::Text => node.text.clone(),
                SelectorKind::Type => node.kind.clone(),
            }
        };
        let matches: Vec<usize> = self
            .in_window(window)
            .filter(|i| value_of(&self.nodes[*i]) == selector.value)
            .collect();
        match (matches.len(), selector.index) {
            (0, _) => Err(LayoutError::NotFound {
                selector: selector.to_string(),
                candidates: {
                    let mut values: Vec<String> = self
                        .in_window(window)
                        .map(|i| value_of(&self.nodes[i]))
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
                    let rect = self.nodes[*i].rect.unwrap_or_default();
                    format!("[{n}] at [{},{}][{},{}]", rect.l, rect.t, rect.r, rect.b)
                })),
            }),
        }
    }

    /// A selector that names this node (`id:`, else `key:`, else `text:`, else `type:…[n]`).
    pub fn selector_of(&self, index: usize) -> String {
        let node = &self.nodes[index];
        let window = node.window;
        let nth = |same: &dyn Fn(&Node) -> bool| {
            (0..index)
                .filter(|i| self.nodes[*i].window == window && same(&self.nodes[*i]))
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

    fn rect_of(&self, index: usize) -> Result<Rect, LayoutError> {
        self.nodes[index]
            .rect
            .ok_or_else(|| LayoutError::NoBounds(self.selector_of(index)))
    }

    /// The gap from `from` to `to` in px: vertical (`to.top − from.bottom`) or horizontal
    /// (`to.left − from.right`).
    pub fn gap_px(&self, from: usize, to: usize, horizontal: bool) -> Result<i64, LayoutError> {
        let (a, b) = (self.rect_of(from)?, self.rect_of(to)?);
        Ok(if horizontal { b.l - a.r } else { b.t - a.b })
    }

    /// Width or height in px.
    pub fn size_px(&self, node: usize, height: bool) -> Result<i64, LayoutError> {
        let rect = self.rect_of(node)?;
        Ok(if height { rect.height() } else { rect.width() })
    }

    /// How far `to`'s left (or top) edge is from `from`'s, in px (absolute).
    pub fn misalignment_px(&self, from: usize, to: usize, top: bool) -> Result<i64, LayoutError> {
        let (a, b) = (self.rect_of(from)?, self.rect_of(to)?);
        Ok(if top {
            (b.t - a.t).abs()
        } else {
            (b.l - a.l).abs()
        })
    }

    /// Clickable, enabled nodes of `window` that are on screen.
    pub fn clickables(&self, window: usize) -> Vec<usize> {
        self.in_window(window)
            .filter(|i| self.nodes[*i].clickable && self.nodes[*i].enabled)
            .filter(|i| self.visible_rect(*i).is_some_and(|r| !r.is_empty()))
            .collect()
    }

    /// Clickable nodes with neither text nor description.
    pub fn unlabeled(&self, window: usize) -> Vec<usize> {
        self.clickables(window)
            .into_iter()
            .filter(|i| {
                self.nodes[*i].text.trim().is_empty()
                    && self.nodes[*i].description.trim().is_empty()
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
pub fn to_vp(px: i64, vpr: f64) -> f64 {
    (px as f64 / vpr * 1000.0).round() / 1000.0
}

/// A touch target, for reports.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TouchTarget {
    /// A selector naming the node.
    pub selector: String,
    /// Width in vp.
    pub width_vp: f64,
    /// Height in vp.
    pub height_vp: f64,
}

/// What `dwpipe inspect layout --json` prints; the field names are a contract.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LayoutReport {
    /// Nodes in the dump.
    pub nodes: usize,
    /// Window roots (bundle names).
    pub windows: Vec<String>,
    /// The window measured.
    pub app_window: Option<String>,
    /// The density used (px per vp).
    pub vpr: f64,
    /// Clickable, enabled, on-screen nodes in the app window.
    pub clickable: usize,
    /// Every such node with its size, smallest side first.
    pub touch_targets: Vec<TouchTarget>,
    /// Clickable nodes with neither text nor description.
    pub unlabeled_clickables: Vec<String>,
}

impl Layout {
    /// The report of `dwpipe inspect layout`.
    pub fn report(&self, bundle: Option<&str>, vpr: f64) -> LayoutReport {
        let window = self.app_window(bundle).ok();
        let clickables = window.map(|w| self.clickables(w)).unwrap_or_default();
        let mut touch_targets: Vec<TouchTarget> = clickables
            .iter()
            .filter_map(|i| {
                let rect = self.visible_rect(*i)?;
                Some(TouchTarget {
                    selector: self.selector_of(*i),
                    width_vp: to_vp(rect.width(), vpr),
                    height_vp: to_vp(rect.height(), vpr),
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
                .filter_map(|w| self.nodes[*w].bundle.clone())
                .collect(),
            app_window: window.and_then(|w| self.nodes[w].bundle.clone()),
            vpr,
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

#[cfg(test)]
mod tests;
