//! Screenshot contrast: decode a PNG (or a JPEG, with a warning), take the pixels inside a
//! node's bounds, separate foreground from background the way Android's Accessibility Test
//! Framework does (research/layout-a11y.md §5.3), and compute the WCAG 2 contrast ratio with
//! the exact sRGB constants (§6).

use std::collections::HashMap;
use std::io::Cursor;

use serde::Serialize;

use super::layout::Rect;

/// The most pixels a screenshot may declare: a phone screen is a few megapixels (1260×2720 is
/// 3.4 MP; a large foldable or tablet stays under 10 MP), so 40 MP is generous. An image is held
/// to it by its header, before anything is allocated or decoded.
pub const MAX_PIXELS: u64 = 40_000_000;

/// What decoding may allocate at most: the limit in 4-byte pixels.
const MAX_DECODED_BYTES: usize = (MAX_PIXELS * 4) as usize;

/// A decoded image, 8-bit RGB.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    /// Width in px.
    pub width: usize,
    /// Height in px.
    pub height: usize,
    /// `width × height` pixels, RGB.
    pub rgb: Vec<[u8; 3]>,
    /// Decoded from a JPEG (lossy: colours near edges are smeared).
    pub(crate) lossy: bool,
}

/// Why a screenshot could not be measured.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ScreenshotError {
    /// Not PNG or JPEG, or corrupt.
    #[error("cannot decode the screenshot: {0}")]
    Decode(String),
    /// The header declares more pixels than a screenshot has ([`MAX_PIXELS`]).
    #[error(
        "the screenshot declares {width}×{height} px ({} MP), more than the {} MP a screenshot may have",
        width * height / 1_000_000,
        MAX_PIXELS / 1_000_000
    )]
    TooLarge {
        /// Declared width.
        width: u64,
        /// Declared height.
        height: u64,
    },
    /// The box is empty or outside the image.
    #[error("{0}")]
    Box(String),
    /// The box holds a single colour: there is no foreground to measure.
    #[error("the box holds a single colour ({0}); no text to measure against it")]
    Uniform(String),
}

impl Image {
    /// Decodes PNG or JPEG bytes (recognized by their signature).
    pub fn decode(bytes: &[u8]) -> Result<Image, ScreenshotError> {
        let error = |e: &dyn std::fmt::Display| ScreenshotError::Decode(e.to_string());
        if bytes.starts_with(PNG_SIGNATURE) {
            let mut reader = png_reader(bytes)?;
            let size = reader
                .output_buffer_size()
                .ok_or_else(|| ScreenshotError::Decode("image too large".to_owned()))?;
            let mut buffer = vec![0; size];
            let frame = reader.next_frame(&mut buffer).map_err(|e| error(&e))?;
            let channels = frame.color_type.samples();
            let rgb = buffer[..frame.buffer_size()]
                .chunks_exact(channels)
                .map(|px| match channels {
                    1 | 2 => [px[0]; 3],
                    _ => [px[0], px[1], px[2]],
                })
                .collect();
            return Image::sized(frame.width as usize, frame.height as usize, rgb, false);
        }
        if bytes.starts_with(b"\xff\xd8") {
            let mut decoder = jpeg_decoder::Decoder::new(Cursor::new(bytes));
            decoder.set_max_decoding_buffer_size(MAX_DECODED_BYTES);
            decoder.read_info().map_err(|e| error(&e))?;
            if let Some(header) = decoder.info() {
                within_limit(u64::from(header.width), u64::from(header.height))?;
            }
            let pixels = decoder.decode().map_err(|e| error(&e))?;
            let info = decoder
                .info()
                .ok_or_else(|| ScreenshotError::Decode("no image header".to_owned()))?;
            let rgb = match info.pixel_format {
                jpeg_decoder::PixelFormat::RGB24 => {
                    pixels.chunks_exact(3).map(|p| [p[0], p[1], p[2]]).collect()
                }
                jpeg_decoder::PixelFormat::L8 => pixels.iter().map(|g| [*g; 3]).collect(),
                other => {
                    return Err(ScreenshotError::Decode(format!(
                        "unsupported JPEG pixel format {other:?}"
                    )));
                }
            };
            return Image::sized(usize::from(info.width), usize::from(info.height), rgb, true);
        }
        Err(ScreenshotError::Decode("not a PNG or JPEG file".to_owned()))
    }

