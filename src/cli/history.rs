//! `dwpipe history`: the measurements recorded in the history, oldest first, where each
//! criterion's series shifted (`--changes`), and `history import` of runs made elsewhere.

use crate::diagnostic::Diagnostic;
use crate::history::{Filter, History, Recorder, Store, Window, shifts};
use crate::schema::{Point, Searched, SeriesOutput, Shift, ShiftsOutput};
use crate::text::{CELL, LINE, one_line};

use super::error::Error;
use super::print;
use super::shared::StoreParser;
use super::{Edge, Run};
use crate::input::parse_duration;
use std::path::PathBuf;
use std::time::Duration;

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
        serial: None,
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
                changes: shifts,
                window: match window {
                    Window::Last(n) => Some(n),
                    Window::All => None,
                },
                series: searched,
            });
        } else {
            print_shifts(&shifts, &searched, window);
        }
    } else if args.json {
        print::json(&SeriesOutput {
            format_version: crate::format::HISTORY,
            points,
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
    older_than: Option<Duration>,
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
        let value = crate::report::numbers::quantity(p.value, p.unit.as_deref());
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

pub(super) const HISTORY_HELP: &str = "The history is an SQLite file or a PostgreSQL database (a lab's, shared by its hosts: its leases live there too): every `deliver` run records its audits in .dwpipe/history.sqlite beside its runs (or where `history:` in dwpipe.yaml says); `audit`, `compare` and lab runs record when given --history PATH|URL. Listed per audit and criterion, oldest first: time, criterion, value, result, device model and software, serial, and the report. --changes runs E-Divisive with means (p <= 0.05, 100 permutations, seed 1234) over each criterion's series per device model and names the audit from which it shifted. `dwpipe history import RUN...` records run folders or reports made elsewhere (lab shards audited on other hosts); a report already recorded is skipped. Replayed audits are marked and never taken as a baseline by `compare --against last-pass`.";

#[derive(Debug, clap::Args)]
pub(super) struct HistoryArgs {
    /// The history (where `deliver` records, beside dwpipe.yaml): an SQLite file, or a
    /// postgres:// URL (the password from PGPASSWORD or ~/.pgpass, never in the URL).
    #[arg(
        long,
        value_name = "PATH|URL",
        value_parser = StoreParser,
        default_value = crate::history::PROJECT_HISTORY,
        global = true
    )]
    pub(super) history: Store,
    /// Only this criterion.
    #[arg(long, value_name = "ID")]
    pub(super) criterion: Option<String>,
    /// Only devices of this model (as `dwpipe devices` shows it, e.g. ALN-AL00).
    #[arg(long, value_name = "MODEL")]
    pub(super) device_model: Option<String>,
    /// Only audits recorded on or after this day (YYYY-MM-DD, UTC).
    #[arg(long, value_name = "DATE", value_parser = parse_day)]
    pub(super) since: Option<String>,
    /// Where each criterion's series shifted, instead of the series.
    #[arg(long)]
    pub(super) changes: bool,
    /// With --changes: the latest N audits of each series are searched (default 5000), or
    /// `all` of them; the output says what was searched.
    #[arg(long, value_name = "N|all", requires = "changes", value_parser = parse_window)]
    pub(super) window: Option<Window>,
    /// Print JSON on stdout.
    #[arg(long, global = true)]
    pub(super) json: bool,
    #[command(subcommand)]
    pub(super) command: Option<HistoryCommand>,
}

#[derive(Debug, clap::Subcommand)]
pub(super) enum HistoryCommand {
    /// Record runs made elsewhere: run folders (searched for audit-<n>.json and compare.json), report files, or a whole SQLite history (into PostgreSQL, say).
    Import {
        /// The runs.
        #[arg(value_name = "RUN", required = true)]
        runs: Vec<PathBuf>,
    },
    /// Delete old audits (their measurements and runs' values with them) and old comparisons.
    /// An audit goes when it is older than --older-than (if given) and not among the latest
    /// --keep-last of its series, its app on its device model (if given); the latest passing
    /// audit on a device of each app, model and software stays, the baseline `compare
    /// --against last-pass` takes. Comparisons go by --older-than alone.
    #[command(group(clap::ArgGroup::new("what").required(true).multiple(true).args(["older_than", "keep_last"])))]
    Prune {
        /// Audits and comparisons recorded longer ago than this (e.g. 90d, 12h).
        #[arg(long, value_name = "AGE", value_parser = parse_age)]
        older_than: Option<Duration>,
        /// Keep the latest N audits of each app on each device model.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
        keep_last: Option<u32>,
    },
}

fn parse_age(text: &str) -> Result<Duration, String> {
    match text.strip_suffix('d').map(str::parse::<u64>) {
        Some(Ok(days)) => Ok(Duration::from_secs(days.saturating_mul(86_400))),
        _ => parse_duration(text).map_err(|e| format!("{e}, or days like 90d")),
    }
}

fn parse_window(text: &str) -> Result<Window, String> {
    if text == "all" {
        return Ok(Window::All);
    }
    match text.parse::<usize>() {
        Ok(n) if n >= 4 => Ok(Window::Last(n)),
        _ => Err(format!(
            "`{text}` is not a window: a number of audits (at least 4) or `all`"
        )),
    }
}

fn parse_day(text: &str) -> Result<String, String> {
    let valid = text.len() == 10
        && text.bytes().enumerate().all(|(i, b)| match i {
            4 | 7 => b == b'-',
            _ => b.is_ascii_digit(),
        })
        && matches!(text[5..7].parse::<u32>(), Ok(1..=12))
        && matches!(text[8..10].parse::<u32>(), Ok(1..=31));
    if valid {
        Ok(text.to_owned())
    } else {
        Err(format!("`{text}` is not a day like 2026-12-01"))
    }
}
