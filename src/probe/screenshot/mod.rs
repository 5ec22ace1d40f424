//! Screenshot contrast: decode a PNG (or a JPEG, with a warning), take the pixels inside a
//! node's bounds, separate foreground from background the way Android's Accessibility Test
//! Framework does (research/layout-a11y.md §5.3), and compute the WCAG 2 contrast ratio with
//! the exact sRGB constants (§6).

mod contrast;
mod decode;
#[cfg(test)]
pub(crate) mod tests;

pub use contrast::{Contrast, contrast};
pub use decode::{Image, MAX_PIXELS, ScreenshotError};
pub(crate) use decode::{PNG_SIGNATURE, png_reader};
