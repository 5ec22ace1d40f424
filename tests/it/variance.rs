//! The classes of real-device variance, each reproduced by a fixture written for it and read
//! through the real binary, with the numbers worked out by hand in the fixture or below.

use std::path::Path;

use crate::support::{
    Audited, EXIT_CODES, Ran, capture_with, first_audit, fixture, frozen_example, inspect,
    replay_audit,
};

#[track_caller]
fn json(args: &[&str]) -> serde_json::Value {
    let Ran { stdout, .. } = inspect(args).status(0).run();
    serde_json::from_str(&stdout).unwrap()
}

#[test]
fn a_fixed_width_window_table_with_touching_fields() {
    let file = fixture("hidumper/wms_touching_fields.txt");
    let file = file.to_str().unwrap();
    let table = json(&["hidumper", file, "--kind", "windows", "--json"]);
    assert_eq!(
        table["windows"][1]["rect"],
        serde_json::json!([-1340, 0, 1344, 2772])
    );
    assert_eq!(table["windows"].as_array().unwrap().len(), 3);
    assert_eq!(table["warnings"].as_array().unwrap().len(), 2, "{table}");
    let Ran { stdout: human, .. } = inspect(&["hidumper", file, "--kind", "windows"])
        .status(0)
        .run();
    assert!(human.contains("3 windows, focus: 4"), "{human}");
    assert!(
        human.contains("warning: line 7: a row of the window table that is not a window"),
        "{human}"
    );
    assert!(
        human.contains("warning: the table says 5 windows"),
        "{human}"
    );
}

#[test]
fn a_seven_column_memory_table() {
    let file = fixture("hidumper/mem_seven_columns.txt");
    let total = json(&[
        "hidumper",
        file.to_str().unwrap(),
        "--kind",
        "mem",
        "--json",
    ]);
    assert_eq!(total["pss_kb"], 3492, "2312 (native heap) + 1180 (.so)");
    let Ran { stdout: human, .. } = inspect(&["hidumper", file.to_str().unwrap(), "--kind", "mem"])
        .status(0)
        .run();
    assert!(human.ends_with("PSS total: 3492 kB\n"), "{human}");
}

#[test]
fn a_window_shrunk_by_the_keyboard() {
    let file = fixture("layout/keyboard-form.json");
    let report = json(&[
        "layout",
        file.to_str().unwrap(),
        "--bundle",
        "com.example.shop",
        "--vpr",
        "3.25",
        "--json",
    ]);
    assert_eq!(
        report["clickable"], 3,
        "the login button is under the keyboard"
    );
    let forgot = &report["touch_targets"][0];
    assert_eq!(forgot["selector"], "id:forgot");
    assert_eq!(forgot["height_vp"], 30.769, "its own 100 px");
    assert_eq!(forgot["partly-hidden"], true);
    assert_eq!(
        forgot["visible_vp"],
        serde_json::json!([166.154, 15.385]),
        "the keyboard leaves 50 px of it"
    );
    assert_eq!(report["unlabeled_clickables"], serde_json::json!([]));
}

#[test]
fn a_scrolled_list_with_half_visible_items_and_labels_in_children() {
    let file = fixture("layout/scrolled-list.json");
    let Ran { stdout: human, .. } = inspect(&[
        "layout",
        file.to_str().unwrap(),
        "--bundle",
        "com.example.shop",
        "--vpr",
        "3.25",
    ])
    .status(0)
    .run();
    assert!(
        human.contains("clickable: 8, unlabeled: id:menu, id:item_3"),
        "{human}"
    );
    assert!(
        human.contains("id:item_5  (partly hidden: 387.692 × 46.154 vp visible)"),
        "{human}"
    );
}

#[test]
fn a_launch_without_graphic_markers_says_what_is_missing() {
    let file = fixture("hitrace/launch_without_graphic.ftrace");
    let report = json(&["trace", file.to_str().unwrap(), "--json"]);
    assert_eq!(report["cold_start"], serde_json::Value::Null);
    let missing = report["cold_start_missing"].as_str().unwrap();
    assert!(
        missing.contains("no first frame") && missing.contains("`graphic`"),
        "{missing}"
    );
    let Ran { stdout: human, .. } = inspect(&["trace", file.to_str().unwrap()]).status(0).run();
    assert!(
        human.contains("cold start: no whole launch in this trace: com.example.notes launched"),
        "{human}"
    );
}

/// The notes capture with its second list item scrolled away (uitest's `[0,0][0,0]`,
/// `visible: "false"`): the gap criterion that names it is unverified, "not visible", rather
/// than measured against a node nobody can see.
#[test]
fn a_probe_naming_a_hidden_node_is_unverified() {
    let dir = frozen_example();
    let layout = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("device-fixtures/notes-pass/files/layout-1.json");
    let mut dump: serde_json::Value =
        serde_json::from_slice(&std::fs::read(layout).unwrap()).unwrap();
    fn hide(node: &mut serde_json::Value, id: &str) -> bool {
        if node["attributes"]["id"] == id {
            node["attributes"]["bounds"] = "[0,0][0,0]".into();
            node["attributes"]["visible"] = "false".into();
            return true;
        }
        node["children"]
            .as_array_mut()
            .is_some_and(|children| children.iter_mut().any(|c| hide(c, id)))
    }
    assert!(hide(&mut dump, "note_item_1"));
    let capture = capture_with(
        dir.path(),
        "layout-1.json",
        &serde_json::to_vec(&dump).unwrap(),
    );
    let Ran { code, stderr, .. } = replay_audit(dir.path(), &capture)
        .status_in(EXIT_CODES)
        .run();
    assert_eq!(code, 1, "a must criterion is unverified: {stderr}");
    let report = first_audit(dir.path());
    let gap = &report.check("A-01").check;
    assert_eq!(gap.result, dwpipe::gate::CheckResult::Unverified);
    let evidence = &gap.evidence;
    assert!(
        evidence.contains("`id:note_item_1` is not visible"),
        "{evidence}"
    );
}