    fn sized(
        width: usize,
        height: usize,
        rgb: Vec<[u8; 3]>,
        lossy: bool,
    ) -> Result<Image, ScreenshotError> {
        if width == 0 || height == 0 || rgb.len() != width * height {
            return Err(ScreenshotError::Decode(format!(
                "a {width}×{height} image with {} pixels",
                rgb.len()
            )));
        }
        Ok(Image {
            width,
            height,
            rgb,
            lossy,
        })
    }
}

impl Image {
    /// The image shrunk by a whole factor to at most `max_width` px wide (each output pixel the
    /// mean of its block), as PNG bytes: a report shows a flow's screens without embedding
    /// every full-size screenshot.
    pub fn thumbnail(&self, max_width: usize) -> Option<Shrunk> {
        let mut shrinker = Shrinker::new(self.width, self.height, max_width)?;
        for row in self.rgb.chunks_exact(self.width).take(shrinker.rows()) {
            shrinker.row(row.iter().copied());
        }
        shrinker.finish()
    }
}

/// Box-averages an image into a thumbnail shrunk by a whole factor, a row at a time, so a
/// decoder can hand its rows over as it reads them.
struct Shrinker {
    factor: usize,
    /// The thumbnail's size.
    width: usize,
    height: usize,
    /// The sums of the thumbnail row being filled.
    sums: Vec<[u32; 3]>,
    /// Image rows taken so far.
    taken: usize,
    /// The thumbnail's pixels, RGB.
    data: Vec<u8>,
}

impl Shrinker {
    /// For a `width × height` image shrunk to at most `max_width` px wide; `None` when that
    /// leaves no pixel.
    fn new(width: usize, height: usize, max_width: usize) -> Option<Shrinker> {
        let factor = width.div_ceil(max_width.max(1)).max(1);
        let (w, h) = (width / factor, height / factor);
        (w > 0 && h > 0).then(|| Shrinker {
            factor,
            width: w,
            height: h,
            sums: vec![[0; 3]; w],
            taken: 0,
            data: Vec::with_capacity(w * h * 3),
        })
    }

    /// The image rows it reads (those past the last whole block are left out).
    fn rows(&self) -> usize {
        self.height * self.factor
    }

    /// Takes the next image row, left to right.
    fn row(&mut self, mut pixels: impl Iterator<Item = [u8; 3]>) {
        // Block by block: a division per pixel (its block's index) was most of the cost.
        for sum in &mut self.sums {
            for px in pixels.by_ref().take(self.factor) {
                for c in 0..3 {
                    sum[c] += u32::from(px[c]);
                }
            }
        }
        self.taken += 1;
        if self.taken.is_multiple_of(self.factor) {
            let n = (self.factor * self.factor) as u32;
            for sum in &mut self.sums {
                self.data.extend(sum.iter().map(|s| (s / n) as u8));
                *sum = [0; 3];
            }
        }
    }

    /// The thumbnail, once every row it reads was taken.
    fn finish(self) -> Option<Shrunk> {
        if self.taken != self.rows() {
            return None;
        }
        Some(Shrunk {
            png: encode_rgb(self.width, self.height, &self.data)?,
            width: self.width,
            height: self.height,
            factor: self.factor,
        })
    }
}

const PNG_SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";

/// A PNG reader within the decoding limits, its header read and its size checked, that
/// hands out 8-bit rows.
fn png_reader(bytes: &[u8]) -> Result<png::Reader<Cursor<&[u8]>>, ScreenshotError> {
    let error = |e: &dyn std::fmt::Display| ScreenshotError::Decode(e.to_string());
    let mut decoder = png::Decoder::new_with_limits(
        Cursor::new(bytes),
        png::Limits {
            bytes: MAX_DECODED_BYTES,
        },
    );
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let reader = decoder.read_info().map_err(|e| error(&e))?;
    let info = reader.info();
    within_limit(u64::from(info.width), u64::from(info.height))?;
    Ok(reader)
}

