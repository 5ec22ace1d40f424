//! `dwpipe inspect` through the real binary, the extractors against every real capture, and
//! property tests: no input, however mangled, makes a parser panic.

use crate::support::{EXIT_CODES, Ran, fixture, inspect};
use dwpipe::probe::hitrace;
use proptest::prelude::*;

#[test]
fn inspect_trace_json_keeps_its_contract() {
    let path = fixture("hitrace/cold_start.ftrace");
    let Ran { stdout, .. } = inspect(&[
        "trace",
        path.to_str().unwrap(),
        "--bundle",
        "com.example.notes",
        "--json",
    ])
    .status(0)
    .run();
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
    let Ran { stdout, .. } = inspect(&[
        "trace",
        fixture("hitrace/smooth_scroll.ftrace").to_str().unwrap(),
        "--json",
    ])
    .status(0)
    .run();
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert!(json["cold_start"].is_null());
    assert_eq!(json["frames"]["fps"], 59.999);
}

#[test]
fn inspect_trace_reads_humans_a_summary_and_refuses_missing_files() {
    let Ran { stdout, .. } = inspect(&[
        "trace",
        fixture("hitrace/janky_scroll.ftrace").to_str().unwrap(),
    ])
    .status(0)
    .run();
    assert!(
        stdout.contains("56.249 fps") && stdout.contains("jank 62.501 ms/s (2 dropped)"),
        "{stdout}"
    );
    let Ran { stderr, .. } = inspect(&["trace", "/nonexistent.ftrace"]).status(2).run();
    assert!(stderr.contains("E_INSPECT_UNREADABLE"), "{stderr}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn the_trace_parser_never_panics_on_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..4096)) {
        let report = hitrace::analyze(&bytes[..], None, &[]).unwrap();
        prop_assert!(report.events <= report.lines);
    }
}

#[cfg(feature = "real-captures")]
mod real_captures {
    //! Every real capture must parse; the counts below were measured independently
    //! (research/hitrace.md §4).

    use std::path::{Path, PathBuf};

    use super::*;

