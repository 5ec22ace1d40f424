//! hidumper's shared shapes, table-tested against real dumps.

use super::*;

const RS: &str = "-------------------------------[ability]-------------------------------\n\n\n----------------------------------RenderService---------------------------------\n";

#[test]
fn fps_records_in_both_orders_with_empty_slots_and_flush_pairs() {
    let oldest_first = format!(
        "{RS}-- The recently fps records info of screens:\n\nThe fps of screen [Id:0] is:\n1000000000\n1016666666\n1033333333\n0\n0\n"
    );
    let newest_first = format!(
        "{RS}-- The recently fps records info of screens:\n surface [UniRender] Id[12]:\n1033333333\n1016666666\n1000000000\n0\n"
    );
    let pairs = format!(
        "{RS}-- The recently fps records info of screens:\n surface [XComponent]:\n990000000:1033333333\n980000000:1016666666\n970000000:1000000000\n0:0\n"
    );
    for (dump, title) in [
        (oldest_first, "screen [Id:0]"),
        (newest_first, "surface [UniRender]"),
        (pairs, "surface [XComponent]"),
    ] {
        let blocks = fps_blocks(&dump).unwrap();
        assert_eq!(blocks[0].title, title);
        assert_eq!(
            blocks[0].presents_ns,
            [1_000_000_000, 1_016_666_666, 1_033_333_333]
        );
        let summary = blocks[0].summary(None);
        assert_eq!(
            (summary.frames, summary.fps, summary.window_ms),
            (3, Some(60.0), 33.333)
        );
    }
    assert!(matches!(
        fps_blocks(&format!(
            "{RS}-- The recently fps records info of screens:\n"
        )),
        Err(DumpError::Empty(_))
    ));
    assert!(matches!(
        fps_blocks("garbage"),
        Err(DumpError::MissingBlock(_))
    ));
}

#[test]
fn fps_count_screen_memory_and_windows() {
    let counts = format!(
        "{RS}-- RefreshRateCounts: \nRefresh Rate:60, Count:320565;\nRefresh Rate:120, Count:6597;\n"
    );
    assert_eq!(fps_count(&counts).unwrap(), [(60, 320_565), (120, 6597)]);
    let new_screen = format!(
        "{RS}-- ScreenInfo\nscreen[0]: id=0, powerStatus=POWER_STATUS_ON, backlight=16920, screenType=EXTERNAL_TYPE, render resolution=1152x2520, physical resolution=1280x2800, isVirtual=false, skipFrameInterval=1\nsupportedMode[0]: 1280x2800, refreshRate=60\nactiveMode: 1280x2800, refreshRate=120\n"
    );
    let screen = &screens(&new_screen).unwrap()[0];
    assert_eq!(
        (screen.render, screen.physical, screen.refresh_hz),
        (Some((1152, 2520)), Some((1280, 2800)), Some(120))
    );
    assert_eq!(screen.power.as_deref(), Some("POWER_STATUS_ON"));
}