/// A screenshot shrunk for a report: PNG bytes, its size and the whole factor it was shrunk by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shrunk {
    /// The shrunk image, PNG.
    pub png: Vec<u8>,
    /// Its width in px.
    pub width: usize,
    /// Its height in px.
    pub height: usize,
    /// The factor.
    pub factor: usize,
}

/// `bytes` (PNG or JPEG) shrunk as [`Image::thumbnail`] shrinks it. A PNG (not interlaced)
/// is shrunk row by row as it is decoded, never held whole: a filmstrip of full-size screens
/// is most of what an audit's report costs.
pub fn thumbnail_of(bytes: &[u8], max_width: usize) -> Option<Shrunk> {
    let whole = || Image::decode(bytes).ok()?.thumbnail(max_width);
    if !bytes.starts_with(PNG_SIGNATURE) {
        return whole();
    }
    let mut reader = png_reader(bytes).ok()?;
    if reader.info().interlaced {
        return whole();
    }
    let (width, height) = (reader.info().width as usize, reader.info().height as usize);
    let channels = reader.output_color_type().0.samples();
    let mut shrinker = Shrinker::new(width, height, max_width)?;
    for _ in 0..shrinker.rows() {
        let row = reader.next_row().ok()??;
        shrinker.row(row.data().chunks_exact(channels).map(|px| {
            if channels < 3 {
                [px[0]; 3]
            } else {
                [px[0], px[1], px[2]]
            }
        }));
    }
    shrinker.finish()
}

/// 8-bit RGB pixels as PNG bytes.
fn encode_rgb(width: usize, height: usize, data: &[u8]) -> Option<Vec<u8>> {
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, width as u32, height as u32);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().ok()?;
    writer.write_image_data(data).ok()?;
    writer.finish().ok()?;
    Some(bytes)
}