    #[track_caller]
    fn captures(root: &Path, sub: &str) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = std::fs::read_dir(root.join(sub))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.file_name().unwrap() != "SOURCES.md")
            .collect();
        files.sort();
        files
    }

    fn analyze(path: &Path) -> hitrace::TraceReport {
        hitrace::analyze(std::fs::File::open(path).unwrap(), None, &[]).unwrap()
    }

    #[test]
    fn every_real_trace_parses() {
        let Some(root) = crate::support::real_captures() else {
            return;
        };
        let files = captures(&root, "hitrace");
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
            let Ran {
                code,
                stdout,
                stderr,
                ..
            } = inspect(&["trace", path.to_str().unwrap(), "--json"])
                .status_in(EXIT_CODES)
                .run();
            if report.events > 0 {
                assert_eq!(code, 0, "{}: {stderr}", path.display());
            } else {
                // Help texts and notes beside the traces: not a trace, said so.
                assert_eq!(code, 2, "{}: {stderr}", path.display());
                assert!(stdout.contains("E_INSPECT_NOT_A_TRACE"), "{stdout}");
            }
        }
    }

    #[test]
    fn the_measured_counts_of_the_two_big_captures() {
        let Some(root) = crate::support::real_captures() else {
            return;
        };
        let tieba = analyze(&root.join("hitrace/codrax_donghu_tieba_frame.systrace"));
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
        let donghu = analyze(&root.join("hitrace/codrax_donghu_first3MB.ftrace"));
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

    /// The device's state as two real phones printed it (awesome-hdc's README captures).
    #[test]
    fn the_real_battery_and_power_captures() {
        use dwpipe::probe::hidumper;
        let Some(root) = crate::support::real_captures() else {
            return;
        };
        let read = |path: &str| std::fs::read_to_string(root.join(path)).unwrap();
        let battery = hidumper::battery(&read("hidumper/awesomehdc_batteryservice_i.txt")).unwrap();
        assert_eq!(
            (
                battery.capacity_percent,
                battery.charging,
                battery.plugged,
                battery.temperature_c
            ),
            (Some(100), Some("full"), Some("ac"), Some(28.0))
        );
        for file in [
            "hidumper/awesomehdc_powermanagerservice_s.txt",
            "hidumper/awesomehdc_46dfcda_powermanagerservice_3301_a_a.txt",
        ] {
            let power = hidumper::power_state(&read(file)).unwrap();
            assert_eq!(
                (power.state.as_str(), power.screen_off_timeout_ms),
                ("AWAKE", Some(600_000)),
                "{file}"
            );
        }
        // hidumper's documented `--cpuusage 1`: init's row.
        let cpu = hidumper::cpu_usage(&read("hidumper/docs_zh_hidumper_cpuusage.txt")).unwrap();
        assert_eq!(
            (cpu.pid, cpu.name.as_str(), cpu.total_percent),
            (1, "init", 0.0)
        );
        // The documentation's `-a -t` sample of PowerManagerService prints nothing after the
        // header: no state, said so.
        assert!(
            hidumper::power_state(&read("hidumper/docs_zh_powermanager_3301_t_f.txt")).is_err()
        );
        let path = root.join("hidumper/awesomehdc_batteryservice_i.txt");
        let Ran { stdout, .. } =
            inspect(&["hidumper", "--kind", "battery", path.to_str().unwrap()])
                .status(0)
                .run();
        assert!(
            stdout.contains("battery: 100%, full, plugged ac, 28 °C"),
            "{stdout}"
        );
    }

    #[test]
    fn every_real_hidumper_layout_and_hypium_capture() {
        use dwpipe::probe::{hidumper, hypium, layout::Layout};
        let Some(root) = crate::support::real_captures() else {
            return;
        };
        let read = |path: &str| std::fs::read_to_string(root.join(path)).unwrap();
        let composer =
            hidumper::fps_blocks(&read("hidumper/awesomehdc_renderservice_composer_fps.txt"))
                .unwrap();
        assert_eq!(composer[0].title, "screen [Id:0]");
        assert_eq!(
            composer[0].summary(None).fps.map(f64::round),
            Some(60.0),
            "deltas of about 16.55 ms"
        );
        for screen in [
            "hidumper/awesomehdc_renderservice_screen_mate60pro_a.txt",
            "hidumper/awesomehdc_renderservice_screen_mate60pro_b.txt",
        ] {
            let screens = hidumper::screens(&read(screen)).unwrap();
            assert_eq!(
                (screens[0].render, screens[0].refresh_hz),
                (Some((1260, 2720)), Some(60)),
                "{screen}"
            );
        }
        let newer = hidumper::screens(&read(
            "hidumper/thirdparty_csharp_renderservice_screen_newformat_excerpt.txt",
        ))
        .unwrap();
        assert_eq!(newer[0].render, Some((1152, 2520)));
        assert_eq!(
            hidumper::memory_total(&read("hidumper/docs_zh_hidumper_mem_pid1.txt"))
                .unwrap()
                .pss_kb,
            4275
        );
        let table = hidumper::windows(&read("hidumper/docs_en_wms_a_rk_like.txt")).unwrap();
        assert_eq!(table.focus, Some(13));
        assert_eq!(
            (table.windows.len(), table.warnings.len()),
            (12, 0),
            "every row, as `total window num: 12` says"
        );
        assert!(
            table
                .windows
                .iter()
                .any(|w| w.name == "note0" && w.rect == [0, 0, 720, 1280])
        );
        assert!(matches!(
            hidumper::fps_blocks(&read(
                "hidumper/docs_zh_renderservice_surface_fps_not_found.txt"
            )),
            Err(hidumper::DumpError::Empty(_))
        ));
        assert_eq!(
            dwpipe::device::virtual_pixel_ratio(&read(
                "hidumper/thirdparty_csharp_dms_density_excerpt.txt"
            )),
            Some(3.15)
        );
        let layout = Layout::parse(
            read("layout/uitest_dumpLayout_hmdriver2_docs_hierarchy.json").as_bytes(),
        )
        .unwrap();
        let report = layout.report(Some("com.samples.test.uitest"), 3.25);
        assert_eq!((report.nodes, report.clickable), (75, 12));
        let hypium = hypium::parse(&read("hypium/awesomehdc_aa_test_output.txt")).unwrap();
        assert_eq!(
            (hypium.verdict, hypium.summary.run, hypium.summary.error),
            ("fail", 447, 1)
        );
        // Every file of every folder goes through its parsers without a panic.
        for sub in ["hidumper", "layout", "hypium", "hdc"] {
            for path in captures(&root, sub) {
                let bytes = std::fs::read(&path).unwrap();
                let text = String::from_utf8_lossy(&bytes);
                let _ = Layout::parse(&bytes);
                let _ = (
                    hidumper::fps_blocks(&text),
                    hidumper::screens(&text),
                    hidumper::memory_total(&text),
                    hidumper::windows(&text),
                );
                let _ = hypium::parse(&text);
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn mutated_real_captures_never_panic(edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..256), cut in any::<usize>()) {
            use dwpipe::probe::{hidumper, hypium, layout::Layout};
            let Some(root) = crate::support::real_captures() else {
                return Ok(());
            };
            for name in [
                "hitrace/codrax_donghu_tieba_frame.systrace",
                "layout/uitest_dumpLayout_hmdriver2_docs_hierarchy.json",
                "hidumper/awesomehdc_renderservice_composer_fps.txt",
                "hidumper/docs_zh_hidumper_mem_pid1.txt",
                "hidumper/docs_en_wms_a_rk_like.txt",
                "hypium/awesomehdc_aa_test_output.txt",
            ] {
                let mut bytes = std::fs::read(root.join(name)).unwrap();
                for (at, byte) in &edits {
                    let len = bytes.len();
                    bytes[at % len] = *byte;
                }
                bytes.truncate(cut % (bytes.len() + 1));
                hitrace::analyze(&bytes[..], None, &[]).unwrap();
                let text = String::from_utf8_lossy(&bytes);
                let _ = Layout::parse(&bytes).map(|l| l.report(None, 3.25));
                let _ = (hidumper::fps_blocks(&text), hidumper::memory_total(&text), hidumper::windows(&text), hypium::parse(&text));
            }
        }
    }
}

#[test]
fn inspect_layout_json_keeps_its_contract() {
    let Ran { stdout, .. } = inspect(&[
        "layout",
        fixture("layout/notes.json").to_str().unwrap(),
        "--vpr",
        "3.25",
        "--bundle",
        "com.example.notes",
        "--json",
    ])
    .status(0)
    .run();
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["nodes"], 12);
    assert_eq!(json["windows"].as_array().unwrap().len(), 2);
    assert_eq!(json["clickable"], 5);
    assert_eq!(
        json["touch_targets"][0],
        serde_json::json!({"selector": "type:Image[0]", "width_vp": 36.0, "height_vp": 36.0})
    );
    assert_eq!(
        json["unlabeled_clickables"],
        serde_json::json!(["type:Image[0]"])
    );
    assert_eq!(json["unit"], "vp");
    // Without a density the sizes are pixels, and say so.
    let Ran { stdout, .. } = inspect(&["layout", fixture("layout/notes.json").to_str().unwrap()])
        .status(0)
        .run();
    assert!(
        stdout.contains("sizes in px") && stdout.contains(" px  type:Image[0]"),
        "{stdout}"
    );
    assert!(!stdout.contains(" vp "), "{stdout}");
    let Ran { stderr, .. } = inspect(&[
        "layout",
        fixture("hitrace/cold_start.ftrace").to_str().unwrap(),
    ])
    .status(2)
    .run();
    assert!(stderr.contains("E_INSPECT_INVALID"), "{stderr}");
    inspect(&[
        "layout",
        fixture("layout/notes.json").to_str().unwrap(),
        "--vpr",
        "0",
    ])
    .status(2)
    .run();
}

