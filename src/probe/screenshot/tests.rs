//! The screenshot decoders (PNG, JPEG, their limits) and WCAG contrast, against real and
//! crafted images.

use super::contrast::contrast_ratio;
use super::*;
use crate::probe::layout::Rect;

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
