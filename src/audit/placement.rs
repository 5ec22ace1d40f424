//! Where a visit's app window was, as its readiness poll kept it (`ready.txt`): the density its
//! lengths in vp are read at (a foldable's outer screen has its own), and the warning owed
//! where uitest could not be told that window (before OpenHarmony 5.1) and the app was not
//! alone, full screen, on display 0.

use super::capture::Capture;
use super::extract::Decoded;
use crate::diagnostic::Diagnostic;
use crate::probe::hidumper::Display;

/// The density a visit's lengths in vp are read at, when its app window was on another
/// display than the first of `displays` (whose density the device's identity holds).
pub(super) fn density(displays: &[Display], decoded: &Decoded<'_>) -> Option<f64> {
    let on = decoded.placement()?.display;
    let first = displays.first()?.id;
    (on != first)
        .then(|| displays.iter().find(|d| d.id == on))
        .flatten()
        .and_then(|d| d.virtual_pixel_ratio)
}

/// The warning a visit's screen criteria carry on a phone of `api_level` whose uitest dumps
/// display 0 with every window merged, where the app's window was elsewhere or beside another
/// app's: what they read may not be the user's screen.
pub(super) fn unnamed(api_level: Option<u32>, decoded: &Decoded<'_>) -> Option<Diagnostic> {
    if Capture::names_window(api_level) {
        return None;
    }
    let placed = decoded.placement().filter(|p| p.display != 0 || !p.alone)?;
    Some(
        Diagnostic::warning(
            "W_SCREEN_NOT_NAMED",
            format!(
                "uitest before OpenHarmony 5.1 (API 18) dumps and captures display 0 with every window merged, and the app's window was on display {} ({}): the screen read may not be the one the user sees",
                placed.display, placed.windowing
            ),
        )
        .fix("audit on a phone of API 18 or later (its captures name the app's window and display), or with the app alone, full screen, on display 0"),
    )
}
