//! `dwpipe inspect …`: what one extractor sees in one file.

use std::path::Path;

use crate::diagnostic::Diagnostic;
use crate::exit_code;
use crate::input::{MAX_REPORT_BYTES, open_input, read_bounded};
use crate::probe::layout::{Layout, Rect};
use crate::probe::screenshot::{self, Image};
use crate::probe::{hidumper, hitrace, hypium};

use super::args::{DumpKind, InspectCommand, SmartperfKind};
use super::error::Error;
use super::print;
use super::{Edge, Run};

impl Run for InspectCommand {
    fn json(&self) -> bool {
        match self {
            InspectCommand::Trace { output, .. }
            | InspectCommand::Layout { output, .. }
            | InspectCommand::Hidumper { output, .. }
            | InspectCommand::Smartperf { output, .. }
            | InspectCommand::Cpu { output, .. }
            | InspectCommand::State { output, .. }
            | InspectCommand::Screenshot { output, .. }
            | InspectCommand::Hypium { output, .. } => output.json,
        }
    }

    fn execute(self, _: &Edge) -> Result<i32, Error> {
        let json = self.json();
        match self {
            InspectCommand::Trace { file, bundle, .. } => trace(&file, bundle, json),
            InspectCommand::Layout {
                file, vpr, bundle, ..
            } => layout(&file, vpr, bundle.as_deref(), json),
            InspectCommand::Hidumper { file, kind, .. } => hidumper_dump(&file, kind, json),
            InspectCommand::Smartperf { file, kind, .. } => smartperf(&file, kind, json),
            InspectCommand::Cpu { file, .. } => proc_cpu(&file, json),
            InspectCommand::State { file, .. } => state(&file, json),
            InspectCommand::Screenshot { file, bounds, .. } => screenshot(&file, &bounds, json),
            InspectCommand::Hypium { file, .. } => hypium_output(&file, json),
        }
    }
}

/// `inspect trace FILE [--bundle B]`.
fn trace(file: &Path, bundle: Option<String>, json: bool) -> Result<i32, Error> {
    const FIX: &str =
        "pass a hitrace text file (hitrace … -o /data/local/tmp/x.ftrace, then hdc file recv)";
    // `-` is standard input, the one way to pass a pipe: it streams like a file, bounded by
    // the longest line a trace may have.
    let stdin = file == Path::new("-");
    let shown = if stdin {
        "standard input".to_owned()
    } else {
        format!("`{}`", file.display())
    };
    let analyzed = if stdin {
        hitrace::analyze(std::io::stdin().lock(), bundle)
    } else {
        let reader =
            open_input(file, "a trace").map_err(|e| e.diagnostic("E_INSPECT_UNREADABLE", FIX))?;
        hitrace::analyze(reader, bundle)
    };
    let report = analyzed.map_err(|e| {
        Diagnostic::error("E_INSPECT_NOT_A_TRACE", format!("{shown}: {e}")).fix(FIX)
    })?;
    if report.events == 0 {
        // An empty, binary or unrelated file is not a trace with nothing in it.
        let what = match report.lines {
            0 => "is empty".to_owned(),
            n => format!("holds no trace event in its {n} line(s)"),
        };
        return Err(Diagnostic::error(
            "E_INSPECT_NOT_A_TRACE",
            format!("{shown} {what}: not a hitrace text trace"),
        )
        .fix(FIX)
        .into());
    }
    if json {
        print::json(&report);
        return Ok(exit_code::OK);
    }
    let m = &report.markers;
    print::out(&format!(
        "{}: {} events in {} lines ({} unparsed)\nmarkers: {} begin, {} end, {} async begin, {} async end, {} counter, {} other\nslices: {} matched, {} orphan ends, {} still open, max depth {}",
        if stdin {
            "standard input".into()
        } else {
            file.display().to_string()
        },
        report.events,
        report.lines,
        report.unparsed_lines,
        m.begin,
        m.end,
        m.async_begin,
        m.async_end,
        m.counter,
        m.other,
        report.slices,
        report.orphan_ends,
        report.open_begins,
        report.max_depth,
    ));
    let f = &report.frames;
    let show = |v: Option<f64>| v.map_or_else(|| "-".to_owned(), |v| format!("{v}"));
    print::out(&format!(
        "frames: {} presented ({} ends), {} fps, p50 {} ms, p95 {} ms, max {} ms, budget {} ms ({}), jank {} ms/s ({} dropped)",
        f.count,
        f.present_marker
            .as_deref()
            .unwrap_or("Waiting for Present Fence"),
        show(f.fps),
        show(f.p50_ms),
        show(f.p95_ms),
        show(f.max_ms),
        show(f.budget_ms),
        f.budget_source.unwrap_or("-"),
        show(f.jank_ms_per_s),
        f.dropped_frames,
    ));
    match &report.cold_start {
        None => print::out(&format!(
            "cold start: no whole launch in this trace: {}",
            report.cold_start_missing.as_deref().unwrap_or("unknown")
        )),
        Some(cold) => {
            print::out(&format!(
                "cold start: {} ms, from `{}` to the end of the first present fence",
                cold.ms, cold.start_marker
            ));
            for phase in &cold.phases {
                print::out(&format!(
                    "  {:>9.3} ms  +{:>9.3} ms  {}  ({})",
                    phase.start_ms, phase.duration_ms, phase.name, phase.marker
                ));
            }
        }
    }
    if let Some(offset) = report.vsync_clock_offset_ms {
        print::out(&format!(
            "vsync clock offset: trace clock − CLOCK_MONOTONIC = {offset} ms"
        ));
    }
    Ok(exit_code::OK)
}