/// Refuses a declared size above [`MAX_PIXELS`].
fn within_limit(width: u64, height: u64) -> Result<(), ScreenshotError> {
    if width.saturating_mul(height) > MAX_PIXELS {
        return Err(ScreenshotError::TooLarge { width, height });
    }
    Ok(())
}

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
pub(crate) fn luminance([r, g, b]: [u8; 3]) -> f64 {
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
pub(crate) fn contrast_ratio(a: [u8; 3], b: [u8; 3]) -> f64 {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_png_shrunk_row_by_row_is_the_whole_image_shrunk() {
        let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        // The fixtures' screens (full size: slow unoptimized, so at one width only).
        let mut screens: Vec<(Vec<u8>, &[usize])> =
            std::fs::read_dir(repo.join("device-fixtures/notes-pass/files"))
                .unwrap()
                .map(|entry| entry.unwrap().path())
                .filter(|path| path.extension().is_some_and(|e| e == "png"))
                .map(|path| (std::fs::read(path).unwrap(), &[180][..]))
                .collect();
        // Sizes that are not a multiple of the factor, a grey image, one narrower than asked.
        let block = Rect {
            l: 3,
            t: 5,
            r: 40,
            b: 30,
        };
        screens.push((
            png(261, 723, [250, 250, 250], [10, 20, 30], block),
            &[180, 97, 50],
        ));
        screens.push((png(97, 61, [0, 0, 0], [255, 255, 255], block), &[180, 10]));
        assert!(screens.len() > 4);
        for (i, (bytes, widths)) in screens.iter().enumerate() {
            for &max_width in *widths {
                let image = Image::decode(bytes).unwrap();
                let whole = image.thumbnail(max_width).unwrap();
                let streamed = thumbnail_of(bytes, max_width).unwrap();
                assert_eq!(
                    (whole.width, whole.height),
                    (image.width / whole.factor, image.height / whole.factor)
                );
                assert_eq!(streamed, whole, "screen {i} at {max_width} px");
            }
        }
        // Each thumbnail pixel is the mean of its block, by hand: a 5×3 image at 2 px wide is
        // shrunk by 3 into 1×1, its last two columns left out.
        let tiny = Image {
            width: 5,
            height: 3,
            rgb: (0..15u8)
                .map(|i| [i * 10, 255 - i, if i % 5 < 3 { 90 } else { 0 }])
                .collect(),
            lossy: false,
        };
        let shrunk = tiny.thumbnail(2).unwrap();
        assert_eq!((shrunk.width, shrunk.height, shrunk.factor), (1, 1, 3));
        // Columns 0–2 of rows 0–2: indices 0,1,2,5,6,7,10,11,12 (mean 6).
        assert_eq!(Image::decode(&shrunk.png).unwrap().rgb, [[60, 249, 90]]);
        assert_eq!(thumbnail_of(b"not an image", 180), None);
        assert_eq!(thumbnail_of(&screens[0].0[..200], 180), None, "a cut PNG");
    }

    /// A PNG of `width × height` filled with `background`, with a `foreground` block inside
    /// `[l,t][r,b]`.
    pub(crate) fn png(
        width: u32,
        height: u32,
        background: [u8; 3],
        foreground: [u8; 3],
        block: Rect,
    ) -> Vec<u8> {
        let mut bytes = Vec::new();
        let mut encoder = png::Encoder::new(&mut bytes, width, height);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().unwrap();
        let mut data = Vec::new();
        for y in 0..height as i64 {
            for x in 0..width as i64 {
                let inside = x >= block.l && x < block.r && y >= block.t && y < block.b;
                data.extend_from_slice(if inside { &foreground } else { &background });
            }
        }
        writer.write_image_data(&data).unwrap();
        writer.finish().unwrap();
        bytes
    }

    /// A PNG whose header says 0×0 (with valid CRCs, so only the size is wrong).
    fn zero_by_zero_png() -> Vec<u8> {
        fn crc32(bytes: &[u8]) -> u32 {
            let mut crc = 0xFFFF_FFFFu32;
            for byte in bytes {
                crc ^= u32::from(*byte);
                for _ in 0..8 {
                    crc = if crc & 1 == 1 {
                        (crc >> 1) ^ 0xEDB8_8320
                    } else {
                        crc >> 1
                    };
                }
            }
            !crc
        }
        let mut chunk = b"IHDR".to_vec();
        chunk.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0, 8, 2, 0, 0, 0]);
        let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
        bytes.extend_from_slice(&13u32.to_be_bytes());
        bytes.extend_from_slice(&chunk);
        bytes.extend_from_slice(&crc32(&chunk).to_be_bytes());
        bytes
    }

    fn fixture(name: &str) -> Vec<u8> {
        std::fs::read(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/screenshot")
                .join(name),
        )
        .unwrap()
    }

    #[test]
    fn jpegs_decode_with_a_warning() {
        // 40×30 white with a black 20×10 block at [10,10][30,20], saved at quality 90.
        let image = Image::decode(&fixture("screenshot_black_on_white.jpg")).unwrap();
        assert!(image.lossy);
        assert_eq!((image.width, image.height), (40, 30));
        let measured = contrast(&image, BOX).unwrap();
        assert!(measured.ratio > 15.0, "{measured:?}");
        assert!(measured.warnings.iter().any(|w| w.contains("JPEG")));
        let gray = Image::decode(&fixture("gray.jpg")).unwrap();
        assert_eq!(
            gray.rgb[0][0], gray.rgb[0][2],
            "grayscale expands to equal channels"
        );
    }

    const TEXT: Rect = Rect {
        l: 10,
        t: 10,
        r: 30,
        b: 20,
    };
    const BOX: Rect = Rect {
        l: 0,
        t: 0,
        r: 40,
        b: 30,
    };

    /// The same known boxes (tests/fixtures/screenshot/boxes.py) as PNG and as a phone's
    /// JPEG: each measured within 1 % of its exact ratio, the JPEG's colours from its pixels.
    #[test]
    fn contrast_is_exact_on_flat_colours_whatever_the_format() {
        let boxes: [([u8; 3], [u8; 3]); 5] = [
            ([0, 0, 0], [255, 255, 255]),
            ([0x76; 3], [255, 255, 255]),
            ([0xFA; 3], [0x10, 0x20, 0x30]),
            ([0x2F, 0x6F, 0xDF], [255, 255, 255]),
            ([0x80; 3], [255, 255, 255]),
        ];
        for file in ["boxes.png", "boxes.jpg"] {
            let image = Image::decode(&fixture(file)).unwrap();
            for (i, (text, background)) in boxes.iter().enumerate() {
                let l = 240 * i as i64;
                let exact = contrast_ratio(*text, *background);
                let measured = contrast(
                    &image,
                    Rect {
                        l,
                        t: 0,
                        r: l + 240,
                        b: 120,
                    },
                )
                .unwrap();
                let error = (measured.ratio - exact).abs() / exact;
                assert!(
                    error <= 0.01,
                    "{file} box {i}: {} against {exact:.2} ({:.1} %): {measured:?}",
                    measured.ratio,
                    error * 100.0
                );
            }
        }
    }

    #[test]
    fn wcag_ratios_with_exact_constants() {
        assert_eq!(
            (contrast_ratio([0, 0, 0], [255, 255, 255]) * 100.0).round() / 100.0,
            21.0
        );
        assert_eq!(
            (contrast_ratio([0x77; 3], [255; 3]) * 100.0).round() / 100.0,
            4.48
        );
        assert_eq!(
            (contrast_ratio([0x76; 3], [255; 3]) * 100.0).round() / 100.0,
            4.54
        );
        assert_eq!(contrast_ratio([10; 3], [10; 3]), 1.0);
    }

    #[test]
    fn text_on_a_background_in_a_png() {
        let image = Image::decode(&png(40, 30, [255; 3], [0x77; 3], TEXT)).unwrap();
        let measured = contrast(&image, BOX).unwrap();
        assert_eq!(measured.ratio, 4.48);
        assert_eq!(
            (measured.foreground.as_str(), measured.background.as_str()),
            ("#777777", "#FFFFFF")
        );
        assert_eq!(measured.pixels, 1200);
        assert!(measured.warnings.is_empty());
        // Light text on a dark background: the more frequent colour is still the background.
        let image = Image::decode(&png(40, 30, [0x10, 0x20, 0x30], [250, 250, 250], TEXT)).unwrap();
        let measured = contrast(&image, BOX).unwrap();
        assert_eq!(
            (measured.foreground.as_str(), measured.background.as_str()),
            ("#FAFAFA", "#102030")
        );
    }

    #[test]
    fn boxes_and_files_that_cannot_be_measured() {
        let image = Image::decode(&png(40, 30, [255; 3], [0; 3], TEXT)).unwrap();
        assert!(matches!(
            contrast(
                &image,
                Rect {
                    l: 50,
                    t: 50,
                    r: 60,
                    b: 60
                }
            ),
            Err(ScreenshotError::Box(_))
        ));
        assert!(matches!(
            contrast(
                &image,
                Rect {
                    l: 5,
                    t: 5,
                    r: 5,
                    b: 9
                }
            ),
            Err(ScreenshotError::Box(_))
        ));
        assert!(matches!(
            contrast(
                &image,
                Rect {
                    l: 0,
                    t: 0,
                    r: 5,
                    b: 5
                }
            ),
            Err(ScreenshotError::Uniform(_))
        ));
        let partly = contrast(
            &image,
            Rect {
                l: -10,
                t: -10,
                r: 35,
                b: 25,
            },
        )
        .unwrap();
        assert_eq!(partly.warnings.len(), 1);
        assert_eq!(
            partly.bounds,
            Rect {
                l: 0,
                t: 0,
                r: 35,
                b: 25
            }
        );
        for bad in [
            &b""[..],
            b"\x89PNG\r\n\x1a\ncorrupt",
            b"\xff\xd8\xff\xe0broken",
            b"GIF89a",
        ] {
            assert!(
                matches!(Image::decode(bad), Err(ScreenshotError::Decode(_))),
                "{bad:?}"
            );
        }
        assert!(matches!(
            Image::decode(&zero_by_zero_png()),
            Err(ScreenshotError::Decode(_))
        ));
        let mut truncated = png(40, 30, [255; 3], [0; 3], TEXT);
        truncated.truncate(truncated.len() / 2);
        assert!(Image::decode(&truncated).is_err());
    }
}
