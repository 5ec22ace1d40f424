//! `uitest dumpLayout` JSON (research/layout-a11y.md §1): the node tree flattened, the app's
//! window found by `bundleName`, selectors, geometry in vp, touch targets and unlabeled
//! clickables.
//!
//! Geometry uses a node's own rect, `origBounds` (`bounds` as a fallback). What the user can
//! see of it is the visibility rule of `visibility`; what a screen reader reads is the label
//! rule of `Layout::unlabeled`. Every query is linear in the nodes: a 200,000-node dump is a
//! fraction of a second.

mod parse;
mod rect;
mod report;
mod visibility;

pub use rect::Rect;
pub use report::{LayoutReport, TouchTarget};

mod error;
mod node;
#[cfg(test)]
mod tests;
mod tree;
pub use error::LayoutError;
use node::Names;
pub(crate) use node::{Node, NodeId};
pub use tree::Layout;
pub(crate) use tree::to_vp;
