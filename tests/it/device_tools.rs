//! The device's own tools cannot fool the audit: each failure text their printers write is
//! replayed through a real audit (or `inspect`) and seen for what it is.

use std::fs;
use std::path::{Path, PathBuf};

use dwpipe::gate::CheckResult;

use crate::support::{
    Audited, Ran, copy_tree, first_audit, fixture, frozen_example, inspect, replay_audit,
    replay_audit_into,
};

/// A file of the repository.
fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// A copy of `notes-pass` in `dir` whose transcript `edit` changed.
fn edited(dir: &Path, name: &str, edit: impl FnOnce(String) -> String) -> PathBuf {
    let capture = dir.join(name);
    copy_tree(&repo("device-fixtures/notes-pass"), &capture);
    let transcript = fs::read_to_string(capture.join("transcript.yaml")).unwrap();
    let changed = edit(transcript.clone());
    assert_ne!(changed, transcript, "{name}: the edit changed nothing");
    fs::write(capture.join("transcript.yaml"), changed).unwrap();
    capture
}

/// The result and evidence of `criterion` in the audit of `dir`.
#[track_caller]
fn verdict(dir: &Path, criterion: &str) -> (CheckResult, String) {
    let check = first_audit(dir).check(criterion).check.clone();
    (check.result, check.evidence)
}

#[test]
fn aa_is_judged_by_its_words_not_its_exit_status() {
    // `aa` exits 0 whatever happens; these are its failure texts (ability_command.cpp).
    let rows = [
        (
            "start ability successfully.\\n",
            "error: failed to start ability.\\nerror: resolve ability err.\\n",
            "error: failed to start ability.",
            &["P-01", "P-02", "A-01", "X-01"][..],
        ),
        (
            "force stop process successfully.\\n",
            "error: failed to force stop process.\\n",
            "error: failed to force stop process.",
            &["P-01"][..],
        ),
    ];
    for (success, failure, said, criteria) in rows {
        let dir = frozen_example();
        let capture = edited(dir.path(), "aa-failed", |t| t.replace(success, failure));
        // A must criterion is unverified.
        replay_audit(dir.path(), &capture).status(1).run();
        for criterion in criteria {
            let (result, evidence) = verdict(dir.path(), criterion);
            assert_eq!(
                result,
                CheckResult::Unverified,
                "{said}: {criterion}: {evidence}"
            );
            assert!(evidence.contains(said), "{criterion}: {evidence}");
        }
        // The test suite's visit never calls `aa start` or `aa force-stop`.
        assert_eq!(verdict(dir.path(), "F-01").0, CheckResult::Pass);
    }
}

#[test]
fn a_suite_past_its_own_limit_fails_its_criterion_and_the_audit_goes_on() {
    let dir = frozen_example();
    // The suite never finishes: the call runs past the hypium step's limit, and dwpipe stops
    // the app (and the test run in it) on the device.
    let capture = edited(dir.path(), "endless-suite", |t| {
        let at = t.find("  - shell: aa test").unwrap();
        let end = at + t[at..].find("\n  - visit:").unwrap() + 1;
        format!(
            "{}  - shell: aa test -b com.example.notes -m entry_test -s unittest OpenHarmonyTestRunner -s class NoteListTest -s timeout 60000\n    fault: hang\n  - shell: aa force-stop com.example.notes\n    reply: \"force stop process successfully.\\n\"\n{}",
            &t[..at],
            &t[end..]
        )
    });
    // A criterion, not the audit.
    replay_audit(dir.path(), &capture).status(1).run();
    let (result, evidence) = verdict(dir.path(), "F-01");
    assert_eq!(result, CheckResult::Unverified, "{evidence}");
    assert!(
        evidence.contains("ran past its limit of 1800 s")
            && evidence.contains("stopped on the device (`aa force-stop com.example.notes`)"),
        "{evidence}"
    );
    // The rest of the audit was measured.
    assert_eq!(verdict(dir.path(), "P-01").0, CheckResult::Pass);
    assert_eq!(verdict(dir.path(), "X-02").0, CheckResult::Pass);
}

