//! Tests of `crate::probe::hidumper::windows`.

use super::*;

const HEAD: &str = "----------------------------------WindowManagerService----------------------------------\n-------------------------------------ScreenGroup 0-------------------------------------\n";

#[test]
fn legacy_rows_foreground_and_background() {
    let wms = format!(
        "{HEAD}WindowName           DisplayId Pid     WinId Type Mode Flag ZOrd Orientation [ x    y    w    h    ]\nSystemUi_NavigationB 0         1572    2     2112 102  0    4    0           [ 0    1208 720  72   ]\nnote0                0         18299   13    1    1    0    1    0           [ 0    0    720  1280 ]\n---------------------------------------------------------------------------------------\nmms0                 0         18119   11    1    1    1    -1   0           [ 0    0    720  1208 ]\nFocus window: 13\ntotal window num: 3\n"
    );
    let table = windows(&wms).unwrap();
    assert_eq!(table.focus, Some(13));
    assert_eq!(table.windows.len(), 3);
    assert_eq!(
        (
            table.windows[1].name.as_str(),
            table.windows[1].pid,
            table.windows[1].rect
        ),
        ("note0", 18299, [0, 0, 720, 1280])
    );
    assert!(table.windows[1].foreground && !table.windows[2].foreground);
    assert_eq!(table.windows[2].z_order, -1);
    assert!(table.warnings.is_empty(), "{:?}", table.warnings);
}

/// SceneBoard rows (tests/fixtures/hidumper/wms_touching_fields.txt) with a 5-char x
/// touching y (`-13400` is −1340 and 0), a 6-digit WinId touching Type, a row that is not a
/// window, and a total that the rows do not reach.
#[test]
fn touching_fields_are_read_by_the_header() {
    let wms = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/hidumper/wms_touching_fields.txt"),
    )
    .unwrap();
    let table = windows(&wms).unwrap();
    let read: Vec<(&str, u64, [i64; 4])> = table
        .windows
        .iter()
        .map(|w| (w.name.as_str(), w.id, w.rect))
        .collect();
    assert_eq!(
        read,
        [
            ("SCBDesktop2", 4, [0, 0, 1260, 2720]),
            ("SCBNegativeScreen", 7, [-1340, 0, 1344, 2772]),
            ("com.example.notes", 123456, [0, 0, 1260, 2720]),
        ]
    );
    assert_eq!(table.windows[2].z_order, 2);
    assert_eq!(
        table.warnings,
        [
            "line 7: a row of the window table that is not a window: something odd here",
            "the table says 5 windows (`total window num`), 3 were read"
        ]
    );
}
