//! The synthetic fixtures (numbers worked out by hand in their headers) and bad input.

use super::*;
use blocks::Blocks;

fn fixture(name: &str) -> TraceReport {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/hitrace")
        .join(name);
    analyze(std::fs::File::open(path).unwrap(), None, &[]).unwrap()
}

#[test]
fn a_smooth_scroll() {
    let report = fixture("smooth_scroll.ftrace");
    let f = &report.frames;
    assert_eq!(f.count, 61);
    assert_eq!(f.fps, Some(59.999));
    assert_eq!(
        (f.p50_ms, f.p95_ms, f.max_ms),
        (Some(16.667), Some(16.667), Some(16.667))
    );
    assert_eq!(f.budget_ms, Some(16.667));
    assert_eq!(f.jank_ms_per_s, Some(0.0));
    assert_eq!(f.dropped_frames, 0);
    assert_eq!(report.cold_start, None);
}

#[test]
fn a_janky_scroll() {
    let f = fixture("janky_scroll.ftrace").frames;
    assert_eq!(f.count, 61);
    assert_eq!(f.fps, Some(56.249));
    assert_eq!(
        (f.p50_ms, f.p95_ms, f.max_ms),
        (Some(16.667), Some(16.667), Some(50.001))
    );
    assert_eq!(f.dropped_frames, 2);
    assert_eq!(f.jank_ms_per_s, Some(62.501));
    assert_eq!(f.budget_source, Some("CommitLayers rate:"));
}

#[test]
fn a_cold_start_with_its_phases() {
    let report = fixture("cold_start.ftrace");
    let cold = report.cold_start.expect("a whole launch");
    assert_eq!(cold.ms, 670.0);
    assert_eq!(cold.start_marker, "service report touchId:1, type: up");
    assert_eq!(cold.app_pid, Some(5000));
    let phases: Vec<(&str, f64, f64)> = cold
        .phases
        .iter()
        .map(|p| (p.name, p.start_ms, p.duration_ms))
        .collect();
    assert_eq!(
        phases,
        [
            ("process creation", 50.0, 150.0),
            ("application launching", 200.0, 50.0),
            ("ability launching", 250.0, 170.0),
            ("foreground", 420.0, 180.0),
            ("first frame (app)", 600.0, 21.0),
            ("first frame (render)", 621.0, 49.0),
        ]
    );
    assert!(cold.phases[5].marker.contains("[5000,1]"));
    assert_eq!(report.vsync_clock_offset_ms, Some(0.0));
    // Another bundle's launch is not this one.
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/hitrace/cold_start.ftrace");
    let other = analyze(
        std::fs::File::open(path).unwrap(),
        Some("com.example.other".into()),
        &[],
    )
    .unwrap();
    assert_eq!(other.cold_start, None);
}

#[test]
fn a_launch_without_its_first_frame_is_no_cold_start() {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/hitrace/cold_start.ftrace"),
    )
    .unwrap();
    // Cut inside the timestamp of the fence that would have ended the launch.
    let cut = text.find("10.653").unwrap() + 4;
    let report = analyze(&text.as_bytes()[..cut], None, &[]).unwrap();
    assert_eq!(report.cold_start, None);
    assert_eq!(report.unparsed_lines, 1, "the cut line");
}

