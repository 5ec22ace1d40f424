//! Why a layout dump cannot be read.

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
    /// A matched node is wholly hidden (scrolled away, clipped, under another window).
    #[error("`{0}` is not visible: nothing of it is on screen")]
    NotVisible(String),
}
