//! `dwpipe inspect` through the real binary, the extractors against every real capture, and
//! property tests: no input, however mangled, makes a parser panic.

use std::path::{Path, PathBuf};
use std::process::Command;

use dwpipe::probe::hitrace;
use proptest::prelude::*;

fn fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(path)
}

fn inspect(args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_dwpipe"))
        .arg("inspect")
        .args(args)
        .output()
        .unwrap();
    (
        output.status.code().unwrap(),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

#[test]
fn inspect_trace_json_keeps_its_contract() {
    let path = fixture("hitrace/cold_start.ftrace");
    let (code, stdout, stderr) = inspect(&[
        "trace",
        path.to_str().unwrap(),
        "--bundle",
        "com.example.notes",
        "--json",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    for key in [
        "lines",
        "events",
        "unparsed_lines",
        "markers",
        "slices",
        "orphan_ends",
        "open_begins",
        "max_depth",
        "frames",
        "cold_start",
    ] {
        assert!(json.get(key).is_some(), "missing {key}");
    }
    for key in [
        "begin",
        "end",
        "async_begin",
        "async_end",
        "counter",
        "other",
    ] {
        assert!(json["markers"].get(key).is_some(), "missing markers.{key}");
    }
    for key in [
        "count",
        "fps",
        "p50_ms",
        "p95_ms",
        "max_ms",
        "budget_ms",
        "jank_ms_per_s",
    ] {
        assert!(json["frames"].get(key).is_some(), "missing frames.{key}");
    }
    assert_eq!(json["cold_start"]["ms"], 670.0);
    assert_eq!(
        json["cold_start"]["start_marker"],
        "service report touchId:1, type: up"
    );
    assert!(
        json["cold_start"]["end_marker"]
            .as_str()
            .unwrap()
            .starts_with("Waiting for Present Fence")
    );
    assert_eq!(json["cold_start"]["phases"].as_array().unwrap().len(), 6);
    let (_, stdout, _) = inspect(&[
        "trace",
        fixture("hitrace/smooth_scroll.ftrace").to_str().unwrap(),
        "--json",
    ]);
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert!(json["cold_start"].is_null());
    assert_eq!(json["frames"]["fps"], 59.999);
}

#[test]
fn inspect_trace_reads_humans_a_summary_and_refuses_missing_files() {
    let (code, stdout, _) = inspect(&[
        "trace",
        fixture("hitrace/janky_scroll.ftrace").to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    assert!(
        stdout.contains("56.249 fps") && stdout.contains("jank 62.501 ms/s (2 dropped)"),
        "{stdout}"
    );
    let (code, _, stderr) = inspect(&["trace", "/nonexistent.ftrace"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("E_INSPECT_UNREADABLE"), "{stderr}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn the_trace_parser_never_panics_on_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..4096)) {
        let report = hitrace::analyze(&bytes[..], None).unwrap();
        prop_assert!(report.events <= report.lines);
    }

    #[test]
    fn the_trace_parser_never_panics_on_mutated_fixtures(
        which in 0usize..3,
        edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..64),
        cut in any::<usize>(),
    ) {
        let names = ["hitrace/cold_start.ftrace", "hitrace/smooth_scroll.ftrace", "hitrace/janky_scroll.ftrace"];
        let mut bytes = std::fs::read(fixture(names[which])).unwrap();
        for (at, byte) in edits {
            let len = bytes.len();
            bytes[at % len] = byte;
        }
        bytes.truncate(cut % (bytes.len() + 1));
        let report = hitrace::analyze(&bytes[..], None).unwrap();
        prop_assert!(report.slices <= report.markers.begin);
    }
}

#[cfg(feature = "real-captures")]
mod real_captures {
    //! Every real capture must parse; the counts below were measured independently
    //! (research/hitrace.md §4).

    use super::*;

    fn captures(sub: &str) -> Vec<PathBuf> {
        let root = std::env::var("DWPIPE_CAPTURES")
            .expect("DWPIPE_CAPTURES names the shared captures folder");
        let mut files: Vec<PathBuf> = std::fs::read_dir(Path::new(&root).join(sub))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.file_name().unwrap() != "SOURCES.md")
            .collect();
        files.sort();
        files
    }

    fn analyze(path: &Path) -> hitrace::TraceReport {
        hitrace::analyze(std::fs::File::open(path).unwrap(), None).unwrap()
    }

    #[test]
    fn every_real_trace_parses() {
        let files = captures("hitrace");
        assert!(files.len() >= 10);
        for path in &files {
            let report = analyze(path);
            let is_trace = path
                .extension()
                .is_some_and(|e| e == "ftrace" || e == "systrace");
            if is_trace {
                assert!(report.events > 0, "{}", path.display());
                assert_eq!(report.unparsed_lines, 0, "{}", path.display());
            }
            let (code, _, stderr) = inspect(&["trace", path.to_str().unwrap(), "--json"]);
            assert_eq!(code, 0, "{}: {stderr}", path.display());
        }
    }

    #[test]
    fn the_measured_counts_of_the_two_big_captures() {
        let root = std::env::var("DWPIPE_CAPTURES").unwrap();
        let tieba = analyze(&Path::new(&root).join("hitrace/codrax_donghu_tieba_frame.systrace"));
        let m = tieba.markers;
        assert_eq!(
            (
                tieba.events,
                m.begin + m.end + m.counter + m.other + m.async_begin + m.async_end
            ),
            (15_623, 1_680)
        );
        assert_eq!(
            (tieba.orphan_ends, tieba.open_begins, tieba.max_depth),
            (14, 10, 8)
        );
        // now: is CLOCK_MONOTONIC; this device had slept, the trace clock had not.
        assert_eq!(
            tieba.vsync_clock_offset_ms.map(|o| (o / 1000.0).round()),
            Some(4756.0)
        );
        let donghu = analyze(&Path::new(&root).join("hitrace/codrax_donghu_first3MB.ftrace"));
        let m = donghu.markers;
        assert_eq!(
            (
                donghu.events,
                m.begin + m.end + m.counter + m.other + m.async_begin + m.async_end
            ),
            (24_250, 11_384)
        );
        assert_eq!(
            (donghu.orphan_ends, donghu.open_begins, donghu.max_depth),
            (33, 20, 9)
        );
        assert_eq!(
            donghu.frames.budget_ms,
            Some(11.111),
            "CommitLayers rate:90"
        );
        assert_eq!(
            donghu.frames.present_marker.as_deref(),
            Some("Waiting for PresentFence_0")
        );
        assert_eq!(donghu.frames.count, 10);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn mutated_real_traces_never_panic(edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..256), cut in any::<usize>()) {
            let root = std::env::var("DWPIPE_CAPTURES").unwrap();
            let mut bytes = std::fs::read(Path::new(&root).join("hitrace/codrax_donghu_tieba_frame.systrace")).unwrap();
            for (at, byte) in edits {
                let len = bytes.len();
                bytes[at % len] = byte;
            }
            bytes.truncate(cut % (bytes.len() + 1));
            hitrace::analyze(&bytes[..], None).unwrap();
        }
    }
}
