//! Thumbnails for the report's filmstrip: a screenshot shrunk by a whole factor, each pixel
//! the mean of its block, a PNG shrunk row by row as it is decoded. Only the HTML report uses
//! them, so they live with the figures the audit keeps for it, not with the probes.

use crate::probe::screenshot::{Image, PNG_SIGNATURE, png_reader};

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

#[cfg(test)]
mod tests;
