//! `dwpipe compare BASELINE CANDIDATE`: a candidate audit held against a baseline audit of the
//! same device, criterion by criterion; `compare.json`, `compare.md`, `compare-junit.xml` and
//! `compare.html` in `--out`.

use std::path::PathBuf;

use crate::compare::{Given, from_files, read_audit};
use crate::diagnostic::{Diagnostic, chain};
use crate::exit_code;
use crate::history::{History, Recorder, Store, app_of};
use crate::output::relative_to;
use crate::report::publish;
use crate::schema::Comparison;

use super::error::Error;
use super::print;
use super::shared::{Json, StoreParser, SummaryMd};
use super::{Edge, Run};
use crate::cli::Path;

impl Run for CompareArgs {
    fn json(&self) -> bool {
        self.output.json
    }

    fn execute(self, _: &Edge) -> Result<i32, Error> {
        run(&self)
    }
}

/// Exit 0 for same or improved, 1 for regressed or inconclusive.
fn run(args: &CompareArgs) -> Result<i32, Error> {
    let (baseline, candidate) = arms(args)?;
    // A history that cannot be used is refused before anything is written.
    let recorder = args.history.as_ref().map(Recorder::at);
    if let Some(recorder) = &recorder {
        recorder.prepare()?;
    }
    let out = crate::output::default_out(args.out.as_deref(), "compare");
    std::fs::create_dir_all(&out).map_err(Error::folder(&out))?;
    let lock = args.lock.as_ref().map(|lock| relative_to(lock, &out));
    let (comparison, frozen) = from_files(
        &out,
        (&baseline, &relative_to(&baseline, &out)),
        (&candidate, &relative_to(&candidate, &out)),
        lock.as_deref(),
        Given::Rebuilt,
    )?;
    print::diagnostics(&frozen.found);
    let written = publish::comparison(&comparison, &out)?;
    let unrecorded = recorder.and_then(|r| r.record(&written[0], None).err());
    if args.output.json {
        print::json(&comparison);
    } else {
        print_comparison(&comparison);
        let paths: Vec<String> = written.iter().map(|p| p.display().to_string()).collect();
        print::out_line(
            &print::Line::default()
                .plain("compare: ")
                .verdict(comparison.verdict.as_str().to_uppercase())
                .plain(format!(
                    " — {}; wrote {}",
                    crate::text::counted(comparison.criteria.len(), "criterion", "criteria"),
                    paths.join(", ")
                )),
        );
    }
    if let Some(path) = &args.summary.summary_md {
        let page = super::summary_md::page(&written, crate::schema::files::COMPARISON_HTML);
        super::summary_md::add(
            path,
            &crate::report::summary::comparison(&comparison, page.as_deref()),
        )?;
    }
    // The comparison stands; the history's failure is the environment's.
    if let Some(e) = &unrecorded {
        print::note(&format!(
            "{} was not recorded in the history: {}",
            written[0].display(),
            chain(e)
        ));
    }
    Ok(exit_code::unless_unrecorded(
        exit_code::of_regression(comparison.verdict),
        unrecorded.is_some(),
    ))
}

/// The baseline and the candidate: both given, or the baseline taken from the history.
fn arms(args: &CompareArgs) -> Result<(PathBuf, PathBuf), Error> {
    let usage = |message: &str| {
        Error::from(
            Diagnostic::error("E_COMPARE_USAGE", message)
                .fix("`dwpipe compare BASELINE CANDIDATE`, or `dwpipe compare --against last-pass CANDIDATE`"),
        )
    };
    match (args.against, args.audits.as_slice()) {
        (None, [baseline, candidate]) => Ok((baseline.clone(), candidate.clone())),
        (None, [_]) => Err(usage("one audit given: a comparison needs a baseline")),
        (Some(_), [_, _]) => Err(usage(
            "--against takes the baseline from the history: give only the candidate",
        )),
        (Some(Against::LastPass), [candidate]) => {
            let store = args
                .history
                .clone()
                .unwrap_or_else(|| crate::history::project_store(Path::new("")));
            let report = read_audit(candidate, "E_COMPARE_INVALID")?;
            let app = app_of(&report, candidate)?;
            let device = report.device.as_ref();
            let (model, software) = (
                device.and_then(|d| d.model.as_deref()),
                device.and_then(|d| d.software_version.as_deref()),
            );
            let mut history = History::open(&store)?;
            let baseline = history
                .last_pass(&app, (model, software), (&report, candidate))
                ?
                .ok_or_else(|| {
                    Error::from(
                        Diagnostic::error(
                            "E_HISTORY_NO_BASELINE",
                            format!(
                                "the history `{}` has no passing audit of {app} on {} ({}) made on a device",
                                store,
                                model.unwrap_or("an unknown model"),
                                software.unwrap_or("unknown software")
                            ),
                        )
                        .fix("record the last release's audit first (`dwpipe audit --history PATH`, or `dwpipe history import RUN`); replays never count"),
                    )
                })?;
            // Which audit was chosen is said, not only written into the comparison.
            print::note(&format!(
                "baseline: {}, the last passing audit of {app} on {} in {}",
                baseline.display(),
                model.unwrap_or("this model"),
                store
            ));
            Ok((baseline, candidate.clone()))
        }
        _ => Err(usage("a comparison takes two audits")),
    }
}