#[test]
fn a_trace_from_before_its_recording_began_is_stale() {
    let dir = frozen_example();
    // Each cold start's trace runs from 10 s of the device's clock; say the reading `cat`
    // started at 50 s when the recording began, as when `hitrace --trace_finish -o` wrote
    // nothing and an earlier audit's file was pulled.
    let capture = edited(dir.path(), "stale", |t| {
        t.replace(" 1 0 950 9000000 ", " 1 0 5000 9000000 ")
    });
    replay_audit(dir.path(), &capture).status(1).run();
    let (result, evidence) = verdict(dir.path(), "P-01");
    assert_eq!(result, CheckResult::Unverified, "{evidence}");
    assert!(
        evidence.contains("before its recording began (50.000 s)")
            && evidence.contains("a file left by an earlier run"),
        "{evidence}"
    );
    assert_eq!(
        verdict(dir.path(), "P-02").0,
        CheckResult::Pass,
        "its own clock holds"
    );
    // A clock the shell refused: whether the trace is this visit's cannot be told.
    let dir = frozen_example();
    let capture = edited(dir.path(), "refused", |t| {
        t.replace(
            "reply: \"7001 (cat) R 1 1 0 0 -1 4194560 90 0 0 0 0 0 0 0 20 0 1 0 950 9000000 200 0 0 0\\n\"",
            "reply: \"cat: /proc/self/stat: Permission denied\\n\"\n    status: 1",
        )
    });
    replay_audit(dir.path(), &capture).status(1).run();
    let (result, evidence) = verdict(dir.path(), "P-01");
    assert_eq!(result, CheckResult::Unverified, "{evidence}");
    assert!(
        evidence
            .contains("`cat /proc/self/stat` exited 1: cat: /proc/self/stat: Permission denied"),
        "{evidence}"
    );
}

#[test]
fn every_device_file_is_removed_before_the_step_that_writes_it() {
    // The recording of a fresh audit: each file pulled was removed first, before any trace
    // began (a call inside a traced window would load the frames being measured).
    let transcript =
        fs::read_to_string(repo("device-fixtures/notes-pass/transcript.yaml")).unwrap();
    let lines: Vec<&str> = transcript.lines().collect();
    let mut pulled = 0;
    for (i, line) in lines.iter().enumerate() {
        let Some(remote) = line.strip_prefix("  - pull: ") else {
            continue;
        };
        pulled += 1;
        // (A screenshot and a dump taken side by side are removed in one call.)
        let removed = lines[..i]
            .iter()
            .rposition(|l| {
                l.strip_prefix("  - shell: rm -f ")
                    .is_some_and(|files| files.split(' ').any(|f| f == remote))
            })
            .unwrap_or_else(|| panic!("{remote} was not removed before it was written"));
        let writer = lines[..i]
            .iter()
            .rposition(|l| l.starts_with("  - shell: ") && l.contains(remote))
            .unwrap();
        assert!(removed < writer, "{remote}: removed after it was written");
    }
    assert!(pulled > 10);
    // And the replay of that recording passes, every exchange served.
    let dir = frozen_example();
    replay_audit(dir.path(), &repo("device-fixtures/notes-pass"))
        .status(0)
        .run();
}

