//! Tests of `crate::probe::hidumper::displays`.

use super::*;

/// A foldable's two screens, its fold state in each of the forms the dumper prints, and a
/// reply that holds no screen.
#[test]
fn a_foldables_displays_and_fold_state_read() {
    let dump = "---------------- Screen ID: 0 ----------------\nPhysicalFoldStatus:           FOLDED\nFoldLockStatus:               UNLOCKED\nDisplayFoldStatus:            FOLDED\nTentMode:                     false\n[SCREEN SESSION]\nName:                         FullScreen\nDisplayId:                    0\nactiveModes<id, W, H, RS>:    0, 2224, 2496, 120\n[SCREEN INFO]\nVirtualWidth:                 684\nVirtualPixelRatio:            3.25\n[SCREEN PROPERTY]\nVirtualPixelRatio:            9\n---------------- Screen ID: 5 ----------------\nDisplayFoldStatus:            FOLDED\n[SCREEN SESSION]\nDisplayId:                    5\nactiveModes<id, W, H, RS>:    0, 1080, 2504, 120\n[SCREEN INFO]\nVirtualPixelRatio:            3\n";
    let read = displays(dump).unwrap();
    assert_eq!(read.fold, Some("folded"));
    assert_eq!(
        read.displays,
        [
            Display {
                id: 0,
                size: Some([2224, 2496]),
                virtual_pixel_ratio: Some(3.25)
            },
            Display {
                id: 5,
                size: Some([1080, 2504]),
                virtual_pixel_ratio: Some(3.0)
            },
        ]
    );
    for (status, said) in [
        ("EXPAND", Some("expanded")),
        ("HALF_FOLD", Some("half-folded")),
        ("UNKNOWN", None),
        (
            "FOLD_STATE_HALF_FOLDED_WITH_SECOND_EXPAND",
            Some("half-folded"),
        ),
        ("FOLD_STATE_EXPAND_WITH_SECOND_EXPAND", Some("expanded")),
    ] {
        assert_eq!(fold(status).unwrap(), said, "{status}");
    }
    assert!(fold("SIDEWAYS").is_err());
    assert!(displays("hidumper: invalid arg\n").is_err());
}