fn read(file: &Path, what: &'static str) -> Result<Vec<u8>, Error> {
    read_bounded(file, MAX_REPORT_BYTES, what)
        .map_err(|e| Error::from(e.diagnostic("E_INSPECT_UNREADABLE", "check the path")))
}

fn invalid(file: &Path, message: impl std::fmt::Display, fix: &str) -> Error {
    Diagnostic::error(
        "E_INSPECT_INVALID",
        format!("{}: {message}", file.display()),
    )
    .fix(fix)
    .into()
}

/// `inspect cpu FILE`: the load over the window two reads of /proc hold.
fn proc_cpu(file: &Path, json: bool) -> Result<i32, Error> {
    let bytes = read(file, "two reads of /proc")?;
    let text = String::from_utf8_lossy(&bytes).replace('\r', "");
    let cpu = crate::probe::proc_cpu::proc_cpu(&text).map_err(|e| {
        invalid(
            file,
            e,
            "pass an audit's cpu.txt: /proc/uptime, /proc/<pid>/stat and /proc/stat read twice, apart by __DWPIPE_CPU_AGAIN",
        )
    })?;
    if json {
        print::json(&cpu);
    } else {
        print::out(&format!("{}:\ncpu: {}", file.display(), cpu.evidence()));
    }
    Ok(exit_code::OK)
}

/// `inspect state FILE`: every reading of the device's state, and why one was not.
fn state(file: &Path, json: bool) -> Result<i32, Error> {
    let bytes = read(file, "a device state file")?;
    let text = String::from_utf8_lossy(&bytes).replace('\r', "");
    let state = crate::audit::parse_state(&text);
    if json {
        print::json(&state);
    } else {
        print::out(&format!("{}:\nstate: {}", file.display(), state.summary()));
        for why in &state.unread {
            print::out(&format!(
                "  not read: {}",
                crate::text::one_line(why, crate::text::LINE)
            ));
        }
    }
    Ok(exit_code::OK)
}

