//! `dwpipe history`: the measurements recorded in the history, oldest first, where each
//! criterion's series shifted (`--changes`), and `history import` of runs made elsewhere.

use crate::diagnostic::Diagnostic;
use crate::history::{Filter, History, Recorder, Store, Window, shifts};
use crate::schema::{Point, Searched, SeriesOutput, Shift, ShiftsOutput};
use crate::text::{CELL, LINE, one_line};

use super::args::{HistoryArgs, HistoryCommand};
use super::error::Error;
use super::print;
use super::{Edge, Run};

impl Run for HistoryArgs {
    fn json(&self) -> bool {
        self.json
    }

    fn execute(self, _: &Edge) -> Result<i32, Error> {
        run(&self)
    }
}

/// Exit 0: the history was read (or the runs imported, or it was pruned).
fn run(args: &HistoryArgs) -> Result<i32, Error> {
    if let Some(HistoryCommand::Prune {
        older_than,
        keep_last,
    }) = &args.command
    {
        let (before, keep) = (*older_than, *keep_last);
        return prune(args, before, keep);
    }
    if let Some(HistoryCommand::Import { runs }) = &args.command {
        no_query_options(
            args,
            "what `import` records",
            "`dwpipe history --history PATH import RUN…`, then query",
        )?;
        let imported = Recorder::at(&args.history).import(runs)?;
        if args.json {
            print::json(&imported);
        } else {
            for refused in &imported.refused {
                // What a report said is data: shown on its one line, escaped.
                print::note(&format!(
                    "not imported: {}: {}",
                    one_line(&refused.file, LINE),
                    one_line(&refused.reason, LINE)
                ));
            }
            let refused = match imported.refused.len() {
                0 => String::new(),
                n => format!("; {n} not imported"),
            };
            let unverified = match imported.unverified {
                0 => String::new(),
                n => format!(
                    " ({n} without their evidence: re-gated from their own readings, unverified, never a baseline)"
                ),
            };
            print::out(&format!(
                "imported {} audit(s){unverified} and {} comparison(s) into {}; {} already there{refused}",
                imported.audits, imported.comparisons, args.history, imported.known,
            ));
        }
        // What could not be read is the input's fault; the rest is recorded.
        return Ok(if imported.refused.is_empty() {
            crate::exit_code::OK
        } else {
            crate::exit_code::INVALID_INPUT
        });
    }
    existing(
        &args.history,
        "`deliver` records into .dwpipe/history.sqlite beside dwpipe.yaml; pass --history PATH (or postgres://…) for another",
    )?;
    let mut history = History::open(&args.history)?;
    let filter = Filter {
        criterion: args.criterion.clone(),
        model: args.device_model.clone(),
        since: args.since.clone(),
        latest: None,
    };
    let points = history.series(&filter)?;
    if args.changes {
        let window = args.window.unwrap_or(Window::DEFAULT);
        let (shifts, searched) = shifts(&points, window);
        if args.json {
            print::json(&ShiftsOutput {
                format_version: crate::format::HISTORY,
                changes: &shifts,
                window: match window {
                    Window::Last(n) => Some(n),
                    Window::All => None,
                },
                series: &searched,
            });
        } else {
            print_shifts(&shifts, &searched, window);
        }
    } else if args.json {
        print::json(&SeriesOutput {
            format_version: crate::format::HISTORY,
            points: &points,
        });
    } else {
        print_points(&points);
    }
    Ok(0)
}

/// Refuses the options that choose what `dwpipe history` shows when a subcommand that is
/// not a query (`import`, `prune`) is given them: `not_what` names what they do not choose.
fn no_query_options(args: &HistoryArgs, not_what: &str, fix: &str) -> Result<(), Error> {
    if args.criterion.is_some()
        || args.device_model.is_some()
        || args.since.is_some()
        || args.changes
    {
        return Err(Diagnostic::error(
            "E_HISTORY_USAGE",
            format!("--criterion, --device-model, --since and --changes choose what `dwpipe history` shows, not {not_what}"),
        )
        .fix(fix)
        .into());
    }
    Ok(())
}

