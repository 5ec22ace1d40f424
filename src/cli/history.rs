//! `dwpipe history`: the measurements recorded in the history, oldest first, where each
//! criterion's series shifted (`--changes`), and `history import` of runs made elsewhere.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::diagnostic::Diagnostic;
use crate::history::changes::{Change, changes};
use crate::history::{Filter, History, Point, Recorder};

use super::args::{HistoryArgs, HistoryCommand};
use super::error::Error;
use super::print;

/// The points `--json` prints.
#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct Series<'a> {
    format_version: u32,
    points: &'a [Point],
}

/// A change point as it is printed.
#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct Shift<'a> {
    criterion: &'a str,
    device_model: Option<&'a str>,
    /// The first audit after the change.
    run: i64,
    recorded_at: &'a str,
    report: &'a str,
    /// The series' mean before and after, in the unit.
    before: f64,
    after: f64,
    unit: Option<&'a str>,
    p: f64,
}

/// The shifts `--json --changes` prints.
#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct Shifts<'a> {
    format_version: u32,
    changes: &'a [Shift<'a>],
}

/// Exit 0: the history was read (or the runs imported).
pub(super) fn run(args: &HistoryArgs) -> Result<i32, Error> {
    if let Some(HistoryCommand::Import { runs }) = &args.command {
        if args.criterion.is_some()
            || args.device_model.is_some()
            || args.since.is_some()
            || args.changes
        {
            return Err(Diagnostic::error(
                "E_HISTORY_USAGE",
                "--criterion, --device-model, --since and --changes choose what `dwpipe history` shows, not what `import` records",
            )
            .fix("`dwpipe history --history PATH import RUN…`, then query")
            .into());
        }
        let imported = Recorder::at(&args.history).import(runs)?;
        if args.json {
            print::json(&imported);
        } else {
            print::out(&format!(
                "imported {} audit(s) and {} comparison(s) into {}; {} already there",
                imported.audits,
                imported.comparisons,
                args.history.display(),
                imported.known
            ));
        }
        return Ok(0);
    }
    if !args.history.is_file() {
        return Err(Diagnostic::error(
            "E_HISTORY_OPEN",
            format!("there is no history at `{}`", args.history.display()),
        )
        .fix("`deliver` records into .dwpipe/history.sqlite beside dwpipe.yaml; pass --history PATH for another")
        .into());
    }
    let history = History::open(&args.history).map_err(Diagnostic::from)?;
    let filter = Filter {
        criterion: args.criterion.clone(),
        model: args.device_model.clone(),
        since: args.since.clone(),
    };
    let points = history.series(&filter).map_err(Diagnostic::from)?;
    if args.changes {
        let shifts = shifts(&points);
        if args.json {
            print::json(&Shifts {
                format_version: crate::format::HISTORY,
                changes: &shifts,
            });
        } else {
            print_shifts(&shifts, &points);
        }
    } else if args.json {
        print::json(&Series {
            format_version: crate::format::HISTORY,
            points: &points,
        });
    } else {
        print_points(&points);
    }
    Ok(0)
}

/// Every criterion's series per device model, and where each shifted.
fn shifts(points: &[Point]) -> Vec<Shift<'_>> {
    let mut series: BTreeMap<(&str, Option<&str>), Vec<&Point>> = BTreeMap::new();
    for point in points.iter().filter(|p| p.value.is_some()) {
        series
            .entry((point.criterion.as_str(), point.model.as_deref()))
            .or_default()
            .push(point);
    }
    let mut shifts = Vec::new();
    for ((criterion, model), series) in series {
        let values: Vec<f64> = series.iter().filter_map(|p| p.value).collect();
        let found = changes(&values);
        let mut bounds: Vec<usize> = found.iter().map(|c| c.index).collect();
        bounds.insert(0, 0);
        bounds.push(values.len());
        for (i, Change { index, p, .. }) in found.iter().enumerate() {
            let mean = |range: std::ops::Range<usize>| {
                values[range.clone()].iter().sum::<f64>() / range.len() as f64
            };
            let first = series[*index];
            shifts.push(Shift {
                criterion,
                device_model: model,
                run: first.run,
                recorded_at: &first.recorded_at,
                report: &first.report,
                before: mean(bounds[i]..*index),
                after: mean(*index..bounds[i + 2]),
                unit: first.unit.as_deref(),
                p: *p,
            });
        }
    }
    shifts
}

fn print_points(points: &[Point]) {
    print::out(&format!(
        "  {:<20} {:<8} {:>12} {:<10} {:<10} {:<12} report",
        "recorded", "criterion", "value", "result", "model", "serial"
    ));
    for p in points {
        let value = p.value.map_or_else(
            || "—".to_owned(),
            |v| format!("{v:.1}{}", p.unit.as_deref().unwrap_or("")),
        );
        print::out(&format!(
            "  {:<20} {:<8} {:>12} {:<10} {:<10} {:<12} {}{}",
            p.recorded_at,
            p.criterion,
            value,
            p.verdict,
            p.model.as_deref().unwrap_or("—"),
            p.serial,
            p.report,
            if p.replay { " (replay)" } else { "" }
        ));
    }
    print::out(&format!("{} measurement(s)", points.len()));
}

fn print_shifts(shifts: &[Shift<'_>], points: &[Point]) {
    for s in shifts {
        let unit = s.unit.unwrap_or("");
        print::out(&format!(
            "  {} on {}: changed from the audit of {} ({}): mean {:.1}{unit} → {:.1}{unit} (p = {:.4})",
            s.criterion,
            s.device_model.unwrap_or("an unknown model"),
            s.recorded_at,
            s.report,
            s.before,
            s.after,
            s.p
        ));
    }
    print::out(&format!(
        "{} change point(s) in {} measurement(s) (E-Divisive with means, p ≤ 0.05, 100 permutations)",
        shifts.len(),
        points.len()
    ));
}
