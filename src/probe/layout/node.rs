//! A node of a layout dump: its id, rect, names and attributes.

use crate::pack::SelectorKind;
use crate::probe::layout::Rect;
use std::collections::HashMap;
use std::sync::OnceLock;

/// A node of one dump: its position in the flattened tree (parents before children).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct NodeId(pub(super) usize);

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
    /// `hint` (a text input's placeholder).
    pub(crate) hint: String,
    /// `type`.
    pub(crate) kind: String,
    /// The geometry rect: `origBounds`, else `bounds`.
    pub(crate) rect: Option<Rect>,
    /// `bounds`: what uitest computed to be on screen of it (clipped, and below higher
    /// windows), when the dump has it.
    pub(crate) shown: Option<Rect>,
    /// `clickable == "true"`.
    pub(crate) clickable: bool,
    /// A finger can hit it: enabled, and where the dump says so, not fully transparent, hit
    /// testing on and touchable.
    pub(crate) hittable: bool,
    /// Scrolls or clips its children.
    pub(crate) clips: bool,
    /// `visible == "false"`: uitest marks a node it keeps only for a visible descendant (and
    /// the accessibility layer's invisible ones, which a screen reader does not read either).
    pub(crate) hidden: bool,
    /// `bundleName` on a window root.
    pub(crate) bundle: Option<String>,
    /// Its parent.
    pub(crate) parent: Option<NodeId>,
    /// The window root it is under.
    pub(crate) window: Option<NodeId>,
}

/// What names a node: its window, and one attribute's value.
pub(super) type Name = (Option<NodeId>, SelectorKind, String);

/// Every node of a window by the value of each naming attribute, in tree order.
#[derive(Clone, Debug, Default)]
pub(super) struct Names(pub(super) OnceLock<HashMap<Name, Vec<NodeId>>>);

impl PartialEq for Names {
    fn eq(&self, _: &Names) -> bool {
        // A cache of the nodes: equal dumps have equal caches.
        true
    }
}

impl Eq for Names {}
impl Node {
    /// The value of a naming attribute.
    pub(crate) fn value(&self, kind: SelectorKind) -> &str {
        match kind {
            SelectorKind::Id => &self.id,
            SelectorKind::Key => &self.key,
            SelectorKind::Text => &self.text,
            SelectorKind::Type => &self.kind,
        }
    }

    /// Whether a screen reader reads a name from this node itself.
    pub(crate) fn has_name(&self) -> bool {
        let text_input = matches!(
            self.kind.as_str(),
            "TextInput" | "TextArea" | "Search" | "RichEditor"
        );
        !self.text.trim().is_empty()
            || !self.description.trim().is_empty()
            || (text_input && !self.hint.trim().is_empty())
    }
}