/// `history prune`: what it deleted, and what it kept.
fn prune(
    args: &HistoryArgs,
    older_than: Option<std::time::Duration>,
    keep_last: Option<u32>,
) -> Result<i32, Error> {
    no_query_options(
        args,
        "what `prune` deletes",
        "`dwpipe history prune --older-than 90d --keep-last 200`",
    )?;
    existing(
        &args.history,
        "pass --history PATH (or postgres://…) of the history to prune",
    )?;
    let before = older_than.map(|age| {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        crate::time::iso8601(now.saturating_sub(age).as_secs())
    });
    let mut history = History::open(&args.history)?;
    let pruned = history.prune(before.as_deref(), keep_last)?;
    if args.json {
        print::json(&pruned);
    } else {
        print::out(&format!(
            "pruned {} audit(s) and {} comparison(s) from {}; {} audit(s) kept",
            pruned.audits, pruned.comparisons, args.history, pruned.kept
        ));
    }
    Ok(crate::exit_code::OK)
}

/// The points as a table; what an imported report said (a criterion id, a model, a path) is
/// one bounded line in its cell.
fn print_points(points: &[Point]) {
    let mut rows: Vec<Vec<String>> = vec![
        [
            "recorded",
            "criterion",
            "value",
            "result",
            "model",
            "serial",
            "report",
        ]
        .map(str::to_owned)
        .to_vec(),
    ];
    for p in points {
        let value = p.value.map_or_else(
            || "—".to_owned(),
            |v| format!("{v:.1}{}", p.unit.as_deref().unwrap_or("")),
        );
        let mut report = p.report.clone();
        if p.replay {
            report.push_str(" (replay)");
        }
        rows.push(vec![
            p.recorded_at.clone(),
            p.criterion.clone(),
            value,
            p.verdict.clone(),
            p.model.clone().unwrap_or_else(|| "—".to_owned()),
            p.serial.clone(),
            report,
        ]);
    }
    for line in crate::text::columns(&rows) {
        print::out(&format!("  {line}"));
    }
    print::out(&format!("{} measurement(s)", points.len()));
}

/// The change points, then what was searched: the window, and the series it cut short.
fn print_shifts(shifts: &[Shift], searched: &[Searched], window: Window) {
    for s in shifts {
        let unit = one_line(s.unit.as_deref().unwrap_or(""), CELL);
        print::out(&format!(
            "  {} on {}: changed from the audit of {} ({}): mean {:.1}{unit} → {:.1}{unit} (p = {:.4})",
            one_line(&s.criterion, CELL),
            one_line(
                s.device_model.as_deref().unwrap_or("an unknown model"),
                CELL
            ),
            one_line(&s.recorded_at, CELL),
            one_line(&s.report, LINE),
            s.before,
            s.after,
            s.p
        ));
    }
    let measured: usize = searched.iter().map(|s| s.searched).sum();
    let scope = match window {
        Window::Last(n) => format!("the latest {n} audits of each series"),
        Window::All => "every audit of each series".to_owned(),
    };
    print::out(&format!(
        "{} change point(s) in {measured} measurement(s) of {} series, {scope} (E-Divisive with means, p ≤ 0.05, 100 permutations)",
        shifts.len(),
        searched.len(),
    ));
    let cut: Vec<&Searched> = searched.iter().filter(|s| s.searched < s.audits).collect();
    for s in &cut {
        print::out(&format!(
            "  {} on {}: searched the latest {} of {} audits, since {}",
            one_line(&s.criterion, CELL),
            one_line(
                s.device_model.as_deref().unwrap_or("an unknown model"),
                CELL
            ),
            s.searched,
            s.audits,
            one_line(s.since.as_deref().unwrap_or("-"), CELL),
        ));
    }
    if !cut.is_empty() {
        print::out("  (--window N searches more of each series, --window all every audit)");
    }
}

/// Refuses a history file that is not there (a read or a prune creates none), with `fix`; a
/// PostgreSQL history is the server's to say.
fn existing(history: &Store, fix: &str) -> Result<(), Error> {
    match history.file() {
        Some(file) if !file.is_file() => Err(Diagnostic::error(
            "E_HISTORY_OPEN",
            format!("there is no history at `{}`", file.display()),
        )
        .fix(fix)
        .into()),
        _ => Ok(()),
    }
}
