//! Every screen of every form factor is the one audited, through the real binary: from API 18
//! the layout dump and screenshot name the app's windows and the display its window is on (a
//! foldable's outer screen is display 5), before it a warning where the app was not alone on
//! display 0; a split screen is recorded and what the other app covers is said; a foldable's
//! fold state and displays are device state, `fold:` a precondition, each display read at its
//! own density, and one foldable audited in both states is two columns of one lab.

use std::fs;
use std::path::Path;

use dwpipe::gate::CheckResult;
use dwpipe::schema::LabReport;

use crate::lab::lab_audit;
use crate::support::{
    Audited, Ran, Test, capture, device, first_audit, frozen_fixture, parse, replay_audit,
    replay_audit_into,
};

fn ready(dir: &Path, out: &str, serial: &str) -> String {
    fs::read_to_string(
        dir.join(out)
            .join("evidence")
            .join(serial)
            .join("1/ui/ready.txt"),
    )
    .unwrap()
}

#[test]
fn the_dump_and_the_screenshot_are_of_the_apps_window_on_its_display() {
    let dir = frozen_fixture("packs/window.yaml");
    // API 22, the app on display 5: the capture answers only `dumpLayout … -b com.example.notes
    // -d 5` and `screenCap … -d 5`, so a replay that asked anything else would leave it unserved.
    replay_audit(dir.path(), &capture("notes-outer-6.0.2"))
        .status(0)
        .run();
    let report = first_audit(dir.path());
    assert!(
        !report.codes().contains(&"W_CAPTURE_UNSERVED"),
        "{:?}",
        report.codes()
    );
    assert_eq!(report.actual("X-01"), Some("48vp"));
    let said = ready(dir.path(), "out", "FMR0223C13000649");
    assert!(
        said.contains("window: 13 on display 5 at [0 0 1260 2720], full screen\nwindowing: the app alone on display 5"),
        "{said}"
    );
    // OpenHarmony 5.0's uitest cannot be told: the reading stands, with a warning on each
    // screen criterion.
    let Ran { stderr, .. } = replay_audit_into(dir.path(), &capture("notes-outer-5.0"), "old")
        .status(0)
        .run();
    assert!(
        stderr.contains("W_SCREEN_NOT_NAMED")
            && stderr.contains("the app's window was on display 5"),
        "{stderr}"
    );
    let old: dwpipe::schema::AuditReport =
        crate::support::read(dir.path().join("old/audit-1.json"));
    assert_eq!(old.with_code("W_SCREEN_NOT_NAMED").len(), 2);
}

#[test]
fn a_split_screen_is_recorded_and_what_the_other_app_covers_is_said() {
    let dir = frozen_fixture("packs/window.yaml");
    replay_audit(dir.path(), &capture("notes-split-6.0.2"))
        .status(0)
        .run();
    let report = first_audit(dir.path());
    let touch = &report.check("X-01").check;
    assert_eq!(touch.result, CheckResult::Pass);
    // The add button under the browser's half is no target (the smallest left is a list
    // item), and the reading says why.
    assert_eq!(touch.actual.as_deref(), Some("60vp"));
    for said in [
        "the app in split screen (primary), beside or under other apps' windows on display 0: browser0 (window 21, pid 6000, split screen (secondary)",
        "what another window covers is not measured (1 clickable node(s) wholly hidden)",
    ] {
        assert!(touch.evidence.contains(said), "{said}\n{}", touch.evidence);
    }
    let said = ready(dir.path(), "out", "FMR0223C13000649");
    assert!(
        said.contains("at [0 0 1260 1350], split screen (primary)"),
        "{said}"
    );
}

#[test]
fn a_foldable_in_both_states_is_two_columns_of_one_lab() {
    let dir = frozen_fixture("packs/window.yaml");
    // Folded, a run that needs it expanded measures nothing, and says how it was found.
    let Ran { stderr, .. } = replay_audit(dir.path(), &capture("notes-fold-folded"))
        .args(["--require", "fold: expanded"])
        .status(3)
        .run();
    assert!(
        stderr.contains("`fold: expanded` (--require): the phone is folded"),
        "{stderr}"
    );
    for (state, from) in [
        ("expanded", "notes-fold-expanded"),
        ("folded", "notes-fold-folded"),
    ] {
        let root = dir.path().join(format!("phone-{state}"));
        let captures = [device(&root, from, "FOLD01", false)];
        let condition = format!("fold: {state}");
        let shard = format!("shard-{state}");
        let args = [
            "--device",
            "FOLD01",
            "--lab",
            "--require",
            &condition,
            "--out",
            &shard,
        ];
        lab_audit(dir.path(), &format!("hdc-{state}"), &captures, &args)
            .status(0)
            .run();
        // The phone is another capture once folded: fake-hdc starts it from its beginning.
        fs::remove_dir_all(dir.path().join("state")).unwrap();
    }
    let Ran { stdout, .. } = Test::new(dir.path())
        .args([
            "report",
            "merge",
            "shard-expanded",
            "shard-folded",
            "--out",
            "lab",
            "--json",
        ])
        .status(0)
        .run();
    let lab: LabReport = parse(&stdout);
    let columns: Vec<String> = lab
        .devices
        .iter()
        .map(dwpipe::schema::LabDevice::name)
        .collect();
    assert_eq!(columns, ["FOLD01 (expanded)", "FOLD01 (folded)"]);
    // Each state measured on its own display at its own density: the 48 vp button is 156 px
    // inside (3.25 px/vp) and 144 px on the outer screen (3.0 px/vp).
    let folded: dwpipe::schema::AuditReport =
        crate::support::read(dir.path().join("shard-folded/FOLD01/audit-1.json"));
    assert_eq!(folded.actual("X-01"), Some("48vp"));
    assert!(folded.check("X-01").check.evidence.contains("(144 px)"));
    // The page draws the targets at that density too: a 60 vp list item is 180 px there.
    let page = fs::read_to_string(dir.path().join("shard-folded/FOLD01/report.html")).unwrap();
    assert!(
        page.contains("id:note_item_0 60 vp"),
        "the outer screen's density"
    );
    let state = &folded.device_state.as_ref().unwrap().before;
    assert_eq!(state.fold.as_deref(), Some("folded"));
    assert_eq!(state.displays.len(), 2);
    let markdown = fs::read_to_string(dir.path().join("lab/lab.md")).unwrap();
    assert!(markdown.contains("FOLD01 (folded)"), "{markdown}");
    // The same state twice is one device in two shards.
    let Ran { stderr, .. } = Test::new(dir.path())
        .args([
            "report",
            "merge",
            "shard-folded",
            "shard-folded",
            "--out",
            "twice",
        ])
        .status(2)
        .run();
    assert!(stderr.contains("E_MERGE_DUPLICATE_DEVICE"), "{stderr}");
}
