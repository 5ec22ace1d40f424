//! `inspect trace`: what the trace parser finds in one hitrace file (the cold start and its phases,
//! frames, response markers), streamed.

use super::super::error::Error;
use super::super::print;
use crate::diagnostic::Diagnostic;
use crate::exit_code;
use crate::input::open_input;
use crate::probe::hitrace;
use std::path::Path;

/// `inspect trace FILE [--bundle B]`.
pub(super) fn trace(file: &Path, bundle: Option<String>, json: bool) -> Result<i32, Error> {
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
