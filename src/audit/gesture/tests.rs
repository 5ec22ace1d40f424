//! Tests of `crate::audit::gesture`.

use super::*;

#[test]
fn swipes_fit_every_screen() {
    for (display, expected) in [
        ([720, 1280], [360, 960, 320]),
        ([1260, 2720], [630, 2040, 680]),
        ([1080, 1920], [540, 1440, 480]),
    ] {
        let [x, low, high] = place(display);
        assert_eq!([x, low, high], expected);
        assert!(x > 0 && x < display[0] && high > 0 && low < display[1]);
    }
    let mut values = Values::default();
    assert!(set(&mut values, None).is_none());
    let said = set(&mut values, Some([720, 1280])).unwrap();
    assert!(
        said.starts_with("swipes at x=360 between y=960 and y=320"),
        "{said}"
    );
    assert_eq!(
        values
            .command("uitest uiInput swipe {swipe_x} {swipe_low} {swipe_x} {swipe_high} 600")
            .unwrap()
            .as_str(),
        "uitest uiInput swipe 360 960 360 320 600"
    );
}
