//! Where a session's scripted swipes go: placed in the display the identity read (its render
//! size, the space uitest's coordinates are in), never at fixed pixels, which lie off a
//! smaller screen (uitest refuses only coordinates ≤ 0). A vertical swipe runs down the
//! middle, a quarter of the height from each edge.

use crate::playbook::Values;
use crate::shell::ShellValue;

/// The evidence file that says where the swipes went, and why there.
pub(super) const FILE: &str = "gesture.txt";

/// Whether a step template places a swipe.
pub(super) fn uses(template: &str) -> bool {
    template.contains("{swipe_")
}

/// The swipe coordinates for a `width`×`height` display: x, the low y and the high y.
fn place([width, height]: [u32; 2]) -> [u32; 3] {
    [width / 2, height - height / 4, height / 4]
}

/// Sets `swipe_x`, `swipe_low` and `swipe_high` for `display`, and says where they lie;
/// `None` sets nothing (a template that uses them then fails, saying why).
pub(super) fn set(values: &mut Values, display: Option<[u32; 2]>) -> Option<String> {
    let [width, height] = display?;
    let [x, low, high] = place([width, height]);
    for (name, value) in [("swipe_x", x), ("swipe_low", low), ("swipe_high", high)] {
        values.set(name, ShellValue::number(name, &value.to_string()).ok()?);
    }
    Some(format!(
        "swipes at x={x} between y={low} and y={high}: the middle of the {width}x{height} px display (its render size, from the device's identity), a quarter of its height from each edge\n"
    ))
}

/// Why a swipe could not be placed.
pub(super) const UNKNOWN: &str = "the display size is unknown (the device's identity holds no render size from `hidumper -s RenderService -a screen`), so the swipe cannot be placed on the screen";

#[cfg(test)]
mod tests;