/// A device where the screenshot and the dump cannot be taken side by side: the first pair
/// says so and is taken again one after the other, every later pair of the audit is taken
/// apart from the start, and nothing read changes.
#[test]
fn a_pair_that_did_not_work_side_by_side_is_taken_apart_for_the_rest_of_the_audit() {
    let dir = frozen_example();
    let capture = edited(dir.path(), "apart", |t| {
        let lines: Vec<&str> = t.lines().collect();
        let mut out: Vec<String> = Vec::new();
        let mut pairs = 0;
        let mut i = 0;
        while i < lines.len() {
            // A pair: `rm -f SCREEN LAYOUT`, the joined call and its reply, the dump's pull
            // and the screenshot's, three lines each.
            let joined = lines.get(i + 2).and_then(|l| {
                let rest = l.strip_prefix("  - shell: uitest screenCap -p ")?;
                let (screen, rest) = rest.split_once(" & uitest dumpLayout -p ")?;
                Some((screen, rest.split_once(';')?.0))
            });
            let Some((screen, layout)) =
                joined.filter(|_| lines[i].starts_with("  - shell: rm -f "))
            else {
                out.push(lines[i].to_owned());
                i += 1;
                continue;
            };
            pairs += 1;
            if pairs == 1 {
                out.extend(lines[i..i + 3].iter().map(ToString::to_string));
                out.push(format!(
                    "    reply: \"DumpLayout failed:connect to AAMS failed\\n__DWPIPE_DUMPED=1\\nScreenCap saved to {screen}\\n__DWPIPE_SHOT=0\\n\""
                ));
            }
            let pulled = [&lines[i + 4..i + 7], &lines[i + 7..i + 10]];
            for ((remote, tool, said), pull) in [
                (layout, "dumpLayout", "DumpLayout saved to:"),
                (screen, "screenCap", "ScreenCap saved to "),
            ]
            .into_iter()
            .zip(pulled)
            {
                assert!(pull[0].ends_with(remote), "{}", pull[0]);
                out.push(format!("  - shell: rm -f {remote}\n    reply: \"\""));
                out.push(format!(
                    "  - shell: uitest {tool} -p {remote}\n    reply: \"{said}{remote}\\n\""
                ));
                out.extend(pull.iter().map(ToString::to_string));
            }
            i += 10;
        }
        // The ui session's pair, then four in each of the three flows.
        assert_eq!(pairs, 13);
        out.join("\n") + "\n"
    });
    // `--strict`: every exchange served, the calls made apart included.
    replay_audit_into(dir.path(), &capture, "out")
        .args(["--strict"])
        .status(0)
        .run();
    for criterion in ["A-01", "X-01", "X-02", "F-02", "P-03"] {
        assert_eq!(
            verdict(dir.path(), criterion).0,
            CheckResult::Pass,
            "{criterion}"
        );
    }
}

#[test]
fn a_swipe_is_placed_in_the_display_the_identity_read() {
    let dir = frozen_example();
    replay_audit(dir.path(), &repo("device-fixtures/notes-pass"))
        .status(0)
        .run();
    let said = fs::read_to_string(
        dir.path()
            .join("out/evidence/FMR0223C13000649/1/scroll/gesture.txt"),
    )
    .unwrap();
    assert!(
        said.starts_with(
            "swipes at x=630 between y=2040 and y=680: the middle of the 1260x2720 px display"
        ),
        "{said}"
    );
    // An identity without a display size: the swipe is not guessed.
    let dir = frozen_example();
    let capture = dir.path().join("no-size");
    copy_tree(&repo("device-fixtures/notes-pass"), &capture);
    let identity = fs::read_to_string(capture.join("device.yaml")).unwrap();
    fs::write(
        capture.join("device.yaml"),
        identity.replace("display-size: [1260, 2720]\n", ""),
    )
    .unwrap();
    // P-02 is a should.
    replay_audit(dir.path(), &capture).status(0).run();
    let (result, evidence) = verdict(dir.path(), "P-02");
    assert_eq!(result, CheckResult::Unverified, "{evidence}");
    assert!(
        evidence.contains("the display size is unknown"),
        "{evidence}"
    );
}

#[test]
fn a_replay_planned_with_other_runs_is_refused_before_its_first_call() {
    let dir = frozen_example();
    let capture = repo("device-fixtures/notes-pass");
    for runs in ["2", "3", "5"] {
        let out = format!("out-{runs}");

        let Ran { stderr, .. } = replay_audit_into(dir.path(), &capture, &out)
            .args(["--runs", runs])
            .status(2)
            .run();
        assert!(stderr.contains("E_CAPTURE_PLAN"), "{stderr}");
        assert!(!dir.path().join(format!("out-{runs}/audit-1.json")).exists());
    }
}

#[test]
fn a_binary_trace_is_named_with_how_to_get_text() {
    let dir = tempfile::tempdir().unwrap();
    // hitrace --raw: `uint16` magic 57161, file type 0, version 1 (trace_content.h).
    let mut raw = vec![0x49, 0xDF, 0x00, 0x00, 0x01, 0x00, 0, 0, 0, 0, 0, 0];
    raw.extend_from_slice(&[0u8; 64]);
    // DevEco Profiler's .htrace: a 1024-byte header starting with `OHOSPROF`.
    let mut htrace = b"OHOSPROF".to_vec();
    htrace.resize(1024, 0);
    for (name, bytes, said) in [
        (
            "raw.trace",
            raw,
            "a binary hitrace recording (`hitrace --raw`",
        ),
        (
            "x.htrace",
            htrace,
            "a binary DevEco Profiler / hiprofiler recording (.htrace",
        ),
    ] {
        let path = dir.path().join(name);
        fs::write(&path, bytes).unwrap();
        let Ran { stderr, .. } = inspect(&["trace", path.to_str().unwrap()]).status(2).run();
        assert!(
            stderr.contains("E_INSPECT_NOT_A_TRACE")
                && stderr.contains(said)
                && stderr.contains("--trace_finish -o"),
            "{stderr}"
        );
    }
}

