//! Tests of `crate::audit::thumbnail`.

use super::*;
use crate::probe::layout::Rect;
use crate::probe::screenshot::tests::png;

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
