//! Geometry on a hand-built dump of the notes app (tests/fixtures/layout/notes.json), with
//! the numbers worked out: density 3.25, list items 195 px tall and 39 px apart (12 vp), an
//! add button of 156 px (48 vp), an unlabeled icon of 117 px (36 vp).

use super::*;
use crate::pack::Selector;
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
        (30.0, 30.0),
        "a target is measured by its own size"
    );
    assert!(report.touch_targets[0].partly_hidden);
    assert_eq!(
        report.touch_targets[0].visible_vp,
        Some((20.0, 20.0)),
        "what the window leaves visible of it"
    );
    assert_eq!(Rect::parse("[1,2][3]"), None);
}

fn fixture(name: &str) -> Layout {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/layout")
        .join(name);
    Layout::parse(&std::fs::read(path).unwrap()).unwrap()
}

/// The soft keyboard is up (tests/fixtures/layout/keyboard-form.json): the app window's
/// `bounds` end at y = 1700 while its `origBounds` stay full-screen; the login button below
/// kept unclipped `bounds`. Density 3.25.
#[test]
fn the_keyboard_hides_what_is_under_it() {
    let layout = fixture("keyboard-form.json");
    let report = layout.report(Some("com.example.shop"), 3.25);
    assert_eq!(
        report.clickable, 3,
        "account, password, forgot; the login button is under the keyboard"
    );
    let forgot = &report.touch_targets[0];
    assert_eq!(forgot.selector, "id:forgot");
    // Own size 540 × 100 px; the keyboard leaves 1700 − 1650 = 50 px of it.
    assert_eq!((forgot.width_vp, forgot.height_vp), (166.154, 30.769));
    assert!(forgot.partly_hidden);
    assert_eq!(forgot.visible_vp, Some((166.154, 15.385)));
    let account = report
        .touch_targets
        .iter()
        .find(|t| t.selector == "id:account")
        .unwrap();
    assert_eq!((account.height_vp, account.partly_hidden), (48.0, false));
    assert!(
        report.unlabeled_clickables.is_empty(),
        "text inputs are labelled by their hints (账号, 密码): {:?}",
        report.unlabeled_clickables
    );
    let app = layout.app_window(Some("com.example.shop")).unwrap();
    assert_eq!(
        select(&layout, app, "id:login"),
        Err(LayoutError::NotVisible("id:login".to_owned()))
    );
}

/// A list scrolled half an item (tests/fixtures/layout/scrolled-list.json): the List shows
/// y 300..2300, items are 390 px (120 vp) from y = 200, so item 0 shows 290 px, item 5 shows
/// 150 px and item 6 none, though the dump left every item's `bounds` unclipped.
#[test]
fn a_scrolled_list_clips_its_items() {
    let layout = fixture("scrolled-list.json");
    let report = layout.report(Some("com.example.shop"), 3.25);
    assert_eq!(report.clickable, 8, "cart, menu, items 0 to 5");
    let small: Vec<&str> = report
        .touch_targets
        .iter()
        .filter(|t| t.width_vp.min(t.height_vp) < 48.0)
        .map(|t| t.selector.as_str())
        .collect();
    assert_eq!(
        small,
        ["id:cart", "id:menu"],
        "130 px = 40 vp; item 5 is 120 vp tall, only 46.154 vp of it is showing"
    );
    let partly: Vec<(&str, Option<(f64, f64)>)> = report
        .touch_targets
        .iter()
        .filter(|t| t.partly_hidden)
        .map(|t| (t.selector.as_str(), t.visible_vp))
        .collect();
    assert_eq!(
        partly,
        [
            ("id:item_0", Some((387.692, 89.231))),
            ("id:item_5", Some((387.692, 46.154)))
        ]
    );
    let app = layout.app_window(None).unwrap();
    assert!(matches!(
        select(&layout, app, "id:item_6"),
        Err(LayoutError::NotVisible(_))
    ));
}

/// A clickable is labelled by itself or a readable descendant; a hint labels only a text
/// input; a descendant marked `visible: "false"` is not read.
#[test]
fn labels_as_a_screen_reader_reads_them() {
    let layout = fixture("scrolled-list.json");
    let report = layout.report(Some("com.example.shop"), 3.25);
    assert_eq!(
        report.unlabeled_clickables,
        ["id:menu", "id:item_3"],
        "a Button's hint is no label; item 3's only text is hidden; the other items are \
         labelled by their child Text, the cart by its description"
    );
}

/// The newer uitest attribute set (ArkUI's inspector fields): a clickable that is fully
/// transparent, has hit testing off, is disabled or untouchable is nothing a finger can hit,
/// so neither a touch target nor an unlabeled one.
#[test]
fn only_what_a_finger_can_hit_is_a_touch_target() {
    let layout = fixture("hidden-targets.json");
    let report = layout.report(Some("com.example.notes"), 3.25);
    assert_eq!(report.clickable, 1, "{report:?}");
    assert_eq!(report.unlabeled_clickables, ["id:shown"]);
    assert_eq!(
        report
            .touch_targets
            .iter()
            .map(|t| t.selector.as_str())
            .collect::<Vec<_>>(),
        ["id:shown"]
    );
}