/// `inspect layout FILE [--vpr X] [--bundle B]`.
fn layout(file: &Path, vpr: Option<f64>, bundle: Option<&str>, json: bool) -> Result<i32, Error> {
    let (vpr, unit) = match vpr {
        Some(vpr) => (vpr, "vp"),
        None => (1.0, "px"),
    };
    if !(vpr.is_finite() && vpr > 0.0) {
        return Err(invalid(
            file,
            "--vpr must be a positive number",
            "pass the device's VirtualPixelRatio, like 3.25",
        ));
    }
    let layout = Layout::parse(&read(file, "a layout dump")?)
        .map_err(|e| invalid(file, e, "pass the JSON written by `uitest dumpLayout`"))?;
    let mut report = layout.report(bundle, vpr);
    report.unit = unit;
    if json {
        print::json(&report);
        return Ok(exit_code::OK);
    }
    print::out(&format!(
        "{}: {} nodes, windows: {}\napp window: {} ({})\nclickable: {}, unlabeled: {}",
        file.display(),
        report.nodes,
        report.windows.join(", "),
        report.app_window.as_deref().unwrap_or("none found"),
        if unit == "vp" {
            format!("density {vpr} px/vp")
        } else {
            "density not given: sizes in px; pass --vpr for vp".to_owned()
        },
        report.clickable,
        if report.unlabeled_clickables.is_empty() {
            "none".to_owned()
        } else {
            report.unlabeled_clickables.join(", ")
        },
    ));
    for target in &report.touch_targets {
        let hidden = match target.visible_vp {
            Some((w, h)) => format!("  (partly hidden: {w:.3} × {h:.3} {unit} visible)"),
            None => String::new(),
        };
        print::out(&format!(
            "  {:>8.3} × {:<8.3} {unit}  {}{hidden}",
            target.width_vp, target.height_vp, target.selector
        ));
    }
    Ok(exit_code::OK)
}

/// `inspect hidumper FILE --kind K`: what the dump says, for people (or as JSON with `--json`).
/// `inspect smartperf FILE --kind gpu|power`.
fn smartperf(file: &Path, kind: SmartperfKind, json: bool) -> Result<i32, Error> {
    let bytes = read(file, "an SP_daemon output")?;
    let text = String::from_utf8_lossy(&bytes).replace('\r', "");
    let fix = "pass the output of `SP_daemon -N <n> -PKG <bundle> -g` (gpu) or `-p` (power)";
    let bad = |e: crate::probe::sp_daemon::SpError| invalid(file, e, fix);
    let (value, line) = match kind {
        SmartperfKind::Gpu => {
            let gpu = crate::probe::sp_daemon::gpu(&text).map_err(bad)?;
            let line = format!(
                "gpu: {}% load at {} MHz over {} sample(s)",
                gpu.load_percent, gpu.frequency_mhz, gpu.samples
            );
            (serde_json::json!(gpu), line)
        }
        SmartperfKind::Power => {
            let power = crate::probe::sp_daemon::power(&text).map_err(bad)?;
            let line = format!(
                "power: {} mW ({} mA at {} V) over {} sample(s)",
                power.milliwatts, power.current_ma, power.voltage_v, power.samples
            );
            (serde_json::json!(power), line)
        }
    };
    if json {
        print::json(&value);
    } else {
        print::out(&format!("{}:\n{line}", file.display()));
    }
    Ok(exit_code::OK)
}