#[test]
fn bad_input_is_counted_not_fatal() {
    let empty = analyze(&b""[..], None, &[]).unwrap();
    assert_eq!((empty.lines, empty.events, empty.frames.count), (0, 0, 0));
    let garbage: Vec<u8> = (0..200_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let report = analyze(&garbage[..], None, &[]).unwrap();
    assert_eq!(report.events, 0);
    assert!(report.unparsed_lines > 0);
    let crlf = "  task-1 (1) [000] .... 1.000000: print: B|1|H:a|M62\r\n  task-1 (1) [000] .... 1.000100: print: E|1|M62\r\n  task-1 (1) [000] .... 1.0002";
    let report = analyze(crlf.as_bytes(), None, &[]).unwrap();
    assert_eq!(
        (report.events, report.slices, report.unparsed_lines),
        (2, 1, 1)
    );
}

/// The trace read sequentially in one block, and in blocks of `size` bytes split over three
/// threads from the first byte: the same report, field for field.
fn same_in_blocks(trace: &[u8], size: usize) {
    let report = |blocks: Blocks| {
        let mut analysis = Analysis::new(Some("com.example.notes".to_owned()));
        analysis.feed_in(trace, blocks).unwrap();
        report(&analysis)
    };
    let sequential = report(Blocks {
        size: trace.len() + 1,
        threads: 1,
        threads_from: usize::MAX,
    });
    let parallel = report(Blocks {
        size,
        threads: 3,
        threads_from: 0,
    });
    assert_eq!(sequential, parallel, "blocks of {size} bytes");
}

#[test]
fn the_bundled_traces_parse_the_same_in_small_blocks_on_many_threads() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut traces = 0;
    // The hand-made traces and the notes app's captures (the generated regression fixtures
    // are more of the same).
    let folders = ["device-fixtures", "tests/fixtures/hitrace"].map(|f| root.join(f));
    for entry in folders.iter().flat_map(walkdir::WalkDir::new).flatten() {
        let path = crate::text::doc_path(entry.path());
        let chosen = path.contains("tests/fixtures") || path.contains("device-fixtures/notes-");
        if chosen && entry.path().extension().is_some_and(|e| e == "ftrace") {
            let trace = std::fs::read(entry.path()).unwrap();
            // Blocks smaller than a line, and a few lines each: boundaries fall everywhere,
            // inside B/E pairs and inside the launch window.
            for size in [97, 4096] {
                same_in_blocks(&trace, size);
            }
            traces += 1;
        }
    }
    assert!(traces > 10, "{traces} traces");
}

#[cfg(feature = "real-captures")]
#[test]
fn real_captures_parse_the_same_in_small_blocks_on_many_threads() {
    let Some(root) = std::env::var_os("DWPIPE_CAPTURES") else {
        eprintln!(
            "skipped: DWPIPE_CAPTURES is not set (the real captures live in ../shared/captures)"
        );
        return;
    };
    let mut traces = 0;
    let folder = std::path::Path::new(&root).join("hitrace");
    for entry in walkdir::WalkDir::new(folder).into_iter().flatten() {
        let path = entry.path();
        // Every trace of the folder, whatever its name ends in; its SOURCES.md is not one.
        if path.is_file() && path.extension().is_none_or(|e| e != "md") {
            let trace = std::fs::read(path).unwrap();
            for size in [4096, 256 * 1024] {
                same_in_blocks(&trace, size);
            }
            traces += 1;
        }
    }
    assert!(traces > 0, "no trace among the captures");
}

/// What a shorter traced window relies on (`audit/window.rs`): a launch found in a trace is
/// read the same from every longer one, so a window cut after the first frame reads what the
/// ceiling's window reads; one cut before it reads nothing (and the visit is made again).
#[test]
fn a_cold_start_reads_the_same_from_every_trace_long_enough_to_hold_it() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/hitrace/cold_start.ftrace");
    // The recorded launch, then what a longer window goes on to record: the next frames.
    let mut text = std::fs::read_to_string(path).unwrap();
    let later: String = [(10.686, 10.703, 102), (10.703, 10.720, 103)]
        .iter()
        .map(|(begin, end, fence)| {
            format!(
                "      Present Fence-1700 (   1252) [000] .... {begin:.6}: tracing_mark_write: B|1252|H:Waiting for Present Fence {fence}|I38\n      Present Fence-1700 (   1252) [000] .... {end:.6}: tracing_mark_write: E|1252|I38\n"
            )
        })
        .collect();
    text.push_str(&later);
    let whole = analyze(text.as_bytes(), None, &[])
        .unwrap()
        .cold_start
        .unwrap();
    assert_eq!(whole.ms, 670.0, "the first frame, not a later one");
    let mut ends: Vec<usize> = text.match_indices('\n').map(|(i, _)| i + 1).collect();
    ends.retain(|end| *end < text.len());
    let mut found = 0;
    for end in ends {
        let prefix = &text[..end];
        match analyze(prefix.as_bytes(), None, &[]).unwrap().cold_start {
            Some(cold) => {
                assert_eq!(cold, whole, "the trace cut after byte {end}");
                found += 1;
            }
            // Cut before the first frame's fence ended: nothing, never another number.
            None => assert!(
                !prefix.contains("10.670000: tracing_mark_write: E|1252"),
                "cut after byte {end}"
            ),
        }
    }
    assert!(found > 0, "some shorter window still holds the launch");
}