#[test]
fn inspect_screenshot_hidumper_and_hypium() {
    let jpeg = fixture("screenshot/screenshot_black_on_white.jpg");
    let Ran { stdout, .. } = inspect(&[
        "screenshot",
        jpeg.to_str().unwrap(),
        "--box",
        "0,0,40,30",
        "--json",
    ])
    .status(0)
    .run();
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert!(json["ratio"].as_f64().unwrap() > 15.0);
    assert!(json["warnings"][0].as_str().unwrap().contains("JPEG"));
    for bad_box in ["50,50,60,60", "1,2,3", "5,5,5,5"] {
        let Ran { code, stderr, .. } =
            inspect(&["screenshot", jpeg.to_str().unwrap(), "--box", bad_box])
                .status_in(EXIT_CODES)
                .run();
        assert_eq!(code, 2, "{bad_box}: {stderr}");
    }
    let dir = tempfile::tempdir().unwrap();
    let hypium = dir.path().join("aa_test.txt");
    std::fs::write(&hypium, "OHOS_REPORT_STATUS: class=A\nOHOS_REPORT_STATUS: test=b\nOHOS_REPORT_STATUS_CODE: 0\nOHOS_REPORT_RESULT: stream=Tests run: 1, Failure: 0, Error: 0, Pass: 1, Ignore: 0\n").unwrap();
    let Ran { stdout, .. } = inspect(&["hypium", hypium.to_str().unwrap(), "--json"])
        .status(0)
        .run();
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&stdout).unwrap()["verdict"],
        "pass"
    );
    let mem = dir.path().join("mem.txt");
    std::fs::write(&mem, "-------------------------------[memory]-------------------------------\n                        Pss        Shared        Shared       Private       Private          Swap       SwapPss          Heap          Heap          Heap\n                    Total         Clean         Dirty         Clean         Dirty         Total         Total          Size         Alloc          Free\n        Total          4275          1564           856          1688            72          2216          2216             0             0             0\n").unwrap();
    let Ran { stdout, .. } =
        inspect(&["hidumper", mem.to_str().unwrap(), "--kind", "mem", "--json"])
            .status(0)
            .run();
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&stdout).unwrap()["pss_kb"],
        4275
    );
    let Ran { code, stderr, .. } = inspect(&["hidumper", mem.to_str().unwrap(), "--kind", "fps"])
        .status_in(EXIT_CODES)
        .run();
    assert_eq!(code, 2, "a --mem dump is not an fps dump: {stderr}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn no_extractor_panics_on_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        use dwpipe::probe::{hidumper, hypium, layout::{Layout, Rect}, screenshot};
        let text = String::from_utf8_lossy(&bytes);
        let _ = Layout::parse(&bytes).map(|l| l.report(None, 3.25));
        let _ = hidumper::fps_blocks(&text);
        let _ = hidumper::fps_count(&text);
        let _ = hidumper::screens(&text);
        let _ = hidumper::memory_total(&text);
        let _ = hidumper::windows(&text);
        let _ = dwpipe::device::virtual_pixel_ratio(&text);
        let _ = hypium::parse(&text);
        let _ = screenshot::Image::decode(&bytes).map(|i| screenshot::contrast(&i, Rect { l: 0, t: 0, r: 10, b: 10 }));
    }
}