fn hidumper_dump(file: &Path, kind: DumpKind, json: bool) -> Result<i32, Error> {
    let bytes = read(file, "a hidumper output")?;
    let text = String::from_utf8_lossy(&bytes).replace('\r', "");
    let fix = "pass the output of the hidumper command that --kind names";
    let bad = |e: hidumper::DumpError| invalid(file, e, fix);
    let (value, human): (serde_json::Value, Vec<String>) = match kind {
        DumpKind::Fps => {
            let summaries: Vec<_> = hidumper::fps_blocks(&text)
                .map_err(bad)?
                .iter()
                .map(|b| b.summary(None))
                .collect();
            let human = summaries
                .iter()
                .map(|s| {
                    format!(
                        "{}: {} frames over {} ms, {} fps, longest interval {} ms",
                        s.title,
                        s.frames,
                        s.window_ms,
                        shown(s.fps),
                        shown(s.max_interval_ms)
                    )
                })
                .collect();
            (serde_json::json!(summaries), human)
        }
        DumpKind::FpsCount => {
            let counts = hidumper::fps_count(&text).map_err(bad)?;
            let human = counts
                .iter()
                .map(|(hz, n)| format!("{hz} Hz: {n} frames"))
                .collect();
            let value = counts
                .iter()
                .map(|(hz, n)| serde_json::json!({"refresh_hz": hz, "frames": n}))
                .collect::<Vec<_>>();
            (serde_json::json!(value), human)
        }
        DumpKind::Screen => {
            let screens = hidumper::screens(&text).map_err(bad)?;
            let size =
                |s: Option<(u32, u32)>| s.map_or("unknown".to_owned(), |(w, h)| format!("{w}×{h}"));
            let human = screens
                .iter()
                .map(|s| {
                    format!(
                        "screen {}: render {} px, physical {} px, {} Hz, {}{}",
                        s.id,
                        size(s.render),
                        size(s.physical),
                        shown(s.refresh_hz),
                        s.power.as_deref().unwrap_or("power unknown"),
                        if s.is_virtual { ", virtual" } else { "" }
                    )
                })
                .collect();
            (serde_json::json!(screens), human)
        }
        DumpKind::Density => {
            hidumper::require_block(&text, "DisplayManagerService").map_err(bad)?;
            let vpr = crate::device::virtual_pixel_ratio(&text).ok_or_else(|| {
                let why = if text.contains("The arguments are illegal") {
                    "the dumper refused its arguments (the legacy DisplayManagerService takes two: ask `-a '-d 0'`, which prints `VPR:`)"
                } else {
                    "no VirtualPixelRatio, Density or VPR field"
                };
                invalid(file, why, fix)
            })?;
            (
                serde_json::json!({"virtual_pixel_ratio": vpr, "unit": "px/vp"}),
                vec![format!("density: {vpr} px/vp")],
            )
        }
        DumpKind::Mem => {
            let total = hidumper::memory_total(&text).map_err(bad)?;
            let human = vec![format!("PSS total: {} kB", total.pss_kb)];
            (serde_json::json!(total), human)
        }
        DumpKind::Windows => {
            let table = hidumper::windows(&text).map_err(bad)?;
            let mut human = vec![format!(
                "{} windows, focus: {}",
                table.windows.len(),
                shown(table.focus)
            )];
            human.extend(table.windows.iter().map(|w| {
                let [x, y, width, height] = w.rect;
                format!(
                    "  {:<20} win {:<6} pid {:<7} z {:<3} [{x}, {y}, {width}×{height}]{}",
                    w.name,
                    w.id,
                    w.pid,
                    w.z_order,
                    if w.foreground { "" } else { "  background" }
                )
            }));
            human.extend(table.warnings.iter().map(|w| format!("warning: {w}")));
            (serde_json::json!(table), human)
        }
        DumpKind::Battery => {
            let battery = hidumper::battery(&text).map_err(bad)?;
            let mut human = vec![format!(
                "battery: {}, {}, plugged {}, {}",
                battery
                    .capacity_percent
                    .map_or_else(|| "charge unknown".to_owned(), |p| format!("{p}%")),
                shown(battery.charging),
                shown(battery.plugged),
                battery
                    .temperature_c
                    .map_or_else(|| "temperature unknown".to_owned(), |t| format!("{t} °C"))
            )];
            human.extend(
                battery
                    .unknown
                    .iter()
                    .map(|why| format!("  unknown: {why}")),
            );
            (serde_json::json!(battery), human)
        }
        DumpKind::Power => {
            let power = hidumper::power_state(&text).map_err(bad)?;
            let human = vec![format!(
                "power state: {}{}",
                power.state,
                power
                    .screen_off_timeout_ms
                    .map_or_else(String::new, |ms| format!(", screen off after {ms} ms"))
            )];
            (serde_json::json!(power), human)
        }
        DumpKind::Cpu => {
            let usage = hidumper::cpu_usage(&text).map_err(bad)?;
            let human = vec![
                format!("cpu: {}", usage.evidence),
                "  (hiview's last 10-second sample since 4.1, not a window of this call's: an audit reads /proc twice instead — `dwpipe inspect cpu`)".to_owned(),
            ];
            (serde_json::json!(usage), human)
        }
        DumpKind::Thermal => {
            let zones = hidumper::thermal_zones(&text).map_err(bad)?;
            let mut human: Vec<String> = zones
                .iter()
                .map(|z| format!("  {:<24} {}", z.zone, z.temperature))
                .collect();
            human.push(
                "  (ThermalService's last report: up to its driver's polling interval old)"
                    .to_owned(),
            );
            match crate::probe::sysfs::zones(&text) {
                Ok(live) => {
                    human.push("read live from sysfs:".to_owned());
                    human.extend(
                        live.iter()
                            .map(|z| format!("  {:<24} {} ({})", z.zone, z.temperature, z.node)),
                    );
                }
                Err(why) if text.contains(crate::probe::sysfs::MARKER) => {
                    human.push(format!("sysfs: not read: {why}"));
                }
                Err(_) => {}
            }
            (serde_json::json!(zones), human)
        }
    };
    if json {
        print::json(&value);
    } else {
        print::out(&format!("{}:", file.display()));
        for line in human {
            print::out(&line);
        }
    }
    Ok(exit_code::OK)
}

