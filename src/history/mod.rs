//! The history: every audit and comparison a delivery (or `--history PATH`) made, in an
//! SQLite file or a PostgreSQL database (a lab's, shared by its hosts), so that a lab can ask
//! how a criterion moved across releases and take the last passing audit as a baseline.
//! Parallel writers wait for each other instead of failing; each run is one transaction, so a
//! run killed mid-write leaves no partial rows; the schema is versioned and migrated forward,
//! and a history from a newer dwpipe is refused with a fix. Replayed audits are recorded as
//! replays and never chosen as a baseline.

pub(crate) mod changes;
mod copy;
mod db;
mod error;
mod facts;
mod lease;
mod prune;
mod queries;
mod record;
mod rows;
mod schema;
mod sqlite;
mod store;
mod writes;

use db::{Arg, Cells, DbError};

pub(crate) use crate::config::{Server, Store};
pub(crate) use changes::{Window, shifts};
pub(crate) use db::Connection;
pub(crate) use facts::build_facts;
pub(crate) use lease::leases_beside;
pub(crate) use record::{RecordError, Recorder, app_of};
pub(crate) use store::{PROJECT_HISTORY, project_store};

pub(crate) use error::HistoryError;
pub(crate) use queries::{Filter, History, RunFacts, VerdictBy};
use rows::{MeasurementRow, RunRow, insert_samples, run_columns};
use sqlite::open_file;
