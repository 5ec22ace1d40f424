//! Contrast inside a node's bounds: foreground told from background the way Android's
//! Accessibility Test Framework does (research/layout-a11y.md §5.3), the WCAG 2 ratio with the
//! exact sRGB constants (§6).

use std::collections::HashMap;

use serde::Serialize;

use super::super::layout::Rect;
use super::{Image, ScreenshotError};

/// A measured contrast, with what it was measured from.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Contrast {
    /// WCAG 2 contrast ratio, rounded to 2 decimals (`4.9` means 4.9:1).
    pub(crate) ratio: f64,
    /// The foreground colour, `#RRGGBB`.
    pub(crate) foreground: String,
    /// The background colour, `#RRGGBB`.
    pub(crate) background: String,
    /// The box measured, px, after clipping to the image.
    pub(crate) bounds: Rect,
    /// Pixels in the box.
    pub(crate) pixels: usize,
    /// How foreground and background were told apart.
    pub(crate) method: &'static str,
    /// What makes the number less certain.
    pub(crate) warnings: Vec<String>,
}

/// WCAG 2 relative luminance of an 8-bit sRGB colour.
fn luminance([r, g, b]: [u8; 3]) -> f64 {
    let linear = |c: u8| {
        let c = f64::from(c) / 255.0;
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b)
}

/// `(L1 + 0.05) / (L2 + 0.05)` with L1 the lighter.
pub(super) fn contrast_ratio(a: [u8; 3], b: [u8; 3]) -> f64 {
    let (la, lb) = (luminance(a), luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

fn hex([r, g, b]: [u8; 3]) -> String {
    format!("#{r:02X}{g:02X}{b:02X}")
}

/// The mean colour of the pixels in `bounds` within JPEG noise (12 levels a channel) of
/// `colour`.
fn cluster_mean(image: &Image, bounds: Rect, colour: [u8; 3]) -> [u8; 3] {
    const NOISE: u8 = 12;
    let (mut count, mut sum) = (0u64, [0u64; 3]);
    for y in bounds.t..bounds.b {
        let row = y as usize * image.width;
        for x in bounds.l..bounds.r {
            let pixel = image.rgb[row + x as usize];
            if pixel
                .iter()
                .zip(colour)
                .all(|(p, c)| p.abs_diff(c) <= NOISE)
            {
                count += 1;
                for (total, channel) in sum.iter_mut().zip(pixel) {
                    *total += u64::from(channel);
                }
            }
        }
    }
    if count == 0 {
        return colour;
    }
    sum.map(|total| u8::try_from((total + count / 2) / count).unwrap_or(u8::MAX))
}

/// Measures the contrast inside `bounds` (px).
pub fn contrast(image: &Image, bounds: Rect) -> Result<Contrast, ScreenshotError> {
    if bounds.is_empty() {
        return Err(ScreenshotError::Box(format!(
            "the box [{},{}][{},{}] is empty",
            bounds.l, bounds.t, bounds.r, bounds.b
        )));
    }
    let whole = Rect {
        l: 0,
        t: 0,
        r: image.width as i64,
        b: image.height as i64,
    };
    let clipped = bounds.intersect(&whole);
    if clipped.is_empty() {
        return Err(ScreenshotError::Box(format!(
            "the box [{},{}][{},{}] is outside the {}×{} image",
            bounds.l, bounds.t, bounds.r, bounds.b, image.width, image.height
        )));
    }
    let mut warnings = Vec::new();
    if clipped != bounds {
        warnings.push("the box extends past the image; measured the part inside".to_owned());
    }
    if image.lossy {
        warnings.push("JPEG: compression noise blurs edges; colours were grouped in bins of 16 levels and each bin measured by its pixels' mean colour; prefer PNG".to_owned());
    }
    // Each colour (a JPEG's: each bin of 16 levels a channel, where noise scatters one flat
    // colour) with its pixel count and the sum of its pixels' own colours: a bin is measured
    // by its pixels' mean, never by its centre, so flat colours come out exact.
    let mut histogram: HashMap<[u8; 3], (usize, [u64; 3])> = HashMap::new();
    for y in clipped.t..clipped.b {
        let row = y as usize * image.width;
        for x in clipped.l..clipped.r {
            let colour = image.rgb[row + x as usize];
            let key = if image.lossy {
                colour.map(|c| c & 0xF0)
            } else {
                colour
            };
            let (count, sum) = histogram.entry(key).or_default();
            *count += 1;
            for (total, channel) in sum.iter_mut().zip(colour) {
                *total += u64::from(channel);
            }
        }
    }
    let colours: Vec<([u8; 3], usize)> = histogram
        .into_values()
        .map(|(count, sum)| {
            let mean = sum.map(|total| {
                u8::try_from((total + count as u64 / 2) / count as u64).unwrap_or(u8::MAX)
            });
            (mean, count)
        })
        .collect();
    let pixels = (clipped.width() * clipped.height()) as usize;
    // ATF's single-foreground method: split the distinct colours at their mean luminance,
    // take the most frequent on each side; the more frequent of the two is the background.
    let mean = colours.iter().map(|(c, _)| luminance(*c)).sum::<f64>() / colours.len() as f64;
    let most_frequent = |darker: bool| {
        colours
            .iter()
            .filter(|(c, _)| (luminance(*c) < mean) == darker)
            .max_by_key(|(c, n)| (*n, *c))
            .copied()
    };
    let (Some(dark), Some(light)) = (most_frequent(true), most_frequent(false)) else {
        let only = colours.first().map(|(c, _)| *c).unwrap_or_default();
        return Err(ScreenshotError::Uniform(hex(only)));
    };
    let (mut background, mut foreground) = if dark.1 > light.1 {
        (dark.0, light.0)
    } else {
        (light.0, dark.0)
    };
    if image.lossy {
        // A flat colour on a bin's edge is split between two bins: each colour becomes the
        // mean of every pixel near it, whichever bin its noise put it in.
        background = cluster_mean(image, clipped, background);
        foreground = cluster_mean(image, clipped, foreground);
    }
    Ok(Contrast {
        ratio: (contrast_ratio(foreground, background) * 100.0).round() / 100.0,
        foreground: hex(foreground),
        background: hex(background),
        bounds: clipped,
        pixels,
        method: "single foreground (ATF): most frequent colours either side of the mean luminance, each the mean of its pixels",
        warnings,
    })
}
