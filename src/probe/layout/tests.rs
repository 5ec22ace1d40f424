//! Geometry on a hand-built dump of the notes app (tests/fixtures/layout/notes.json), with
//! the numbers worked out: density 3.25, list items 195 px tall and 39 px apart (12 vp), an
//! add button of 156 px (48 vp), an unlabeled icon of 117 px (36 vp).

use super::*;
use crate::pack::{Axis, Edge, Side};

fn notes() -> Layout {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/layout/notes.json");
    Layout::parse(&std::fs::read(path).unwrap()).unwrap()
}

fn select(layout: &Layout, window: NodeId, text: &str) -> Result<NodeId, LayoutError> {
    layout.select(window, &Selector::parse(text).unwrap())
}

#[test]
fn geometry_in_vp() {
    let layout = notes();
    let app = layout.app_window(Some("com.example.notes")).unwrap();
    let first = select(&layout, app, "id:note_item_0").unwrap();
    let second = select(&layout, app, "id:note_item_1").unwrap();
    assert_eq!(
        to_vp(layout.gap_px(first, second, Axis::Vertical).unwrap(), 3.25),
        12.0
    );
    assert_eq!(
        to_vp(layout.size_px(first, Side::Height).unwrap(), 3.25),
        60.0
    );
    assert_eq!(
        layout.misalignment_px(first, second, Edge::Left).unwrap(),
        0
    );
    let title = select(&layout, app, "id:note_title").unwrap();
    assert_eq!(
        layout.misalignment_px(title, first, Edge::Left).unwrap(),
        0,
        "title and items share a left edge"
    );
    assert_eq!(
        layout.gap_px(first, second, Axis::Horizontal).unwrap(),
        -1164,
        "side by side they overlap"
    );
}

#[test]
fn selectors_resolve_or_name_the_candidates() {
    let layout = notes();
    let app = layout.app_window(None).unwrap();
    assert_eq!(
        layout.node(app).bundle.as_deref(),
        Some("com.example.notes"),
        "the first app window"
    );
    assert!(select(&layout, app, "type:ListItem[1]").is_ok());
    match select(&layout, app, "type:ListItem") {
        Err(LayoutError::Ambiguous { count, .. }) => assert_eq!(count, 4),
        other => panic!("{other:?}"),
    }
    match select(&layout, app, "id:note_item_9") {
        Err(LayoutError::NotFound { candidates, .. }) => {
            assert!(candidates.contains("note_item_0"), "{candidates}");
        }
        other => panic!("{other:?}"),
    }
    assert!(
        select(&layout, app, "id:status_icon").is_err(),
        "another window's node is not the app's"
    );
    assert!(select(&layout, app, "text:Note 2").is_ok());
    assert!(matches!(
        layout.app_window(Some("com.example.other")),
        Err(LayoutError::NoWindow { .. })
    ));
}

#[test]
fn touch_targets_and_labels() {
    let report = notes().report(Some("com.example.notes"), 3.25);
    assert_eq!(report.windows, ["com.example.notes", "com.ohos.sceneboard"]);
    assert_eq!(
        report.clickable, 5,
        "3 items, add, icon; the scrolled-out item is not on screen"
    );
    assert_eq!(report.touch_targets[0].selector, "type:Image[0]");
    assert_eq!(
        (
            report.touch_targets[0].width_vp,
            report.touch_targets[0].height_vp
        ),
        (36.0, 36.0)
    );
    assert!(
        report
            .touch_targets
            .iter()
            .any(|t| t.selector == "id:add_button" && t.width_vp == 48.0)
    );
    assert_eq!(report.unlabeled_clickables, ["type:Image[0]"]);
}

#[test]
fn odd_and_broken_dumps() {
    for bad in [
        &b""[..],
        b"not json",
        b"42",
        b"{\"children\": [1]}",
        b"\xff\xfe",
    ] {
        assert!(
            matches!(Layout::parse(bad), Err(LayoutError::Invalid(_))),
            "{bad:?}"
        );
    }
    let deep = format!("{}{}", "{\"children\":[".repeat(600), "]}".repeat(600));
    assert!(matches!(
        Layout::parse(deep.as_bytes()),
        Err(LayoutError::Invalid(_))
    ));
    // Array root (-i), missing and odd attributes, inverted and negative bounds.
    let windows =
        br#"[{"attributes": {"bundleName": "com.x.y", "bounds": "[0,0][100,100]"}, "children": [
        {"attributes": {"clickable": "true", "origBounds": "[50,50][10,10]"}},
        {"attributes": {"clickable": "true", "origBounds": "[-20,-20][40,40]", "text": 7}},
        {"attributes": {"clickable": "true", "bounds": "garbage"}},
        {"children": []}
    ]}]"#;
    let layout = Layout::parse(windows).unwrap();
    assert_eq!(layout.nodes.len(), 5);
    let report = layout.report(None, 2.0);
    assert_eq!(
        report.clickable, 1,
        "the inverted rect and the one without bounds are not on screen"
    );
    assert_eq!(
        (
            report.touch_targets[0].width_vp,
            report.touch_targets[0].height_vp
        ),
        (20.0, 20.0),
        "clipped to the window"
    );
    assert_eq!(Rect::parse("[1,2][3]"), None);
}
