//! The history's queries on their own, as `benches/history_store.rs` times them on both
//! stores: what `dwpipe history` lists, the baseline `compare --against last-pass` takes, and
//! the trends an audit's page draws. Not an API: each opens the history as a command does.

use std::path::{Path, PathBuf};

use crate::diagnostic::chain;
use crate::history::{Filter, History, Recorder, Store, app_of};

fn open(history: &str) -> Result<Store, String> {
    Store::parse(history).map_err(|e| e.to_string())
}

/// The points of one criterion on one device model since `since`: how many.
pub fn series(
    history: &str,
    criterion: &str,
    model: &str,
    since: Option<&str>,
) -> Result<usize, String> {
    let mut history = History::open(&open(history)?).map_err(|e| chain(&e))?;
    let filter = Filter {
        criterion: Some(criterion.to_owned()),
        model: Some(model.to_owned()),
        serial: None,
        since: since.map(str::to_owned),
        latest: None,
    };
    Ok(history.series(&filter).map_err(|e| chain(&e))?.len())
}

/// The last passing audit of the app, model and software of the audit at `candidate`.
pub fn last_pass(history: &str, candidate: &Path) -> Result<Option<PathBuf>, String> {
    let report = crate::compare::read_audit(candidate, "E_BENCH").map_err(|d| d.message)?;
    let app = app_of(&report, candidate).map_err(|d| d.message)?;
    let device = report.device.as_ref();
    let mut history = History::open(&open(history)?).map_err(|e| chain(&e))?;
    history
        .last_pass(
            &app,
            (
                device.and_then(|d| d.model.as_deref()),
                device.and_then(|d| d.software_version.as_deref()),
            ),
            (&report, candidate),
        )
        .map_err(|e| chain(&e))
}

/// The trends the page of the audit at `report` draws: how many criteria have one.
pub fn trends(history: &str, report: &Path) -> Result<usize, String> {
    let audit = crate::compare::read_audit(report, "E_BENCH").map_err(|d| d.message)?;
    let trends = Recorder::at(&open(history)?)
        .trends(&audit)
        .map_err(|e| chain(&e))?;
    Ok(trends.len())
}