/// The comparison's diagnostics and a row per criterion.
pub(super) fn print_comparison(comparison: &Comparison) {
    print::diagnostics(&comparison.diagnostics);
    for c in &comparison.criteria {
        let delta = crate::report::numbers::delta(c.delta, c.delta_pct, c.unit.as_deref());
        print::out_line(
            &print::Line::default()
                .plain(format!("  {:<8} {:<6} ", c.criterion_id, c.weight.as_str()))
                .verdict(format!("{:<12}", c.verdict.as_str()))
                .plain(format!(" {delta:>20}  {}", c.reason)),
        );
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum Against {
    /// The latest passing audit of the same app, device model and software version.
    LastPass,
}

pub(super) const COMPARE_HELP: &str = "For every criterion measured in both audits by the same probe: n and the median of each arm, the median delta with a 95% percentile-bootstrap interval (10,000 resamples, ChaCha8 seeded by the lock and the criterion: a re-run gives the same numbers), p = min(Mann-Whitney U, Kolmogorov-Smirnov), and an outcome: `different` (p <= 0.01 and the median moved at least the floor), `same` (the whole interval inside +-floor), `unknown` otherwise. The assertion's direction makes that regressed, improved, same or inconclusive; criteria without one (equals, pass/fail) are compared by their verdicts. The floor is the criterion's `regression: { floor: 20ms | 5% }`, else the pack's, else a default per unit (20 ms, 1 ms/s, 10 MB, 1 fps, 0.5 vp, 0.1 ratio). Audits of a different device model, software version or refresh rate are refused. Writes compare.json, compare.md, compare-junit.xml and compare.html into --out. Exit 0 for same or improved, 1 for regressed or inconclusive, 2 when the audits cannot be compared.";

#[derive(Debug, clap::Args)]
pub(super) struct CompareArgs {
    /// The baseline audit (audit-<n>.json of the last release) and the candidate audit
    /// (audit-<n>.json of this build); only the candidate with --against.
    #[arg(value_name = "AUDIT", num_args = 1..=2, required = true)]
    pub(super) audits: Vec<PathBuf>,
    /// Take the baseline from the history: `last-pass` is the latest passing audit (on a
    /// device, never a replay) of the same app on the same device model and software version.
    #[arg(long, value_enum, value_name = "WHICH")]
    pub(super) against: Option<Against>,
    /// The history --against reads and the comparison is recorded in (an SQLite file, or a
    /// postgres:// URL).
    #[arg(long, value_name = "PATH|URL", value_parser = StoreParser)]
    pub(super) history: Option<Store>,
    /// The lock whose criteria decide directions and floors (default: the one the candidate names).
    #[arg(long = "pack", value_name = "LOCK")]
    pub(super) lock: Option<PathBuf>,
    /// Folder for compare.json, compare.md, compare-junit.xml and compare.html (default: a new
    /// .dwpipe/compare-<time>/).
    #[arg(long)]
    pub(super) out: Option<PathBuf>,
    #[command(flatten)]
    pub(super) summary: SummaryMd,
    #[command(flatten)]
    pub(super) output: Json,
}
