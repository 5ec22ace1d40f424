//! Decoding a screenshot: PNG or JPEG (with a warning: lossy) into 8-bit RGB, held to a size
//! a phone's screen can have by its header before anything is allocated.

use std::io::Cursor;

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

pub(crate) const PNG_SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";

/// A PNG reader within the decoding limits, its header read and its size checked, that
/// hands out 8-bit rows.
pub(crate) fn png_reader(bytes: &[u8]) -> Result<png::Reader<Cursor<&[u8]>>, ScreenshotError> {
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

/// Refuses a declared size above [`MAX_PIXELS`].
fn within_limit(width: u64, height: u64) -> Result<(), ScreenshotError> {
    if width.saturating_mul(height) > MAX_PIXELS {
        return Err(ScreenshotError::TooLarge { width, height });
    }
    Ok(())
}