#[test]
fn contrast_is_read_from_the_pixels_of_a_jpeg_as_of_a_png() {
    // boxes.py: #767676 on white (4.54:1) and black on white (21:1), as PNG and as JPEG.
    for (bounds, exact) in [("240,0,480,120", 4.54), ("0,0,240,120", 21.0)] {
        for file in ["boxes.png", "boxes.jpg"] {
            let path = fixture(&format!("screenshot/{file}"));
            let path = path.to_str().unwrap();
            let Ran { stdout, .. } = inspect(&["screenshot", path, "--box", bounds, "--json"])
                .status(0)
                .run();
            let measured: serde_json::Value = serde_json::from_str(&stdout).unwrap();
            let ratio = measured["ratio"].as_f64().unwrap();
            assert!(
                (ratio - exact).abs() / exact <= 0.01,
                "{file} {bounds}: {ratio} against {exact}"
            );
        }
    }
}

#[test]
fn only_what_a_finger_can_hit_is_listed_as_a_touch_target() {
    let dump = fixture("layout/hidden-targets.json");
    let Ran { stdout, .. } =
        inspect(&["layout", dump.to_str().unwrap(), "--vpr", "3.25", "--json"])
            .status(0)
            .run();
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    // Transparent, hit testing off, disabled, untouchable: four clickables no finger hits.
    assert_eq!(report["clickable"], 1, "{report:?}");
    assert_eq!(
        report["unlabeled_clickables"],
        serde_json::json!(["id:shown"])
    );
}

#[test]
fn density_is_read_from_either_display_manager() {
    // The legacy dmserver refuses SceneBoard's `-a -a` (it takes two arguments) and prints
    // `VPR:` for `-a '-d 0'` (display_dumper.cpp); the identity asks both.
    let density = |file: &str| {
        let path = fixture(&format!("hidumper/{file}"));
        inspect(&["hidumper", "--kind", "density", path.to_str().unwrap()])
    };
    density("dms_legacy_d0.txt")
        .stdout_contains("density: 1.5 px/vp")
        .run();
    density("dms_legacy_a_a.txt")
        .status(2)
        .stderr_contains("ask `-a '-d 0'`")
        .run();
}

/// A scroll trace cut mid-line (a transfer interrupted before the slow frames) is not a calm
/// scroll: the frames criterion of the failing phone is unverified, never a pass over the frames
/// before the cut.
#[test]
fn a_trace_cut_mid_line_is_not_read() {
    let dir = frozen_example();
    let capture = dir.path().join("cut-scroll");
    copy_tree(&repo("device-fixtures/notes-fail"), &capture);
    let trace = capture.join("files/scroll-1.ftrace");
    let bytes = fs::read(&trace).unwrap();
    let old = dwpipe::hash::sha256_hex(&bytes);
    // Cut in the middle of the first line after the first fifth of the trace.
    let at = bytes.len() / 5;
    let end = at + bytes[at..].iter().position(|b| *b == b'\n').unwrap() + 20;
    let cut = &bytes[..end];
    assert_ne!(cut.last(), Some(&b'\n'));
    fs::write(&trace, cut).unwrap();
    let transcript = fs::read_to_string(capture.join("transcript.yaml")).unwrap();
    fs::write(
        capture.join("transcript.yaml"),
        transcript.replace(&old, &dwpipe::hash::sha256_hex(cut)),
    )
    .unwrap();
    replay_audit(dir.path(), &capture).status(1).run();
    let (result, evidence) = verdict(dir.path(), "P-02");
    assert_eq!(result, CheckResult::Unverified, "{evidence}");
    assert!(
        evidence.contains("trace.ftrace` ends mid-line: the file was cut short"),
        "{evidence}"
    );
}