/// A value that may be unknown, for people.
fn shown<T: std::fmt::Display>(value: Option<T>) -> String {
    value.map_or_else(|| "unknown".to_owned(), |v| v.to_string())
}

/// `inspect screenshot FILE --box l,t,r,b`.
fn screenshot(file: &Path, bounds: &str, json: bool) -> Result<i32, Error> {
    let numbers: Vec<i64> = bounds
        .split(',')
        .filter_map(|n| n.trim().parse().ok())
        .collect();
    let [l, t, r, b] = numbers[..] else {
        return Err(invalid(
            file,
            format!("--box `{bounds}` is not l,t,r,b"),
            "give the box in px, like 48,200,600,300",
        ));
    };
    let image = Image::decode(&read(file, "a screenshot")?).map_err(|e| match e {
        screenshot::ScreenshotError::TooLarge { .. } => Error::from(
            Diagnostic::error("E_IMAGE_TOO_LARGE", format!("{}: {e}", file.display()))
                .fix("pass a screenshot the device took (uitest screenCap)"),
        ),
        e => invalid(file, e, "pass a PNG or JPEG screenshot"),
    })?;
    let measured = screenshot::contrast(&image, Rect { l, t, r, b }).map_err(|e| {
        invalid(
            file,
            e,
            "choose a box inside the image that holds text and its background",
        )
    })?;
    if json {
        print::json(&measured);
        return Ok(exit_code::OK);
    }
    print::diagnostics(
        &measured
            .warnings
            .iter()
            .map(|w| Diagnostic::warning("W_SCREENSHOT_LOSSY", w.clone()))
            .collect::<Vec<_>>(),
    );
    print::out(&format!(
        "contrast {}:1 — foreground {} on background {} ({} px in [{},{}][{},{}])",
        measured.ratio,
        measured.foreground,
        measured.background,
        measured.pixels,
        measured.bounds.l,
        measured.bounds.t,
        measured.bounds.r,
        measured.bounds.b
    ));
    Ok(exit_code::OK)
}

/// `inspect hypium FILE`.
fn hypium_output(file: &Path, json: bool) -> Result<i32, Error> {
    let text = String::from_utf8_lossy(&read(file, "an aa test output")?).into_owned();
    let report = hypium::parse(&text).map_err(|e| {
        invalid(
            file,
            e,
            "pass the whole output of `aa test … OpenHarmonyTestRunner`",
        )
    })?;
    if json {
        print::json(&report);
        return Ok(exit_code::OK);
    }
    let s = report.summary;
    print::out(&format!(
        "{}: {} — {} run, {} pass, {} failure, {} error, {} ignored",
        file.display(),
        report.verdict,
        s.run,
        s.pass,
        s.failure,
        s.error,
        s.ignore
    ));
    for case in report.cases.iter().filter(|c| c.result != "pass") {
        print::out(&format!("  {}: {}.{}", case.result, case.class, case.test));
    }
    Ok(exit_code::OK)
}
