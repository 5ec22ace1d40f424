//! Where a readiness poll found the app's window, read back from the file the poll kept
//! (`ready.txt`'s `window:` and `windowing:` lines, which [`crate::audit`]'s readiness poll
//! writes): a visit's reading is decoded against the display its window was on.

/// Where a readiness poll found the app's window, as its file says (the `window:` and
/// `windowing:` lines the poll writes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Placement {
    /// The display the app's window is on.
    pub(crate) display: u64,
    /// Whether it was alone there, full screen.
    pub(crate) alone: bool,
    /// How it was shown, in words.
    pub(crate) windowing: String,
}

/// Reads what a poll's file says of the app's window; `None` for a file of a poll that did
/// not find it ready, or of a dwpipe that did not write it.
pub(crate) fn placement(said: &str) -> Option<Placement> {
    let window = said.lines().find_map(|l| l.strip_prefix("window: "))?;
    let display = window
        .split_once(" on display ")?
        .1
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    let windowing = said
        .lines()
        .find_map(|l| l.strip_prefix("windowing: "))?
        .to_owned();
    Some(Placement {
        display,
        alone: windowing.starts_with("the app alone on display "),
        windowing,
    })
}
