//! `inspect trace`: what the trace parser finds in one hitrace file (the cold start and its phases,
//! frames, response markers), streamed.

use super::super::error::Error;
use super::super::print;
use crate::diagnostic::Diagnostic;
use crate::exit_code;
use crate::input::open_input;
use crate::pack::{Of, Pick, Point, SectionValue, TraceName};
use crate::probe::hitrace::{self, PointReport};
use std::path::Path;

/// The trace points `--span`, `--section` and `--counter` ask about, every occurrence listed.
pub(super) fn questions(
    spans: &[String],
    sections: &[String],
    counters: &[String],
) -> Result<Vec<Point>, Error> {
    let name = |flag: &str, text: &str| {
        TraceName::parse(text).map_err(|why| {
            Error::from(
                Diagnostic::error("E_INSPECT_USAGE", format!("{flag} `{text}`: {why}"))
                    .fix("give a marker's name (without `H:`) or a `/regex/`"),
            )
        })
    };
    let mut points = Vec::new();
    for text in spans {
        let (from, to) = split_span(text).ok_or_else(|| {
            Error::from(
                Diagnostic::error(
                    "E_INSPECT_USAGE",
                    format!("--span `{text}` is not `FROM..TO`"),
                )
                .fix("write the two markers with `..` between them: --span 'feed requested..feed shown'"),
            )
        })?;
        points.push(Point::Span {
            from: name("--span", from)?,
            to: name("--span", to)?,
            pick: Pick::Each,
            of: Of::Max,
        });
    }
    for text in sections {
        points.push(Point::Section {
            name: name("--section", text)?,
            of: Of::Max,
            value: SectionValue::Duration,
        });
    }
    for text in counters {
        points.push(Point::Counter {
            name: name("--counter", text)?,
            of: Of::Max,
        });
    }
    Ok(points)
}

/// `FROM..TO` at its first `..` (after a `/regex/`'s closing slash when FROM is one).
fn split_span(text: &str) -> Option<(&str, &str)> {
    let at = if text.starts_with('/') {
        text.find("/..").map(|i| i + 1)?
    } else {
        text.find("..")?
    };
    let (from, to) = (&text[..at], &text[at + 2..]);
    (!from.is_empty() && !to.is_empty()).then_some((from, to))
}

/// `inspect trace FILE [--bundle B] [--span FROM..TO] [--section NAME] [--counter NAME]`.
pub(super) fn trace(
    file: &Path,
    bundle: Option<String>,
    points: &[Point],
    json: bool,
) -> Result<i32, Error> {
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
        hitrace::analyze(std::io::stdin().lock(), bundle, points)
    } else {
        let reader =
            open_input(file, "a trace").map_err(|e| e.diagnostic("E_INSPECT_UNREADABLE", FIX))?;
        hitrace::analyze(reader, bundle, points)
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
    for point in &report.points {
        show_point(point);
    }
    Ok(exit_code::OK)
}

/// One question's occurrences, each with its times and worth, and their summary.
fn show_point(point: &PointReport) {
    let found = &point.found;
    if found.count == 0 {
        print::out(&format!(
            "{}: none ({} start(s), {} end(s) seen)",
            point.question, found.starts, found.ends
        ));
        return;
    }
    let number = |v: Option<f64>| v.map_or_else(|| "-".to_owned(), |v| format!("{v:.3}"));
    print::out(&format!(
        "{}: {} occurrence(s): first {}, last {}, min {}, max {}, mean {}, sum {}",
        point.question,
        found.count,
        number(found.of(Of::First)),
        number(found.of(Of::Last)),
        number(found.of(Of::Min)),
        number(found.of(Of::Max)),
        number(found.of(Of::Mean)),
        number(found.of(Of::Sum)),
    ));
    for o in &found.shown {
        print::out(&format!(
            "  {:>14.6} s → {:>14.6} s  tid {:<7} {:.3}",
            o.begin_s, o.end_s, o.tid, o.value
        ));
    }
    if found.count > found.shown.len() as u64 {
        print::out(&format!(
            "  … {} more (the first {} are listed)",
            found.count - found.shown.len() as u64,
            found.shown.len()
        ));
    }
}
