//! `dwpipe inspect …`: what one extractor sees in one file.

use std::fs::File;
use std::path::Path;

use crate::diagnostic::Diagnostic;
use crate::error::Error;
use crate::exit_code;
use crate::probe::hitrace;

use super::print;

/// `inspect trace FILE [--bundle B]`.
pub(super) fn trace(file: &Path, bundle: Option<String>, json: bool) -> Result<i32, Error> {
    let unreadable = |e: std::io::Error| {
        Diagnostic::error(
            "E_INSPECT_UNREADABLE",
            format!("cannot read `{}`: {e}", file.display()),
        )
        .fix("pass a hitrace text file (hitrace … -o /data/local/tmp/x.ftrace, then hdc file recv)")
    };
    let reader = File::open(file).map_err(unreadable)?;
    let report = hitrace::analyze(reader, bundle).map_err(unreadable)?;
    if json {
        print::json(&report);
        return Ok(exit_code::OK);
    }
    let m = &report.markers;
    print::out(&format!(
        "{}: {} events in {} lines ({} unparsed)\nmarkers: {} begin, {} end, {} async begin, {} async end, {} counter, {} other\nslices: {} matched, {} orphan ends, {} still open, max depth {}",
        file.display(),
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
        None => print::out("cold start: no whole launch in this trace"),
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