/// The app's own trace points in every form a phone prints, each question read in the one
/// pass: spans, sections by duration and by argument, async sections, counters.
#[test]
fn the_apps_trace_points_are_read_in_every_form() {
    use crate::pack::{Of, Pick, Point, SectionValue, TraceName};
    let name = |text: &str| TraceName::parse(text).unwrap();
    let span = |pick, of| Point::Span {
        from: name("feed requested"),
        to: name("H:feed shown"),
        pick,
        of,
    };
    let section = |text: &str, of, value| Point::Section {
        name: name(text),
        of,
        value,
    };
    let counter = |of| Point::Counter {
        name: name("/^image-cache/"),
        of,
    };
    let rows: Vec<(Point, Option<f64>)> = vec![
        // 1.000 → 1.720 (the older trailing-space form ends it); the second `feed shown`
        // has no `feed requested` before it.
        (span(Pick::First, Of::Max), Some(720.0)),
        (span(Pick::Last, Of::Max), Some(720.0)),
        (span(Pick::Each, Of::Count), Some(1.0)),
        // On another thread of the app, under a tgid printed as dashes and as a number.
        (
            section("decode page", Of::First, SectionValue::Duration),
            Some(30.0),
        ),
        (
            section("decode page", Of::Sum, SectionValue::Duration),
            Some(70.0),
        ),
        (
            section("decode page", Of::Mean, SectionValue::Duration),
            Some(35.0),
        ),
        (
            section("decode page", Of::Count, SectionValue::Duration),
            Some(2.0),
        ),
        (
            section("decode page", Of::Max, SectionValue::Arg("area".into())),
            Some(2_457_600.0),
        ),
        (
            section("decode page", Of::Max, SectionValue::Arg("missing".into())),
            None,
        ),
        // Async, by task id: `|7|M62` (350 ms) and the older `load feed 8` (60 ms).
        (
            section("load feed", Of::Max, SectionValue::Duration),
            Some(350.0),
        ),
        (
            section("load feed", Of::Min, SectionValue::Duration),
            Some(60.0),
        ),
        // Space-separated and level-field counters.
        (counter(Of::Last), Some(209_715_200.0)),
        (counter(Of::Min), Some(1720.0)),
        (
            section("not in the trace", Of::Count, SectionValue::Duration),
            None,
        ),
    ];
    let points: Vec<Point> = rows.iter().map(|(p, _)| p.clone()).collect();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/hitrace/app_points.ftrace");
    let mut analysis = Analysis::new(None).asking(&points);
    analysis.feed(std::fs::File::open(path).unwrap()).unwrap();
    assert_eq!(analysis.unparsed_lines, 0);
    for (point, expected) in &rows {
        let found = analysis.points.answer(point).unwrap();
        let value = found.value(point);
        match (value, expected) {
            (Some(v), Some(e)) => assert!((v - e).abs() < 1e-6, "{point:?}: {v} ≠ {e}"),
            (v, e) => assert_eq!(v, *e, "{point:?}"),
        }
    }
    // The occurrences keep where they were: the first decode on thread 5013 at 1.1 s.
    let decode = analysis.points.answer(&rows[3].0).unwrap().first.unwrap();
    assert_eq!((decode.tid, decode.begin_s), (5013, 1.1));
}
